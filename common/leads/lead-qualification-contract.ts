/**
 * @module Message contracts of the lead qualification workflow, shared by the API and the workflow. The workflow
 * holds the lead's id and its clock only: the family's contact and needs stay in the database and are read by
 * activities. The API's operations (offer, book, close) are Temporal updates the workflow accepts or refuses against
 * its status in one synchronous turn, so an offer's follow-up window closing and a booking can never both win.
 */
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow'
import type { LeadPolicy } from './lead-policy.ts'
import type { LeadCloseReason, LeadStatus } from './lead-state.ts'

export const LEAD_QUALIFICATION_WORKFLOW = 'leadQualificationWorkflow'
export const LEAD_QUALIFICATION_KIND = 'lead-qualification'

/** One workflow per lead: the start is idempotent and an operator derives the id from the lead's. */
export const leadQualificationWorkflowId = (tenantId: string, leadId: string) =>
  `${LEAD_QUALIFICATION_KIND}:${tenantId}:${leadId}`

export interface LeadQualificationInput {
  tenantId: string
  leadId: string
  /** Length of a day in ms (86 400 000; tests shorten it with CARE_WORKFLOW_DAY_MS). */
  dayMs?: number
  policy?: Partial<LeadPolicy>
}

/** The lead as the database has it, as far as the workflow cares (what activities report). */
export interface LeadSnapshot {
  status: LeadStatus
  /** Epoch ms of the current offer, when offered. */
  offeredAt: number | null
  followUpsSent: number
}

export interface LeadQualificationResult {
  status: LeadStatus
  followUpsSent: number
}

/** The workflow's answer to an offer: the instants the API records and shows. */
export interface OfferAccepted {
  offeredAt: number
  nextFollowUpAt: number | null
  respondBy: number
}

/**
 * The API recorded a move the workflow accepted (or refused it after all): read the lead again. The API asks for a
 * move holding no transaction and writes it afterwards in one of its own, so the workflow's first read after an update
 * may come before that write; this signal, sent once the write commits, and a re-read a minute later whatever
 * happens, settle it.
 */
export const leadChangedSignal = defineSignal('leadChanged')

/** The `patched()` id of that second read: runs started before it settled on their first read. */
export const LEAD_SETTLE_AFTER_COMMIT_PATCH = 'lead-settle-after-commit'

/**
 * The `patched()` id of keeping the accepted status through a read made before the API's write committed: runs
 * started before it took the read's (older) status until the second read, and refused updates meanwhile.
 */
export const LEAD_KEEP_ACCEPTED_PATCH = 'lead-keep-accepted-until-commit'

/** Offer the family slots (a new offer replaces the last and restarts its follow-ups). Allowed when MATCHED or OFFERED. */
export const offerLeadUpdate = defineUpdate<OfferAccepted, []>('offerLead')
/** The family booked an offered slot. Allowed when OFFERED and the response window has not closed. */
export const bookLeadUpdate = defineUpdate<{ status: LeadStatus }, []>('bookLead')
/** Close the lead LOST. Allowed while it is open. */
export const closeLeadUpdate = defineUpdate<{ status: LeadStatus }, [{ reason: LeadCloseReason }]>('closeLead')

export interface LeadWorkflowState {
  status: LeadStatus
  followUpsSent: number
  nextFollowUpAt: string | null
  respondBy: string | null
}

export const leadStateQuery = defineQuery<LeadWorkflowState>('leadState')

/** The lead an activity works on. */
export interface LeadRef {
  tenantId: string
  leadId: string
}

/** One follow-up of an unanswered offer. */
export interface LeadFollowUp {
  /** The offer this follow-up belongs to (epoch ms): a follow-up of a replaced offer is not recorded. */
  offeredAt: number
  followUp: number
  nextFollowUpAt: number | null
  respondBy: number
}

/**
 * The lead qualification activities (activities/lead-qualification-activities.ts) as the workflow proxies them. The factory declares that it returns this
 * interface, so the compiler checks the two agree. Names, arguments and results are in recorded histories: changing
 * one breaks the replay of runs in flight.
 */
export interface LeadQualificationActivities {
  /** Qualifies a NEW lead by the rules and records the explanation. */
  qualifyLead: (ref: LeadRef) => Promise<LeadSnapshot>
  /** Matches a QUALIFIED lead and records the top providers with their next slots. */
  matchLead: (input: LeadRef & { policy: LeadPolicy; lastAttempt: boolean }) => Promise<LeadSnapshot>
  /** Records one follow-up of an unanswered offer (a care notification, once). */
  recordLeadFollowUp: (input: LeadRef & LeadFollowUp) => Promise<LeadSnapshot>
  /** Closes an unanswered offer LOST (NO_RESPONSE). */
  closeLeadNoResponse: (ref: LeadRef) => Promise<LeadSnapshot>
  /** Re-reads the lead after an accepted update, once the API's request has committed or rolled back. */
  settleLead: (ref: LeadRef) => Promise<LeadSnapshot>
}
