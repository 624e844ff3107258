/**
 * @module A child's progress summary now: a Temporal update-with-start, so a child whose follow-ups were stopped (or
 * registered before they existed) gets them back; the workflow accepts the period and the API records that report in
 * its own transaction (progress-follow-up-parts.ts says what the changes around the workflow share).
 */
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import { DEFAULT_PROGRESS_POLICY } from '../../common/child-progress/progress-rules.ts'
import { invalidStateTransition } from '../errors.ts'
import { DEFAULT_LOOKBACK_DAYS, recordProgressSummary } from './progress-store.ts'
import {
  activeChild,
  progressDetailsOf,
  progressInputOf,
  progressSummaryOf,
  type ProgressFollowUpsDeps,
} from './progress-follow-up-parts.ts'
import type { ProgressWorkflowCalls } from './progress-workflow-calls.ts'

/**
 * A summary of the last interval, made now by the workflow (started if it is not running).
 * @returns the recorded report (none when the workflow refused)
 * @throws AppError `not_found`, `invalid_state_transition` (archived), `dependency_unavailable`
 */
export async function requestProgressSummary(
  deps: Pick<ProgressFollowUpsDeps, 'intervalDays' | 'dayMs'>,
  calls: Pick<ProgressWorkflowCalls, 'summarizeNow'>,
  uow: UnitOfWork,
  childId: string,
  now: Date
) {
  const child = await activeChild(uow, childId)
  if (child.archivedAt) throw invalidStateTransition('The child is archived.')
  const run = {
    input: progressInputOf(deps, uow.tenantId, childId),
    summary: progressSummaryOf(childId),
    details: progressDetailsOf(deps, uow.tenantId, childId),
  }
  // Holding no transaction while the workflow answers; the report is then written in the unit's next one.
  const accepted = await uow.release(() => calls.summarizeNow(uow.tenantId, childId, run))
  // The workflow decided the period; the report is recorded here (the workflow's own recording is then a no-op).
  const outcome = await recordProgressSummary(
    uow,
    {
      childId,
      trigger: accepted.trigger,
      periodStart: accepted.periodStart,
      periodEnd: accepted.periodEnd,
      lookbackMs: DEFAULT_LOOKBACK_DAYS * deps.dayMs,
      policy: DEFAULT_PROGRESS_POLICY,
    },
    now
  )
  const report = outcome.reportId
    ? await uow.tx.childProgressReport.findFirst({ where: { id: outcome.reportId, tenantId: uow.tenantId } })
    : null
  if (!report) throw invalidStateTransition('The summary was not recorded.')
  return report
}
