/**
 * @module Merging a patch of a lead's writable fields (client, child, contact); a closed lead keeps what it was closed
 * with. No workflow is asked: these fields are not the workflow's.
 */
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import { isFinal } from '../../common/leads/lead-state.ts'
import { invalidStateTransition, validationError } from '../errors.ts'
import { applyMergePatch } from '../merge-patch.ts'
import { checkLeadReferences } from './lead-moves.ts'
import type { PatchLead } from './lead-request.ts'
import { lockLead } from './lead-store.ts'

/**
 * Merges a patch of the writable fields (client, child, contact). A closed lead keeps what it was closed with.
 * @throws AppError `not_found`, `invalid_state_transition` (closed), `validation_error`
 */
export async function patchLead(uow: UnitOfWork, leadId: string, body: PatchLead) {
  const lead = await lockLead(uow, leadId)
  if (isFinal(lead.status))
    throw invalidStateTransition(`The lead is ${lead.status}: a closed lead keeps what it was closed with.`)
  const current = {
    clientId: lead.clientId,
    childId: lead.childId,
    contact: { name: lead.contactName, email: lead.contactEmail, phone: lead.contactPhone },
  }
  const next = applyMergePatch(current, body) as {
    clientId?: string | null
    childId?: string | null
    contact?: { name?: string | null; email?: string | null; phone?: string | null } | null
  }
  await checkLeadReferences(uow, { clientId: body.clientId, childId: body.childId })
  const contact = next.contact ?? {}
  if (!next.clientId && !contact.email && !contact.phone) {
    throw validationError([
      { path: 'contact', code: 'required', message: 'A lead keeps a clientId or a contact email or phone.' },
    ])
  }
  const updated = await uow.tx.lead.update({
    where: { id: lead.id },
    data: {
      clientId: next.clientId ?? null,
      childId: next.childId ?? null,
      contactName: contact.name ?? null,
      contactEmail: contact.email ?? null,
      contactPhone: contact.phone ?? null,
    },
  })
  return updated
}
