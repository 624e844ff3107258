/**
 * @module Message contracts of the child progress follow-up workflow, shared by the API and the workflow. Inputs,
 * updates and results carry ids, counts and timing only; the figures stay in the database.
 */
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow'
import type { ProgressPolicy } from './progress-rules.ts'

export const CHILD_PROGRESS_WORKFLOW = 'childProgressWorkflow'
export const CHILD_PROGRESS_KIND = 'child-progress'

/** One workflow per child and tenant. */
export const childProgressWorkflowId = (tenantId: string, childId: string) =>
  `${CHILD_PROGRESS_KIND}:${tenantId}:${childId}`

export interface ChildProgressInput {
  tenantId: string
  childId: string
  /** Days between two periodic summaries (CHILD_PROGRESS_INTERVAL_DAYS). */
  intervalDays: number
  /** Length of a day in ms (86 400 000; tests shorten it). */
  dayMs?: number
  /** How far back (days) a goal's sessions count towards its trend. */
  lookbackDays?: number
  policy?: Partial<ProgressPolicy>
}

/** Carried across continue-as-new. */
export interface ChildProgressCarry {
  periodStartMs: number
  reportsRecorded: number
}

export interface ChildProgressResult {
  outcome: 'ARCHIVED' | 'MISSING'
  reportsRecorded: number
}

export type ProgressTrigger = 'SCHEDULED' | 'REQUESTED'

/** What recording a summary reports back: ids and counts only. */
export interface ProgressReportOutcome {
  /** Null when a scheduled period had no signed notes or assessments (nothing to report). */
  reportId: string | null
  stalledGoals: number
  followUpId: string | null
}

export interface ChildProgressState {
  intervalDays: number
  /** The current period began here (ISO 8601). */
  periodStart: string
  /** When the next periodic summary is made (ISO 8601). */
  nextSummaryAt: string
  reportsRecorded: number
}

/** The child changed (archived): the workflow re-reads it. */
export const childProgressChangedSignal = defineSignal<[]>('childProgressChanged')
/** A summary the workflow accepted: the period it covers (epoch ms), which the API records at once. */
export interface AcceptedSummary {
  trigger: ProgressTrigger
  periodStart: number
  periodEnd: number
}

/** The summary asked for out of cycle at `now`: the last interval up to now (the periodic cycle is not moved). */
export const requestedSummary = (now: number, intervalMs: number): AcceptedSummary => ({
  trigger: 'REQUESTED',
  periodStart: now - intervalMs,
  periodEnd: now,
})

/** The periodic summary of the period that began at `periodStartMs`; the next period begins at its `periodEnd`. */
export const scheduledSummary = (periodStartMs: number, intervalMs: number): AcceptedSummary => ({
  trigger: 'SCHEDULED',
  periodStart: periodStartMs,
  periodEnd: periodStartMs + intervalMs,
})

/** Make a summary now (of the last interval), out of cycle; answers with the period the workflow accepted. */
export const requestProgressSummaryUpdate = defineUpdate<AcceptedSummary, []>('requestProgressSummary')
export const childProgressStateQuery = defineQuery<ChildProgressState>('childProgressState')

/** The child an activity works on, with the run's overrides of the default lookback and policy. */
export interface ProgressRef {
  tenantId: string
  childId: string
  lookbackDays?: number
  policy?: Partial<ProgressPolicy>
}

/**
 * The child progress activities (activities/child-progress-activities.ts) as the workflow proxies them. The factory declares that it returns this interface, so the compiler checks the two agree. Names,
 * arguments and results are in recorded histories: changing one breaks the replay of runs in flight.
 */
export interface ChildProgressActivities {
  /** ACTIVE, ARCHIVED or MISSING. */
  loadChildProgressStatus: (ref: ProgressRef) => Promise<'ACTIVE' | 'ARCHIVED' | 'MISSING'>
  /** Makes and stores one period's summary and its follow-up; answers ids and counts. */
  recordProgressSummary: (
    input: ProgressRef & { trigger: ProgressTrigger; periodStart: number; periodEnd: number; dayMs: number }
  ) => Promise<ProgressReportOutcome>
  /** Cancels the child's open follow-ups (the workflow was cancelled). */
  closeChildProgress: (ref: ProgressRef) => Promise<void>
}
