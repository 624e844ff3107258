/**
 * @module Stopping a child's periodic progress summaries: the workflow cancelled and the open follow-up closed; the
 * reports stay (progress-follow-up-parts.ts says what the changes around the workflow share).
 */
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import { closeProgressFollowUps } from './progress-store.ts'
import { progressRecords } from './progress-view.ts'
import { activeChild } from './progress-follow-up-parts.ts'
import type { ProgressWorkflowCalls } from './progress-workflow-calls.ts'

/**
 * Stops the periodic summaries: cancels the workflow and the open follow-up (reports stay). Idempotent.
 * @returns the child's progress afterwards (as `view`)
 */
export async function stopProgressFollowUps(
  calls: Pick<ProgressWorkflowCalls, 'cancel' | 'schedule'>,
  uow: UnitOfWork,
  childId: string,
  now: Date
) {
  await activeChild(uow, childId)
  // Both Temporal calls in one release, before the writes: the writes then commit with the request's records.
  const state = await uow.release(async () => {
    await calls.cancel(uow.tenantId, childId)
    return calls.schedule(uow.tenantId, childId)
  })
  await closeProgressFollowUps(uow, childId, now)
  return { ...(await progressRecords(uow, childId)), state }
}
