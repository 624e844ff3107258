/**
 * @module Offering the family slots chosen from the lead's matches: the workflow accepts the offer (and restarts its
 * follow-ups), then the lead records it OFFERED (lead-moves.ts says what the changes of a lead share).
 */
import type { Prisma } from '../../generated/prisma/client.ts'
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import { validationError, type FieldError } from '../errors.ts'
import { askLeadWorkflowThenRelock, assertMove, type LeadChangeDeps } from './lead-moves.ts'
import { lockLead, settleLeadNotifications } from './lead-store.ts'
import type { LeadMatch } from './lead-workflow-steps.ts'

export interface SlotChoice {
  providerId: string
  startsAt: string
}

/** A slot as a lead offers it: one of its matches' next slots. */
export interface OfferedSlot {
  providerId: string
  discipline: string
  startsAt: string
  endsAt: string
  timeZone: string
}

export const sameInstant = (a: string, b: string) => Date.parse(a) === Date.parse(b)

/**
 * Offers the family slots chosen from the lead's matches; a new offer replaces the last and restarts follow-ups.
 * @throws AppError `not_found`, `invalid_state_transition`, `validation_error` (`not_matched`: a slot not among
 *   the matches), `dependency_unavailable`
 */
export async function offerLead(
  deps: Pick<LeadChangeDeps, 'workflow'>,
  uow: UnitOfWork,
  leadId: string,
  slots: SlotChoice[]
) {
  const lead = await lockLead(uow, leadId)
  assertMove(lead.status, 'OFFERED')
  const matches = lead.matches as unknown as LeadMatch[]
  const errors: FieldError[] = []
  const offered: OfferedSlot[] = []
  slots.forEach((choice, index) => {
    const found = matches
      .filter((m) => m.providerId === choice.providerId)
      .flatMap((m) => m.nextSlots.map((s) => ({ ...s, discipline: m.discipline })))
      .find((s) => sameInstant(s.startsAt, choice.startsAt))
    if (!found)
      errors.push({ path: `slots.${index}`, code: 'not_matched', message: "Not one of the lead's matched slots." })
    else if (!offered.some((o) => o.providerId === choice.providerId && sameInstant(o.startsAt, found.startsAt))) {
      offered.push({
        providerId: choice.providerId,
        discipline: found.discipline,
        startsAt: found.startsAt,
        endsAt: found.endsAt,
        timeZone: found.timeZone,
      })
    }
  })
  if (errors.length) throw validationError(errors)
  const { answer: accepted } = await askLeadWorkflowThenRelock(deps, uow, leadId, 'OFFERED', () =>
    deps.workflow.offer(uow, leadId)
  )
  const updated = await uow.tx.lead.update({
    where: { id: lead.id },
    data: {
      status: 'OFFERED',
      offeredSlots: offered as unknown as Prisma.InputJsonArray,
      offeredAt: new Date(accepted.offeredAt),
      followUpsSent: 0,
      nextFollowUpAt: accepted.nextFollowUpAt === null ? null : new Date(accepted.nextFollowUpAt),
      respondBy: new Date(accepted.respondBy),
    },
  })
  // The follow-ups of the offer this one replaces are moot.
  await settleLeadNotifications(uow, lead.id, 'LOST', new Date(accepted.offeredAt))
  return updated
}
