/**
 * @module Cancelling an appointment: `CANCELLED` with a reason code, a note and whether it is late by its location's
 * policy, and `booking.cancelled`. The API cancels one appointment by id (asking its appointment workflow first); a
 * series cancels its occurrences already locked, without asking (domain/appointment-series/series-store.ts `cancelOccurrence`).
 */
import type { CancellationReason } from '../../generated/prisma/enums.ts'
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import { recordEvent } from '../events/record-event.ts'
import { APPOINTMENT_INCLUDE, lockAppointment, type AppointmentRow } from './appointment-row.ts'
import { assertTransition, isLateCancellation } from './appointment-state.ts'
import { askWorkflowThenRelock, type TransitionDeps, type TransitionedAppointment } from './appointment-transitions.ts'

export interface CancelInput {
  reason: CancellationReason
  note?: string
}

/**
 * Cancels a locked appointment: `CANCELLED` with the reason, the note and whether it is late by its location's
 * policy; records `booking.cancelled`; tells the appointment workflow after commit.
 * @param deps - with `workflow`, the appointment workflow accepts the step first; without (a series' cancellations), the
 *   change is only signalled, so cancelling a long series is not one round trip per occurrence
 * @param appointment - locked in this unit (`lockAppointment`)
 * @returns the cancelled appointment, with the workflow's answer when it was asked
 * @throws AppError `invalid_state_transition` unless CONFIRMED
 */
export async function cancelLockedAppointment(
  { clock, notifier, workflow }: TransitionDeps,
  uow: UnitOfWork,
  appointment: AppointmentRow,
  input: CancelInput
): Promise<TransitionedAppointment> {
  const now = clock()
  assertTransition({ status: appointment.status, action: 'cancel', startsAt: appointment.startsAt, now })
  let accepted = {}
  if (workflow) {
    const { id } = appointment
    const asked = await askWorkflowThenRelock({ clock, notifier }, uow, id, 'cancel', () => workflow.cancel(uow, id))
    // As it is now: late or not by its current time and location.
    ;({ appointment } = asked)
    accepted = { workflow: asked.answer }
  }
  const location = await uow.tx.location.findFirstOrThrow({
    where: { id: appointment.locationId, tenantId: uow.tenantId },
    select: { lateCancellationHours: true },
  })
  const lateCancellation = isLateCancellation(appointment.startsAt, now, location.lateCancellationHours)
  const cancelled = await uow.tx.appointment.update({
    where: { id: appointment.id },
    data: {
      status: 'CANCELLED',
      cancelledAt: now,
      cancellationReason: input.reason,
      cancellationNote: input.note ?? null,
      lateCancellation,
    },
    include: APPOINTMENT_INCLUDE,
  })
  await recordEvent(uow, 'booking.cancelled', {
    bookingId: appointment.id,
    childId: appointment.childId,
    cancelledAt: now.toISOString(),
    reason: input.reason,
    lateCancellation,
  })
  notifier.changed(uow, [appointment.id])
  return { ...cancelled, ...accepted }
}

/**
 * Cancels an appointment by id: locks it, then {@link cancelLockedAppointment}.
 * @throws AppError `not_found`, `invalid_state_transition` unless CONFIRMED
 */
export async function cancelAppointment(deps: TransitionDeps, uow: UnitOfWork, id: string, input: CancelInput) {
  return cancelLockedAppointment(deps, uow, await lockAppointment(uow, id), input)
}
