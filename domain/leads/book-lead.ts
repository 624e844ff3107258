/**
 * @module Booking an offered slot: through the normal booking path, then the lead closes BOOKED with its appointment
 * (lead-moves.ts says what the changes of a lead share).
 */
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import { slotProblem } from '../appointments/book-appointment.ts'
import { validationError, type FieldError } from '../errors.ts'
import { askLeadWorkflowThenRelock, assertMove, type LeadChangeDeps } from './lead-moves.ts'
import { lockLead, settleLeadNotifications } from './lead-store.ts'
import { sameInstant, type OfferedSlot, type SlotChoice } from './offer-lead.ts'

/**
 * Books an offered slot through the normal booking path (availability rules, overlap guarantee, appointment workflow,
 * `booking.created`) and closes the lead BOOKED with the appointment. The appointment is written first: a slot
 * taken meanwhile answers `slot_unavailable` without asking the workflow; a refusal by the workflow (the window
 * closed a moment ago) rolls the appointment back.
 * @throws AppError `not_found`, `invalid_state_transition`, `validation_error` (`not_offered`, child `required`),
 *   `slot_unavailable`, `dependency_unavailable`
 */
export async function bookLead(
  deps: Pick<LeadChangeDeps, 'workflow' | 'appointments'>,
  uow: UnitOfWork,
  leadId: string,
  choice: SlotChoice & { childId?: string; type: 'EVALUATION' | 'THERAPY_SESSION' | 'SCREENING' | 'CONSULTATION' },
  now: Date
) {
  const lead = await lockLead(uow, leadId)
  assertMove(lead.status, 'BOOKED')
  const slot = (lead.offeredSlots as unknown as OfferedSlot[]).find(
    (s) => s.providerId === choice.providerId && sameInstant(s.startsAt, choice.startsAt)
  )
  const childId = choice.childId ?? lead.childId
  const errors: FieldError[] = []
  if (!slot)
    errors.push({ path: 'startsAt', code: 'not_offered', message: 'Not one of the slots offered to the family.' })
  if (!childId)
    errors.push({
      path: 'childId',
      code: 'required',
      message: 'Booking needs the child’s record: give childId, or PATCH it onto the lead.',
    })
  if (errors.length || !slot || !childId) throw validationError(errors)
  // A slot taken meanwhile answers before the workflow is asked; the booking itself checks again after the answer.
  const taken = await slotProblem(uow, {
    providerId: slot.providerId,
    interval: { startsAt: new Date(slot.startsAt), endsAt: new Date(slot.endsAt) },
    now,
  })
  if (taken) throw taken
  await askLeadWorkflowThenRelock(deps, uow, leadId, 'BOOKED', () => deps.workflow.book(uow, leadId))
  const appointment = await deps.appointments.create(uow, {
    childId,
    providerId: slot.providerId,
    type: choice.type,
    service: slot.discipline,
    startsAt: new Date(slot.startsAt),
    endsAt: new Date(slot.endsAt),
  })
  const updated = await uow.tx.lead.update({
    where: { id: lead.id },
    data: { status: 'BOOKED', childId, appointmentId: appointment.id, closedAt: now, nextFollowUpAt: null },
  })
  await settleLeadNotifications(uow, lead.id, 'BOOKED', now)
  return updated
}
