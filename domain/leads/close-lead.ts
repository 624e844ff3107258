/**
 * @module Closing an open lead LOST with a reason, once its workflow accepts (lead-moves.ts says what the changes of a
 * lead share).
 */
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import type { LeadCloseReason } from '../../common/leads/lead-state.ts'
import { askLeadWorkflowThenRelock, assertMove, type LeadChangeDeps } from './lead-moves.ts'
import { lockLead, settleLeadNotifications } from './lead-store.ts'

/**
 * Closes an open lead LOST with a reason.
 * @throws AppError `not_found`, `invalid_state_transition`, `dependency_unavailable`
 */
export async function closeLead(
  deps: Pick<LeadChangeDeps, 'workflow'>,
  uow: UnitOfWork,
  leadId: string,
  body: { reason: LeadCloseReason; note?: string },
  now: Date
) {
  const lead = await lockLead(uow, leadId)
  assertMove(lead.status, 'LOST')
  await askLeadWorkflowThenRelock(deps, uow, leadId, 'LOST', () => deps.workflow.close(uow, leadId, body.reason))
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
