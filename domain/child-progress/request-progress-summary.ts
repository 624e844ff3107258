/**
 * @module A child's progress summary now: a Temporal update-with-start, so a child whose follow-ups were stopped (or
 * registered before they existed) gets them back; the workflow accepts the period and the API records that report in
 * its own transaction (progress-workflow-calls.ts says what the changes around the workflow share).
 */
import { WithStartWorkflowOperation } from '@temporalio/client'
import { TypedSearchAttributes } from '@temporalio/common'
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import {
  CHILD_PROGRESS_KIND,
  CHILD_PROGRESS_WORKFLOW,
  childProgressWorkflowId,
  requestProgressSummaryUpdate,
} from '../../common/child-progress/child-progress-contract.ts'
import { DEFAULT_PROGRESS_POLICY } from '../../common/child-progress/progress-rules.ts'
import { searchAttributeKeys } from '../../common/search-attributes-contract.ts'
import { invalidStateTransition } from '../errors.ts'
import { callWorkflow } from '../workflow-runs/workflow-calls.ts'
import { DEFAULT_LOOKBACK_DAYS, recordProgressSummary } from './progress-store.ts'
import {
  activeChild,
  progressDetailsOf,
  progressInputOf,
  progressSummaryOf,
  type ProgressFollowUpsDeps,
} from './progress-workflow-calls.ts'

/**
 * A summary of the last interval, made now by the workflow (started if it is not running).
 * @returns the recorded report (none when the workflow refused)
 * @throws AppError `not_found`, `invalid_state_transition` (archived), `dependency_unavailable`
 */
export async function requestProgressSummary(deps: ProgressFollowUpsDeps, uow: UnitOfWork, childId: string, now: Date) {
  const child = await activeChild(uow, childId)
  if (child.archivedAt) throw invalidStateTransition('The child is archived.')
  const workflowId = childProgressWorkflowId(uow.tenantId, childId)
  const start = new WithStartWorkflowOperation(CHILD_PROGRESS_WORKFLOW, {
    workflowId,
    taskQueue: deps.taskQueue,
    args: [progressInputOf(deps, uow.tenantId, childId)],
    workflowIdConflictPolicy: 'USE_EXISTING',
    typedSearchAttributes: new TypedSearchAttributes([
      { key: searchAttributeKeys.TenantId, value: uow.tenantId },
      { key: searchAttributeKeys.WorkflowKind, value: CHILD_PROGRESS_KIND },
      { key: searchAttributeKeys.ChildId, value: childId },
    ]),
    staticSummary: progressSummaryOf(childId),
    staticDetails: progressDetailsOf(deps, uow.tenantId, childId),
  })
  // Holding no transaction while the workflow answers; the report is then written in the unit's next one.
  const accepted = await uow.release(() =>
    callWorkflow(deps.temporal, 'progress follow-up', () =>
      deps.temporal.workflow.executeUpdateWithStart(requestProgressSummaryUpdate, { startWorkflowOperation: start })
    )
  )
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
