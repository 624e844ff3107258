/**
 * @module The child progress follow-up workflow: one per child, from registration until the child is archived (or the
 * follow-ups are stopped through the API, which cancels it). Every `intervalDays` it has a progress summary recorded
 * from the period's signed SOAP notes and completed assessments (domain/child-progress), and the summary raises a follow-up
 * when an active goal stalled or declined. An update from the API asks for a summary now: the workflow accepts it
 * (unless the child is archived) and answers with the period, which the API records at once in its own transaction;
 * the workflow records it too, a no-op unless that request failed to commit. Orchestration only: the figures never
 * enter the workflow's history, only ids, counts and periods.
 *
 * Summaries are recorded one at a time, in the order they were decided, and recording is idempotent per period and
 * trigger, so a retried activity or a replayed workflow never records a report twice. A period missed while no worker
 * ran is summarised when one returns.
 */
import {
  ApplicationFailure,
  CancellationScope,
  allHandlersFinished,
  condition,
  continueAsNew,
  isCancellation,
  log,
  patched,
  proxyActivities,
  setCurrentDetails,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow'
import { standardActivityOptions } from './activity-options.ts'
import {
  childProgressChangedSignal,
  childProgressStateQuery,
  requestProgressSummaryUpdate,
  requestedSummary,
  scheduledSummary,
  type AcceptedSummary,
  type ChildProgressActivities,
  type ChildProgressCarry,
  type ChildProgressInput,
  type ChildProgressResult,
} from '../common/child-progress/child-progress-contract.ts'
import { DAY_MS } from '../common/time/calendar.ts'

const activities = proxyActivities<ChildProgressActivities>(standardActivityOptions('1 minute'))

const PERIOD_FROM_START = 'child-progress-period-from-start'
/** A monthly summary adds a handful of events; continue as new well before the history grows large. */
const HISTORY_LIMIT = 2_000

export async function childProgressWorkflow(
  input: ChildProgressInput & { carry?: ChildProgressCarry }
): Promise<ChildProgressResult> {
  const dayMs = input.dayMs ?? DAY_MS
  const intervalMs = input.intervalDays * dayMs
  const ref = {
    tenantId: input.tenantId,
    childId: input.childId,
    lookbackDays: input.lookbackDays,
    policy: input.policy,
  }
  // The first period opens when the workflow was started, not when a worker first ran it (`runStartTime` is that
  // first task): notes signed while no worker ran belong to it. Runs begun before this change keep their first task's time.
  let periodStartMs =
    input.carry?.periodStartMs ?? (patched(PERIOD_FROM_START) ? workflowInfo().startTime.getTime() : Date.now())
  let reportsRecorded = input.carry?.reportsRecorded ?? 0
  // Widened on purpose (`as`): the handlers change it between awaits, which TypeScript's narrowing cannot see.
  let changed = false as boolean
  let closed = false
  /** Summaries decided and not yet recorded by the workflow, in order. */
  const toRecord: AcceptedSummary[] = []

  setHandler(childProgressChangedSignal, () => {
    changed = true
  })
  setHandler(childProgressStateQuery, () => ({
    intervalDays: input.intervalDays,
    periodStart: new Date(periodStartMs).toISOString(),
    nextSummaryAt: new Date(periodStartMs + intervalMs).toISOString(),
    reportsRecorded,
  }))
  setHandler(
    requestProgressSummaryUpdate,
    () => {
      // The last interval up to now; the periodic cycle is not moved by an out-of-cycle summary.
      const accepted = requestedSummary(Date.now(), intervalMs)
      toRecord.push(accepted)
      return accepted
    },
    {
      validator: () => {
        if (closed)
          throw ApplicationFailure.create({
            type: 'invalid_state_transition',
            message: 'The child is archived.',
            nonRetryable: true,
          })
      },
    }
  )

  try {
    for (;;) {
      const next = toRecord.shift()
      if (next) {
        const outcome = await activities.recordProgressSummary({ ...ref, ...next, dayMs })
        if (outcome.reportId) reportsRecorded++
        continue
      }
      setCurrentDetails(
        `Next periodic summary: ${new Date(periodStartMs + intervalMs).toISOString()} · reports: ${reportsRecorded}`
      )
      const woken = await condition(
        () => changed || toRecord.length > 0,
        Math.max(1, periodStartMs + intervalMs - Date.now())
      )
      if (changed) {
        changed = false
        const status = await activities.loadChildProgressStatus(ref)
        if (status !== 'ACTIVE') {
          closed = true
          // Summaries already accepted are recorded before the workflow ends.
          while (toRecord.length > 0) await activities.recordProgressSummary({ ...ref, ...toRecord.shift()!, dayMs })
          await condition(allHandlersFinished)
          log.info('child progress follow-up closed', { childId: input.childId, outcome: status })
          return { outcome: status, reportsRecorded }
        }
        continue
      }
      if (woken) continue
      const scheduled = scheduledSummary(periodStartMs, intervalMs)
      toRecord.push(scheduled)
      periodStartMs = scheduled.periodEnd
      if (workflowInfo().historyLength > HISTORY_LIMIT || workflowInfo().continueAsNewSuggested) {
        while (toRecord.length > 0) await activities.recordProgressSummary({ ...ref, ...toRecord.shift()!, dayMs })
        await condition(allHandlersFinished)
        await continueAsNew<typeof childProgressWorkflow>({ ...input, carry: { periodStartMs, reportsRecorded } })
      }
    }
  } catch (error) {
    if (!isCancellation(error)) throw error
    // Follow-ups were stopped (the API records that itself; this covers a cancellation from elsewhere).
    await CancellationScope.nonCancellable(() => activities.closeChildProgress(ref))
    throw error
  }
}
