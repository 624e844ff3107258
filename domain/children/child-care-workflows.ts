/**
 * @module The care workflows that follow a child, kept in step with the child's record from the children routes:
 * registration starts the child's progress follow-up (and the early-intervention check-in when the child is
 * enrolled); a PATCH re-plans the early-intervention clock (or starts it when the child was just enrolled); an archive
 * ends both. Everything is recorded in the unit of work of the change (workflow outbox) or sent after it commits.
 */
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import type { EarlyInterventionWorkflowCalls, EnrolmentOfChild } from '../early-intervention/ei-workflow-calls.ts'
import type { ProgressFollowUps } from '../child-progress/progress-follow-ups.ts'

/** The two services a child's record drives, built once by the app's composition root (api/compose-services.ts). */
export interface ChildCareWorkflowsDeps {
  earlyIntervention: EarlyInterventionWorkflowCalls
  progress: Pick<ProgressFollowUps, 'childRegistered' | 'childArchived'>
}

export type ChildCareWorkflows = ReturnType<typeof childCareWorkflows>

/** Creates the hooks the children routes call in the unit of work of each change. */
export function childCareWorkflows({ earlyIntervention, progress }: ChildCareWorkflowsDeps) {
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
