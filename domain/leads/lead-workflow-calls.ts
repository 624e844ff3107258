/**
 * @module What the API asks of a lead's qualification workflow (the shape every domain file that calls Temporal has:
 * docs/workflows.md, "Calls into Temporal"): the updates that move the lead (offer, book, close), each named after
 * the request's operation so a retry is answered rather than run again, and the `leadChanged` signal after commit.
 */
import type { Client, WorkflowHandle } from '@temporalio/client'
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import {
  bookLeadUpdate,
  closeLeadUpdate,
  leadChangedSignal,
  leadQualificationWorkflowId,
  offerLeadUpdate,
} from '../../common/leads/lead-qualification-contract.ts'
import type { LeadCloseReason } from '../../common/leads/lead-state.ts'
import { askWhileRefused, callWorkflow, updateIdFor } from '../workflow-runs/workflow-calls.ts'

/** Creates the calls over a Temporal client. */
export function createLeadWorkflowCalls({ temporal }: { temporal: Client }) {
  const handleOf = (uow: UnitOfWork, leadId: string) =>
    temporal.workflow.getHandle(leadQualificationWorkflowId(uow.tenantId, leadId))
  /**
   * An update of the lead's workflow. The move was just checked against the row: a refusal may only mean the workflow
   * has not yet taken the result of its own activity that made the row so (askWhileRefused).
   */
  const ask = <A>(uow: UnitOfWork, leadId: string, update: (handle: WorkflowHandle) => Promise<A>) =>
    callWorkflow(temporal, 'lead qualification', () => askWhileRefused(() => update(handleOf(uow, leadId))))

  return {
    offer: (uow: UnitOfWork, leadId: string) =>
      ask(uow, leadId, (h) => h.executeUpdate(offerLeadUpdate, { updateId: updateIdFor(uow, offerLeadUpdate) })),
    book: (uow: UnitOfWork, leadId: string) =>
      ask(uow, leadId, (h) => h.executeUpdate(bookLeadUpdate, { updateId: updateIdFor(uow, bookLeadUpdate) })),
    close: (uow: UnitOfWork, leadId: string, reason: LeadCloseReason) =>
      ask(uow, leadId, (h) =>
        h.executeUpdate(closeLeadUpdate, { args: [{ reason }], updateId: updateIdFor(uow, closeLeadUpdate) })
      ),

    /** Once the unit commits, tells the workflow to read the lead again (best effort). */
    changed(uow: UnitOfWork, leadId: string): void {
      uow.afterCommit(async () => {
        await temporal
          .withDeadline(Date.now() + 2000, () => handleOf(uow, leadId).signal(leadChangedSignal))
          // Ended, or Temporal down: the workflow reads the lead again a minute after the update anyway.
          .catch(() => undefined)
      })
    },
  }
}

export type LeadWorkflowCalls = ReturnType<typeof createLeadWorkflowCalls>
