/**
 * @module Message contracts of the early-intervention check-in workflow, shared by the API (which starts and signals
 * it) and the workflow. Inputs and signals carry ids and timing only: dates of the child's plan are read from the
 * database by activities, never passed in.
 */
import { defineQuery, defineSignal } from '@temporalio/workflow'
import type { ClosedReason, NoticeKind } from './ei-plan.ts'
import type { EiPolicy } from './ei-policy.ts'

export const EARLY_INTERVENTION_WORKFLOW = 'earlyInterventionWorkflow'
export const EARLY_INTERVENTION_KIND = 'early-intervention'

/** One workflow per child and tenant: starts are idempotent and an operator can derive the id from the child's. */
export const earlyInterventionWorkflowId = (tenantId: string, childId: string) =>
  `${EARLY_INTERVENTION_KIND}:${tenantId}:${childId}`

export interface EarlyInterventionInput {
  tenantId: string
  childId: string
  /** Length of a plan day in ms (86 400 000; tests shorten it). */
  dayMs?: number
  /** Overrides of the Part C numbers (a state's stricter rules). */
  policy?: Partial<EiPolicy>
}

/** Carried across continue-as-new. */
export interface EarlyInterventionCarry {
  originMs: number
  noticesRecorded: number
}

export interface EarlyInterventionResult {
  /** Why the plan closed: the child exited, was archived or unenrolled, or an operator cancelled the workflow. */
  outcome: ClosedReason
  noticesRecorded: number
}

/** What the refresh activity reports. */
export type EiRefresh =
  | { state: 'CLOSED'; reason: ClosedReason }
  | {
      state: 'ACTIVE'
      /** The next notice worth sending: its key, kind and when its day begins (plan time, epoch ms). */
      next: { key: string; kind: NoticeKind; at: number } | null
    }

export type EiNoticeOutcome = 'RECORDED' | 'DUPLICATE' | 'STALE' | 'CLOSED'

/** What an operator can ask a running workflow. */
export interface EarlyInterventionState {
  /** The plan's current time (ISO 8601), which runs faster than real time when days are shortened. */
  planNow: string
  next: { kind: NoticeKind; at: string } | null
  noticesRecorded: number
}

/**
 * The child's record changed (enrolment dates, exit, archive, the 45-day exception): the workflow reloads it. No
 * payload, so a signal never carries stale or sensitive data; losing one only delays the reaction to the daily reload.
 */
export const earlyInterventionChangedSignal = defineSignal<[]>('earlyInterventionChanged')
export const earlyInterventionStateQuery = defineQuery<EarlyInterventionState>('earlyInterventionState')

/** The child an activity works on, with the run's overrides of the default policy. */
export interface EiRef {
  tenantId: string
  childId: string
  policy?: Partial<EiPolicy>
}

/** Why a plan closes: what the record shows, or an operator's cancellation of the workflow. */
export type EiCloseReason = ClosedReason | 'CANCELLED'

/**
 * The early-intervention activities (activities/early-intervention-activities.ts) as the workflow proxies them. The
 * factory declares that it returns this interface, so the compiler checks the two agree. Names, arguments and results
 * are in recorded histories: changing one breaks the replay of runs in flight.
 */
export interface EarlyInterventionActivities {
  /** Recomputes the plan as of the workflow's plan time (`asOf`, epoch ms); reports the next notice, or the close. */
  refreshEarlyInterventionPlan: (input: EiRef & { asOf: number }) => Promise<EiRefresh>
  /** Records one notice if the child's locked record still has it due as of `asOf`. */
  recordEarlyInterventionNotice: (input: EiRef & { asOf: number; key: string }) => Promise<EiNoticeOutcome>
  /** Closes the plan for a reason the record does not show (an operator cancelled the workflow). */
  closeEarlyInterventionPlan: (input: EiRef & { reason: EiCloseReason }) => Promise<void>
}
