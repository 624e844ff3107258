/**
 * @module What the changes around a child's progress follow-up workflow share: their deps ({@link ProgressFollowUpsDeps}),
 * the workflow's input, summary and details, the child as the API may act on it, and the start at registration
 * (through the outbox, in the registration's transaction). The changes are one function per file, as the
 * appointments' are (request-progress-summary.ts, stop-progress-follow-ups.ts; progress-view.ts reads); what they ask
 * of Temporal is progress-workflow-calls.ts; progress-follow-ups.ts composes them.
 *
 * The request never waits for a workflow activity while its transaction is open: activities need the database too,
 * and a request holding a transaction (and its row locks) while waiting for them could wait for ever.
 */
import type { Client } from '@temporalio/client'
import type { Logger } from '../../infra/logger.ts'
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import {
  CHILD_PROGRESS_KIND,
  CHILD_PROGRESS_WORKFLOW,
  childProgressWorkflowId,
  type ChildProgressInput,
} from '../../common/child-progress/child-progress-contract.ts'
import { notFound } from '../errors.ts'
import type { WorkflowOutbox } from '../workflow-runs/workflow-outbox.ts'
import { DAY_MS } from '../../common/time/calendar.ts'

export interface ProgressFollowUpsDeps {
  outbox: WorkflowOutbox
  /** What the follow-ups ask of Temporal go through progress-workflow-calls.ts, made over this client. */
  temporal: Client
  logger: Logger
  taskQueue: string
  intervalDays: number
  /** Length of a day (CARE_WORKFLOW_DAY_MS); tests shorten it. */
  dayMs: number
}

/** The child, of the unit's tenant, with whether it is archived. @throws AppError `not_found` */
export async function activeChild({ tx, tenantId }: UnitOfWork, childId: string) {
  const child = await tx.child.findFirst({ where: { id: childId, tenantId }, select: { id: true, archivedAt: true } })
  if (!child) throw notFound('child', childId)
  return child
}

/** The workflow's input for a child. */
export const progressInputOf = (
  deps: Pick<ProgressFollowUpsDeps, 'intervalDays' | 'dayMs'>,
  tenantId: string,
  childId: string
): ChildProgressInput => ({
  tenantId,
  childId,
  intervalDays: deps.intervalDays,
  ...(deps.dayMs !== DAY_MS ? { dayMs: deps.dayMs } : {}),
})
/** The run's static summary. */
export const progressSummaryOf = (childId: string) => `Child progress follow-up: child ${childId}`
/** The run's static details. */
export const progressDetailsOf = (
  deps: Pick<ProgressFollowUpsDeps, 'intervalDays'>,
  tenantId: string,
  childId: string
) =>
  [
    `Progress summary of child \`${childId}\` (tenant \`${tenantId}\`) every ${deps.intervalDays} days from signed SOAP`,
    'notes and assessments, and a follow-up when an active goal stalls. Figures live in the database only.',
    '',
    `State: \`GET /v1/children/${childId}/progress\` · reports: \`…/progress/reports\``,
  ].join('\n')

/** In the registration's unit of work: the child's follow-ups start after commit. */
export async function childRegistered(
  deps: Pick<ProgressFollowUpsDeps, 'outbox' | 'intervalDays' | 'dayMs'>,
  uow: UnitOfWork,
  childId: string
): Promise<void> {
  await deps.outbox.enqueue(uow, {
    workflowType: CHILD_PROGRESS_WORKFLOW,
    workflowId: childProgressWorkflowId(uow.tenantId, childId),
    args: [progressInputOf(deps, uow.tenantId, childId)],
    searchAttributes: { TenantId: uow.tenantId, WorkflowKind: CHILD_PROGRESS_KIND, ChildId: childId },
    summary: progressSummaryOf(childId),
    details: progressDetailsOf(deps, uow.tenantId, childId),
  })
}
