/**
 * @module Rescheduling an appointment: a new time, duration and/or provider (and with the provider, its location). The
 * same availability rules and overlap constraints as a booking decide the new slot; the old one is kept in the
 * reschedule history; `appointment.rescheduled` is recorded. A request that changes nothing writes nothing.
 */
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import { conflict, validationError } from '../errors.ts'
import { recordEvent } from '../events/record-event.ts'
import { newId } from '../ids.ts'
import { formatInTimeZone } from '../time.ts'
import { APPOINTMENT_INCLUDE, durationMinutesOf, lockAppointment, type AppointmentRow } from './appointment-row.ts'
import { resolveInterval } from './appointment-rules.ts'
import { assertTransition } from './appointment-state.ts'
import { askWorkflowThenRelock, type TransitionDeps, type TransitionedAppointment } from './appointment-transitions.ts'
import { lockAppointmentParties, slotProblem } from './book-appointment.ts'
import { overlapError, overlapViolation } from './overlap-violation.ts'

/** A new time and/or provider; what is left out stays as it is (the duration included). */
export interface RescheduleInput {
  startsAt?: Date
  durationMinutes?: number
  providerId?: string
}

/** Whether two reads of an appointment have it at the same time with the same provider. */
const sameSlot = (a: AppointmentRow, b: AppointmentRow) =>
  a.startsAt.getTime() === b.startsAt.getTime() &&
  a.endsAt.getTime() === b.endsAt.getTime() &&
  a.providerId === b.providerId

/**
 * Moves a locked appointment to a new time, duration and/or provider. A request that changes nothing is a no-op
 * (no history row, no event). The old time is kept in the reschedule history; `appointment.rescheduled` recorded.
 * @param deps - the clock, the notifier and (optionally) the appointment workflow's updates
 * @param appointment - locked in this unit (`lockAppointment`)
 * @param explicit - an explicit reschedule operation checks the state even when nothing changes
 * @returns the appointment as it is afterwards, with the workflow's answer when it was asked
 * @throws AppError `invalid_state_transition`, `validation_error`, `slot_unavailable`
 */
export async function rescheduleLockedAppointment(
  { clock, notifier, workflow }: TransitionDeps,
  uow: UnitOfWork,
  appointment: AppointmentRow,
  input: RescheduleInput,
  explicit: boolean
): Promise<TransitionedAppointment> {
  const now = clock()
  const startsAt = input.startsAt ?? appointment.startsAt
  const duration = input.durationMinutes ?? durationMinutesOf(appointment)
  const providerId = input.providerId ?? appointment.providerId
  const unchanged =
    startsAt.getTime() === appointment.startsAt.getTime() &&
    duration === durationMinutesOf(appointment) &&
    providerId === appointment.providerId
  if (explicit || !unchanged) {
    assertTransition({ status: appointment.status, action: 'reschedule', startsAt: appointment.startsAt, now })
  }
  if (unchanged) return appointment

  const resolved = resolveInterval(startsAt, duration, now)
  if ('errors' in resolved) throw validationError(resolved.errors)
  const { interval } = resolved
  const lockParties = async () => {
    const locked = await lockAppointmentParties(uow, { childId: appointment.childId, providerId })
    const problem = await slotProblem(uow, { providerId, interval, excludeAppointmentId: appointment.id, now })
    if (problem) throw problem
    return locked
  }
  let parties = await lockParties()
  let accepted = {}
  if (workflow) {
    const { reminderOffsetsMinutes } = await uow.tx.location.findFirstOrThrow({
      where: { id: parties.location.id, tenantId: uow.tenantId },
      select: { reminderOffsetsMinutes: true },
    })
    const request = {
      startsAt: interval.startsAt.toISOString(),
      endsAt: interval.endsAt.toISOString(),
      providerId,
      locationId: parties.location.id,
      reminderOffsetsMinutes,
    }
    const asked = await askWorkflowThenRelock({ clock, notifier }, uow, appointment.id, 'reschedule', () =>
      workflow.reschedule(uow, appointment.id, request)
    )
    accepted = { workflow: asked.answer }
    // As they are now: the slot may have been taken, or the appointment moved, during the call.
    if (!sameSlot(asked.appointment, appointment)) {
      notifier.changed(uow, [appointment.id])
      throw conflict('The appointment changed while its workflow was asked; read it again and retry.')
    }
    try {
      parties = await lockParties()
    } catch (error) {
      notifier.changed(uow, [appointment.id])
      throw error
    }
  }

  let moved: AppointmentRow
  try {
    moved = await uow.tx.appointment.update({
      where: { id: appointment.id },
      data: {
        startsAt: interval.startsAt,
        endsAt: interval.endsAt,
        providerId,
        // An appointment takes place at its provider's location, whose zone and policies then apply.
        locationId: parties.location.id,
        timeZone: parties.location.timeZone,
        reschedules: {
          create: {
            id: newId('appointmentReschedule'),
            tenantId: uow.tenantId,
            previousStartsAt: appointment.startsAt,
            previousEndsAt: appointment.endsAt,
            previousProviderId: appointment.providerId,
            startsAt: interval.startsAt,
            endsAt: interval.endsAt,
            providerId,
            createdAt: now,
          },
        },
      },
      include: APPOINTMENT_INCLUDE,
    })
  } catch (error) {
    const party = overlapViolation(error)
    if (party) throw overlapError(party)
    throw error
  }
  await recordEvent(uow, 'appointment.rescheduled', {
    appointmentId: appointment.id,
    childId: appointment.childId,
    providerId,
    previousStartsAt: formatInTimeZone(appointment.startsAt, appointment.timeZone),
    startsAt: formatInTimeZone(moved.startsAt, moved.timeZone),
  })
  notifier.changed(uow, [appointment.id])
  return { ...moved, ...accepted }
}

/**
 * Reschedules an appointment by id, as an explicit operation: {@link rescheduleLockedAppointment}.
 * @throws AppError `not_found`, `invalid_state_transition`, `validation_error`, `slot_unavailable`
 */
export async function rescheduleAppointment(deps: TransitionDeps, uow: UnitOfWork, id: string, input: RescheduleInput) {
  return rescheduleLockedAppointment(deps, uow, await lockAppointment(uow, id), input, true)
}
