/**
 * @module The assessment reminder workflow: the durable schedule of one assessment, from its first due date until it
 * is completed or cancelled. Reminders go out some days before the due day, the due notice (`assessment.due`) when
 * it begins, and escalations while it is overdue (common/assessments/reminder-plan.ts). The workflow holds ids only;
 * it reads the assessment through an activity whenever it is told the record changed, before every step, and at
 * least once a (workflow) day, so the database stays the one source of truth and a lost signal cannot mislead it.
 * A due-date change re-plans the schedule; completion or cancellation ends the workflow.
 */
import { condition, continueAsNew, log, proxyActivities, setHandler, workflowInfo } from '@temporalio/workflow'
import { standardActivityOptions } from './activity-options.ts'
import {
  DEFAULT_REMINDER_TIMING,
  planReminderSteps,
  selectDueSteps,
  stepKey,
  toWorkflowMs,
  type ReminderStep,
  type ReminderTiming,
} from '../common/assessments/reminder-plan.ts'
import {
  assessmentChangedSignal,
  assessmentReminderStateQuery,
  type AssessmentActivities,
  type AssessmentReminderInput,
  type AssessmentReminderResult,
  type AssessmentReminderSnapshot,
} from '../common/assessments/assessment-reminder-contract.ts'

const activities = proxyActivities<AssessmentActivities>(standardActivityOptions('30 seconds'))

const CLOSED = new Set<AssessmentReminderSnapshot['status']>(['COMPLETED', 'CANCELLED', 'MISSING'])

/** Past this many history events the workflow continues as new, carrying only what it has already recorded. */
const HISTORY_LIMIT = 5_000

/** Internal carry-over across continue-as-new: the steps already recorded for the current due date. */
interface Carry {
  dueDate: string
  dueAt: number
  recordedKeys: string[]
  notificationsRecorded: number
}

export async function assessmentReminderWorkflow(
  input: AssessmentReminderInput & { carry?: Carry }
): Promise<AssessmentReminderResult> {
  const timing: ReminderTiming = { ...DEFAULT_REMINDER_TIMING, ...input.timing }
  const ref = { tenantId: input.tenantId, assessmentId: input.assessmentId }
  let changed = false
  let notificationsRecorded = input.carry?.notificationsRecorded ?? 0
  const recorded = new Set(input.carry?.recordedKeys ?? [])
  // The schedule of the current due date, fixed when the date is first seen: reloading the same date keeps it, so
  // time runs on in the workflow's own (possibly shortened) days.
  let plan: { dueDate: string; dueAt: number; steps: ReminderStep[] } | undefined = input.carry
    ? {
        dueDate: input.carry.dueDate,
        dueAt: input.carry.dueAt,
        steps: planReminderSteps(input.carry.dueAt, Date.now(), timing),
      }
    : undefined

  const pending = () => (plan ? plan.steps.filter((s) => !recorded.has(stepKey(plan!.dueDate, s))) : [])

  setHandler(assessmentChangedSignal, () => {
    changed = true
  })
  setHandler(assessmentReminderStateQuery, () => {
    const next = pending()[0]
    return {
      dueDate: plan?.dueDate ?? null,
      next: next ? { kind: next.kind, daysFromDue: next.daysFromDue, at: new Date(next.at).toISOString() } : null,
      notificationsRecorded,
    }
  })

  for (;;) {
    changed = false
    const snapshot = await activities.loadAssessmentReminderState(ref)
    if (CLOSED.has(snapshot.status)) {
      log.info('assessment reminders closed', { assessmentId: input.assessmentId, outcome: snapshot.status })
      return { outcome: snapshot.status as AssessmentReminderResult['outcome'], notificationsRecorded }
    }
    if (!snapshot.dueDate || snapshot.msUntilDue === null) {
      plan = undefined
    } else if (plan?.dueDate !== snapshot.dueDate) {
      const now = Date.now()
      const dueAt = now + toWorkflowMs(snapshot.msUntilDue, timing)
      plan = { dueDate: snapshot.dueDate, dueAt, steps: planReminderSteps(dueAt, now, timing) }
    }

    const step = pending()[0]
    const wait = step ? step.at - Date.now() : Number.POSITIVE_INFINITY
    if (wait > 0) {
      // Wake for the step, a change, or after one day at most (the periodic reload).
      await condition(() => changed, Math.ceil(Math.min(wait, timing.dayMs)))
      if (workflowInfo().historyLength > HISTORY_LIMIT || workflowInfo().continueAsNewSuggested) {
        await continueAsNew<typeof assessmentReminderWorkflow>({
          ...input,
          carry: plan
            ? { dueDate: plan.dueDate, dueAt: plan.dueAt, recordedKeys: [...recorded], notificationsRecorded }
            : undefined,
        })
      }
      continue
    }
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- the signal handler sets `changed` during the awaits above
    if (changed || !step || !plan) continue

    // Several steps at once only after the workflow could not run for a while: escalations collapse to the latest.
    const currentPlan = plan
    const { act, skip } = selectDueSteps(pending(), Date.now())
    for (const passed of skip) recorded.add(stepKey(currentPlan.dueDate, passed))
    const next = act[0]
    if (!next) continue
    const outcome = await activities.recordAssessmentNotification({
      ...ref,
      dueDate: currentPlan.dueDate,
      kind: next.kind,
      daysFromDue: next.daysFromDue,
    })
    if (outcome === 'RECORDED' || outcome === 'DUPLICATE') {
      recorded.add(stepKey(currentPlan.dueDate, next))
      if (outcome === 'RECORDED') notificationsRecorded++
    }
    // STALE (the due date moved) and CLOSED are settled by the reload at the top of the loop.
  }
}
