/**
 * @module Stopping a child's periodic progress summaries: the workflow cancelled and the open follow-up closed; the
 * reports stay (progress-workflow-calls.ts says what the changes around the workflow share).
 */
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import { childProgressWorkflowId } from '../../common/child-progress/child-progress-contract.ts'
import { AppError } from '../errors.ts'
import { callWorkflow } from '../workflow-runs/workflow-calls.ts'
import { closeProgressFollowUps } from './progress-store.ts'
import { progressRecords } from './progress-view.ts'
import { activeChild, progressSchedule, type ProgressFollowUpsDeps } from './progress-workflow-calls.ts'

/**
 * Stops the periodic summaries: cancels the workflow and the open follow-up (reports stay). Idempotent.
 * @returns the child's progress afterwards (as `view`)
 */
export async function stopProgressFollowUps(
  deps: Pick<ProgressFollowUpsDeps, 'temporal' | 'logger'>,
  uow: UnitOfWork,
  childId: string,
  now: Date
) {
  await activeChild(uow, childId)
  // Both Temporal calls in one release, before the writes: the writes then commit with the request's records.
  const state = await uow.release(async () => {
    await callWorkflow(deps.temporal, 'progress follow-up', () =>
      deps.temporal.workflow.getHandle(childProgressWorkflowId(uow.tenantId, childId)).cancel()
    ).catch((error: unknown) => {
      // Not running (never started, already stopped or closed): stopped is what was asked for.
      if (!(error instanceof AppError && error.code === 'invalid_state_transition')) throw error
    })
    return progressSchedule(deps, uow.tenantId, childId)
  })
  await closeProgressFollowUps(uow, childId, now)
  return { ...(await progressRecords(uow, childId)), state }
}
