/**
 * @module Closing an open lead LOST with a reason, once its workflow accepts (lead-moves.ts says what the changes of a
 * lead share).
 */
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import { closeLeadUpdate } from '../../common/leads/lead-qualification-contract.ts'
import { updateIdFor } from '../workflow-runs/workflow-calls.ts'
import type { LeadCloseReason } from '../../common/leads/lead-state.ts'
import { askLeadWorkflowThenRelock, assertMove, type LeadDeps } from './lead-moves.ts'
import { lockLead, settleLeadNotifications } from './lead-store.ts'

/**
 * Closes an open lead LOST with a reason.
 * @throws AppError `not_found`, `invalid_state_transition`, `dependency_unavailable`
 */
export async function closeLead(
  deps: Pick<LeadDeps, 'temporal'>,
  uow: UnitOfWork,
  leadId: string,
  body: { reason: LeadCloseReason; note?: string },
  now: Date
) {
  const lead = await lockLead(uow, leadId)
  assertMove(lead.status, 'LOST')
  await askLeadWorkflowThenRelock(deps, uow, leadId, 'LOST', (workflow) =>
    workflow.executeUpdate(closeLeadUpdate, {
      args: [{ reason: body.reason }],
      updateId: updateIdFor(uow, closeLeadUpdate),
    })
  )
  const updated = await uow.tx.lead.update({
    where: { id: lead.id },
    data: {
      status: 'LOST',
      closedReason: body.reason,
      closedNote: body.note ?? null,
      closedAt: now,
      nextFollowUpAt: null,
    },
  })
  await settleLeadNotifications(uow, lead.id, 'LOST', now)
  return updated
}
