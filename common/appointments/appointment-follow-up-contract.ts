/**
 * @module Message contracts of the appointment follow-up workflow, shared by the API and the workflow. Payloads
 * carry ids only.
 */
import { defineQuery, defineSignal } from '@temporalio/workflow'
import type { AppointmentStatus } from './appointment-status.ts'

export const APPOINTMENT_FOLLOW_UP_WORKFLOW = 'appointmentFollowUpWorkflow'
export const APPOINTMENT_FOLLOW_UP_KIND = 'appointment-follow-up'

/** One follow-up per completed appointment: derived from its id, so the start (through the outbox) is idempotent. */
export const appointmentFollowUpWorkflowId = (appointmentId: string) => `${APPOINTMENT_FOLLOW_UP_KIND}-${appointmentId}`

export interface AppointmentFollowUpInput {
  tenantId: string
  appointmentId: string
}

/**
 * WAITING_FOR_NOTE until the note is due, NUDGING while it is overdue, FOLLOWED_UP once the family's follow-up went
 * out (the end), UNSIGNED when the note was still unsigned long after the last nudge (the end; the nudges stay open).
 */
export type FollowUpStatus = 'WAITING_FOR_NOTE' | 'NUDGING' | 'FOLLOWED_UP' | 'UNSIGNED' | 'NOT_COMPLETED'

export interface FollowUpView {
  status: FollowUpStatus
  /** When the session's note is due (completion + the location's `noteDueHours`), UTC. */
  noteDueAt: string | null
  nudgesSent: number
  nextNudgeAt: string | null
}

/** The session's SOAP note was signed (sent by the notes API after commit); the workflow re-reads, so no data. */
export const noteSignedSignal = defineSignal<[]>('noteSigned')
export const followUpViewQuery = defineQuery<FollowUpView>('followUpView')

/** The completed appointment as the follow-up plans with it: its session and its note deadline policy. */
export interface FollowUpPlan {
  status: AppointmentStatus
  completedAt: string | null
  childId: string
  providerId: string
  sessionId: string | null
  noteDueHours: number
  /** Whether the session has a signed SOAP note. */
  noteSigned: boolean
}

/** What the follow-up plans with: the appointment's {@link FollowUpPlan} and the policy minute. */
export interface AppointmentFollowUpPlan extends FollowUpPlan {
  /** How long a policy minute lasts (real ms; tests shorten the policy day). */
  minuteMs: number
}

/**
 * The follow-up activities (activities/appointment-follow-up-activities.ts) as the workflow proxies them. The factory declares that it returns this interface, so the compiler checks the two agree. Names,
 * arguments and results are in recorded histories: changing one breaks the replay of runs in flight.
 */
export interface AppointmentFollowUpActivities {
  /** The completed appointment, its note deadline policy and whether its note is signed; missing: a permanent failure. */
  loadFollowUp: (input: AppointmentFollowUpInput) => Promise<AppointmentFollowUpPlan>
  /** SIGNED when the note is signed by now; otherwise records nudge number `nudge` (once) and answers NUDGED. */
  nudgeProviderIfUnsigned: (
    input: AppointmentFollowUpInput & { nudge: number; dueAt: string }
  ) => Promise<'SIGNED' | 'NUDGED'>
  /** Resolves the provider's nudges and records the family's follow-up (once). */
  sendFamilyFollowUp: (input: AppointmentFollowUpInput) => Promise<'RECORDED' | 'DUPLICATE'>
}
