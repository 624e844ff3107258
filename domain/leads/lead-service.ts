/**
 * @module The API's side of leads: takes a family's enquiry, shows and lists leads, merges a patch of the contact
 * fields, and drives the lead through its workflow (offer, book, close). One function per change, each in its own file
 * (lead-moves.ts says what they share); this service gives them their dependencies and answers every lead as the API
 * shows it (`leadView`, with the policy's follow-up figures).
 */
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import { leadPolicyOf } from '../../common/leads/lead-policy.ts'
import type { LeadCloseReason } from '../../common/leads/lead-state.ts'
import { bookLead } from './book-lead.ts'
import { closeLead } from './close-lead.ts'
import { createLead } from './create-lead.ts'
import type { LeadDeps } from './lead-moves.ts'
import { createLeadWorkflowCalls } from './lead-workflow-calls.ts'
import type { CreateLead, PatchLead } from './lead-request.ts'
import { getLead, leadView, listLeads, type LeadListQuery, type LeadRow } from './lead-store.ts'
import { offerLead, type SlotChoice } from './offer-lead.ts'
import { patchLead } from './patch-lead.ts'

/** Creates the API side of leads. */
export function createLeadService(leadDeps: LeadDeps) {
  const deps = { ...leadDeps, workflow: createLeadWorkflowCalls(leadDeps) }
  const policy = leadPolicyOf(deps.policy)
  const view = (lead: LeadRow) => leadView(lead, policy)
  return {
    /** @see createLead */
    create: async (uow: UnitOfWork, input: CreateLead) => view(await createLead(deps, uow, input)),
    /** One lead. @throws AppError `not_found` */
    get: async (uow: UnitOfWork, leadId: string) => view(await getLead(uow, leadId)),
    /** A page of leads. */
    async list(uow: UnitOfWork, query: LeadListQuery) {
      const page = await listLeads(uow, query)
      return { data: page.data.map(view), nextCursor: page.nextCursor }
    },
    /** @see patchLead */
    patch: async (uow: UnitOfWork, leadId: string, body: PatchLead) => view(await patchLead(uow, leadId, body)),
    /** @see offerLead */
    offer: async (uow: UnitOfWork, leadId: string, slots: SlotChoice[]) =>
      view(await offerLead(deps, uow, leadId, slots)),
    /** @see bookLead */
    book: async (uow: UnitOfWork, leadId: string, choice: Parameters<typeof bookLead>[3], now: Date) =>
      view(await bookLead(deps, uow, leadId, choice, now)),
    /** @see closeLead */
    close: async (uow: UnitOfWork, leadId: string, body: { reason: LeadCloseReason; note?: string }, now: Date) =>
      view(await closeLead(deps, uow, leadId, body, now)),
  }
}

export type LeadService = ReturnType<typeof createLeadService>
