/**
 * @module The care workflows that follow a child, kept in step with the child's record from the children routes:
 * registration starts the child's progress follow-up (and the early-intervention check-in when the child is
 * enrolled); a PATCH re-plans the early-intervention clock (or starts it when the child was just enrolled); an archive
 * ends both. Everything is recorded in the unit of work of the change (workflow outbox) or sent after it commits.
 */
import type { Client } from '@temporalio/client'
import type { Logger } from '../../infra/logger.ts'
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import { createEarlyInterventionSync, type EnrolmentOfChild } from '../early-intervention/ei-workflow-sync.ts'
import { createProgressFollowUps } from '../progress/progress-follow-ups.ts'
import type { WorkflowOutbox } from '../workflows/workflow-outbox.ts'

export interface ChildCareWorkflowsDeps {
  outbox: WorkflowOutbox
  temporal: Client
  logger: Logger
  config: { TEMPORAL_TASK_QUEUE: string; CARE_WORKFLOW_DAY_MS: number; CHILD_PROGRESS_INTERVAL_DAYS: number }
}

/** A child's progress follow-ups as configured: the children routes start and stop them, the progress routes read. */
export function progressFollowUpsOf(deps: ChildCareWorkflowsDeps) {
  return createProgressFollowUps({
    outbox: deps.outbox,
    temporal: deps.temporal,
    logger: deps.logger,
    taskQueue: deps.config.TEMPORAL_TASK_QUEUE,
    intervalDays: deps.config.CHILD_PROGRESS_INTERVAL_DAYS,
    dayMs: deps.config.CARE_WORKFLOW_DAY_MS,
  })
}

/** Creates the hooks the children routes call in the unit of work of each change. */
export function childCareWorkflows(deps: ChildCareWorkflowsDeps) {
  const earlyIntervention = createEarlyInterventionSync({
    outbox: deps.outbox,
    temporal: deps.temporal,
    logger: deps.logger,
    ...(deps.config.CARE_WORKFLOW_DAY_MS !== 86_400_000 ? { dayMs: deps.config.CARE_WORKFLOW_DAY_MS } : {}),
  })
  const progress = progressFollowUpsOf(deps)
  return {
    /** A child was registered. */
    async childRegistered(uow: UnitOfWork, child: EnrolmentOfChild): Promise<void> {
      await progress.childRegistered(uow, child.id)
      if (child.eiReferralDate !== null) await earlyIntervention.childChanged(uow, child)
    },
    /** A child was changed (PATCH) or archived (DELETE). */
    async childChanged(uow: UnitOfWork, child: EnrolmentOfChild): Promise<void> {
      await earlyIntervention.childChanged(uow, child)
      if (child.archivedAt) progress.childArchived(uow, child.id)
    },
  }
}
