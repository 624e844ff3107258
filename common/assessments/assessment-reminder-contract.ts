/**
 * @module Message contracts of the assessment reminder workflow, shared by the API (which starts and signals it) and
 * the workflow. Inputs and signals carry ids and timing only — never scores, names or instruments.
 */
import { defineQuery, defineSignal } from '@temporalio/workflow'
import type { ReminderStepKind, ReminderTiming } from './reminder-plan.ts'

export const ASSESSMENT_REMINDER_WORKFLOW = 'assessmentReminderWorkflow'
export const ASSESSMENT_REMINDER_KIND = 'assessment-reminder'

/**
 * The workflow id of an assessment's reminders: one per assessment for its whole life, derived from tenant and id so
 * starts are idempotent and an operator can find it.
 */
export const assessmentReminderWorkflowId = (tenantId: string, assessmentId: string) =>
  `${ASSESSMENT_REMINDER_KIND}:${tenantId}:${assessmentId}`

export interface AssessmentReminderInput {
  tenantId: string
  assessmentId: string
  /** Overrides of the default schedule (common/assessments/reminder-plan.ts). */
  timing?: Partial<ReminderTiming>
}

export interface AssessmentReminderResult {
  /** How the assessment ended: COMPLETED, CANCELLED, or MISSING when it no longer exists. */
  outcome: 'COMPLETED' | 'CANCELLED' | 'MISSING'
  notificationsRecorded: number
}

/** What an operator or the API can ask a running reminder workflow. */
export interface AssessmentReminderState {
  dueDate: string | null
  next: { kind: ReminderStepKind; daysFromDue: number; at: string } | null
  notificationsRecorded: number
}

/**
 * The assessment changed (due date moved, completed, cancelled): the workflow reloads it from the database. No
 * payload, so a signal can never carry stale or sensitive data; losing one only delays the reaction to the next
 * periodic reload.
 */
export const assessmentChangedSignal = defineSignal<[]>('assessmentChanged')
export const assessmentReminderStateQuery = defineQuery<AssessmentReminderState>('assessmentReminderState')

/** What the load activity reports about the assessment. */
export interface AssessmentReminderSnapshot {
  status: 'SCHEDULED' | 'DUE' | 'OVERDUE' | 'COMPLETED' | 'CANCELLED' | 'MISSING'
  /** YYYY-MM-DD, or null when the assessment has no due date (nothing to remind of until it gets one). */
  dueDate: string | null
  /** Real milliseconds from now until the due day begins in the centre's zone (negative once it has begun). */
  msUntilDue: number | null
}

export type NotificationOutcome = 'RECORDED' | 'DUPLICATE' | 'STALE' | 'CLOSED'

/** The assessment an activity works on. */
export interface AssessmentRef {
  tenantId: string
  assessmentId: string
}

/** One step of the reminder plan to record. */
export interface AssessmentReminderStep {
  assessmentId: string
  /** The due date the workflow planned the step for; a step for a date that has since moved is STALE. */
  dueDate: string
  kind: ReminderStepKind
  daysFromDue: number
}

/**
 * The assessment reminder activities (activities/assessment-activities.ts) as the workflow proxies them. The factory declares that it returns this interface, so the compiler checks the two agree. Names,
 * arguments and results are in recorded histories: changing one breaks the replay of runs in flight.
 */
export interface AssessmentActivities {
  /** The assessment's status, due date and the real time until its due day begins. */
  loadAssessmentReminderState: (ref: AssessmentRef) => Promise<AssessmentReminderSnapshot>
  /** Records one reminder, due notice or escalation, unless the assessment is closed. */
  recordAssessmentNotification: (input: AssessmentRef & AssessmentReminderStep) => Promise<NotificationOutcome>
}
