/**
 * @module The early-intervention check-in workflow: the durable IDEA Part C clock of one enrolled child. It raises the
 * reminders and notices of common/early-intervention/ei-plan.ts on their days (initial IFSP within 45 days, periodic
 * review, annual meeting, transition, exit) and the monthly family check-ins between them, and ends when the child
 * exits early intervention, is archived or unenrolled.
 *
 * The database is the one source of truth: the workflow holds ids and its clock only, and an activity recomputes the
 * plan from the child's record whenever it is told the record changed, before every notice, and at least once a
 * (plan) day — so changed dates re-plan at once, and a lost signal delays that by a day at most. Recording a notice
 * re-checks the plan with the child's row locked, so a notice never goes out for a deadline the API has just met.
 */
import {
  CancellationScope,
  condition,
  continueAsNew,
  isCancellation,
  log,
  proxyActivities,
  setCurrentDetails,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow'
import { standardActivityOptions } from './activity-options.ts'
import { noticeWaitMs, planNow, workflowDelayUntil, type PlanClock } from '../common/early-intervention/ei-clock.ts'
import {
  earlyInterventionChangedSignal,
  earlyInterventionStateQuery,
  type EarlyInterventionActivities,
  type EarlyInterventionCarry,
  type EarlyInterventionInput,
  type EarlyInterventionResult,
  type EiRefresh,
} from '../common/early-intervention/early-intervention-contract.ts'
import { DAY_MS } from '../common/time/calendar.ts'

const activities = proxyActivities<EarlyInterventionActivities>(standardActivityOptions('30 seconds'))

/** Past this many history events the workflow continues as new (a three-year plan reloads over a thousand times). */
const HISTORY_LIMIT = 5_000

export async function earlyInterventionWorkflow(
  input: EarlyInterventionInput & { carry?: EarlyInterventionCarry }
): Promise<EarlyInterventionResult> {
  const clock: PlanClock = { originMs: input.carry?.originMs ?? Date.now(), dayMs: input.dayMs ?? DAY_MS }
  const ref = { tenantId: input.tenantId, childId: input.childId, policy: input.policy }
  let changed = false
  let noticesRecorded = input.carry?.noticesRecorded ?? 0
  let next: Extract<EiRefresh, { state: 'ACTIVE' }>['next'] = null

  setHandler(earlyInterventionChangedSignal, () => {
    changed = true
  })
  setHandler(earlyInterventionStateQuery, () => ({
    planNow: new Date(planNow(clock, Date.now())).toISOString(),
    next: next ? { kind: next.kind, at: new Date(next.at).toISOString() } : null,
    noticesRecorded,
  }))

  try {
    let staleKey: string | undefined
    for (;;) {
      changed = false
      const view = await activities.refreshEarlyInterventionPlan({ ...ref, asOf: planNow(clock, Date.now()) })
      // A change that arrived while the plan was being read (an exit undone at once) is read again before closing.
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- the signal handler sets `changed` while the activity runs
      if (view.state === 'CLOSED' && changed) continue
      if (view.state === 'CLOSED') {
        log.info('early-intervention plan closed', { childId: input.childId, outcome: view.reason })
        return { outcome: view.reason, noticesRecorded }
      }
      next = view.next
      // Kinds and counts only: the UI shows this to operators, who see no dates of the child's plan.
      setCurrentDetails(
        `Next notice: ${next?.kind ?? 'none (waiting for a change)'} · notices recorded: ${noticesRecorded}`
      )
      const wait = next ? workflowDelayUntil(clock, Date.now(), next.at) : Number.POSITIVE_INFINITY
      const sleepMs = noticeWaitMs(wait, next !== null && next.key === staleKey, clock.dayMs)
      if (sleepMs !== null) {
        // Wake for the notice, a change, or after one plan day at most (the periodic reload).
        await condition(() => changed, sleepMs)
        if (workflowInfo().historyLength > HISTORY_LIMIT || workflowInfo().continueAsNewSuggested) {
          await continueAsNew<typeof earlyInterventionWorkflow>({
            ...input,
            carry: { originMs: clock.originMs, noticesRecorded },
          })
        }
        continue
      }
      const outcome = await activities.recordEarlyInterventionNotice({
        ...ref,
        asOf: planNow(clock, Date.now()),
        key: next!.key,
      })
      if (outcome === 'RECORDED') noticesRecorded++
      // STALE: the plan moved between the two reads; the next refresh settles it. The same key stale twice in a row
      // waits for a change or the daily reload instead of asking again at once.
      staleKey = outcome === 'STALE' ? next!.key : undefined
    }
  } catch (error) {
    if (!isCancellation(error)) throw error
    // An operator cancelled the workflow: close the plan so the API does not show reminders nobody will send.
    await CancellationScope.nonCancellable(() => activities.closeEarlyInterventionPlan({ ...ref, reason: 'CANCELLED' }))
    throw error
  }
}
