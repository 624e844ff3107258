/**
 * @module What the API does with a child's progress follow-up workflow: starts it when the child is registered
 * (through the workflow outbox, in the registration's transaction), tells it when the child is archived, asks it for a
 * summary now, stops it (cancellation), and shows its state (reports, the open follow-up, the next summary from its
 * query). One function per change, each in its own file (progress-follow-up-parts.ts says what they share; what they
 * ask of Temporal is progress-workflow-calls.ts); this composes them with their dependencies.
 */
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import { listProgressReports, progressView, type ReportListQuery } from './progress-view.ts'
import { childRegistered, type ProgressFollowUpsDeps } from './progress-follow-up-parts.ts'
import { createProgressWorkflowCalls } from './progress-workflow-calls.ts'
import { requestProgressSummary } from './request-progress-summary.ts'
import { stopProgressFollowUps } from './stop-progress-follow-ups.ts'

/** Creates the API side of the progress follow-ups. */
export function createProgressFollowUps(deps: ProgressFollowUpsDeps) {
  const calls = createProgressWorkflowCalls(deps)
  return {
    /** @see childRegistered */
    childRegistered: (uow: UnitOfWork, childId: string) => childRegistered(deps, uow, childId),
    /** In the archive's unit of work: the workflow re-reads the child after commit and ends. */
    childArchived: (uow: UnitOfWork, childId: string) => calls.childArchived(uow, childId),
    /** @see requestProgressSummary */
    requestSummary: (uow: UnitOfWork, childId: string, now: Date) =>
      requestProgressSummary(deps, calls, uow, childId, now),
    /** @see stopProgressFollowUps */
    stop: (uow: UnitOfWork, childId: string, now: Date) => stopProgressFollowUps(calls, uow, childId, now),
    /** @see progressView */
    view: (uow: UnitOfWork, childId: string) => progressView(calls, uow, childId),
    /** @see listProgressReports */
    listReports: (uow: UnitOfWork, childId: string, query: ReportListQuery) => listProgressReports(uow, childId, query),
  }
}

export type ProgressFollowUps = ReturnType<typeof createProgressFollowUps>
