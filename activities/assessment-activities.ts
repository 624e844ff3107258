/**
 * @module Activities of the assessment reminder workflow: thin wrappers that run the domain functions of
 * domain/assessments/reminder-steps.ts in a unit of work scoped to the workflow's tenant. Both are idempotent: the
 * load only reads, and a step is recorded once per assessment, due date, kind and day (its dedupe key).
 */
import type { Db } from '../infra/db.ts'
import { runInUnitOfWork } from '../infra/unit-of-work.ts'
import {
  loadReminderSnapshot,
  recordReminderStep,
  type ReminderStepInput,
} from '../domain/assessments/reminder-steps.ts'
import type {
  AssessmentActivities,
  AssessmentRef,
  AssessmentReminderSnapshot,
  NotificationOutcome,
} from '../common/assessments/assessment-reminder-contract.ts'

export interface AssessmentActivityDeps {
  db: Db
  /** The activities' clock (injectable for tests). */
  now?: () => Date
}

/** Creates the assessment reminder activities: the interface the reminder workflow proxies (its contract). */
export function createAssessmentActivities({
  db,
  now = () => new Date(),
}: AssessmentActivityDeps): AssessmentActivities {
  return {
    /** The assessment's status, due date and the real time until its due day begins. */
    async loadAssessmentReminderState({ tenantId, assessmentId }: AssessmentRef): Promise<AssessmentReminderSnapshot> {
      return runInUnitOfWork(db, tenantId, (uow) => loadReminderSnapshot(uow, assessmentId, now()))
    },

    /** Records one reminder, due notice (with `assessment.due`) or escalation, unless the assessment is closed. */
    async recordAssessmentNotification({
      tenantId,
      ...step
    }: AssessmentRef & ReminderStepInput): Promise<NotificationOutcome> {
      return runInUnitOfWork(db, tenantId, (uow) => recordReminderStep(uow, step, now()))
    },
  }
}
