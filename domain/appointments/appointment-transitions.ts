/**
 * @module The lifecycle operations on an existing appointment: reschedule, cancel, complete, no-show and edits of
 * its descriptive fields. Each locks the appointment's row, asks the state machine (appointment-state.ts) whether
 * the action is legal, writes the change with its event in the same unit of work, and tells the booking workflow
 * after commit.
 */
import type { CancellationReason } from '../../generated/prisma/enums.ts'
import type { AppointmentType } from '../../generated/prisma/enums.ts'
import type { Clock } from '../../infra/clock.ts'
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import { validationError } from '../errors.ts'
import { recordEvent } from '../events/record-event.ts'
import { newId } from '../ids.ts'
import { ensureSessionForAppointment } from '../sessions/ensure-session.ts'
import { formatInTimeZone } from '../time.ts'
import { APPOINTMENT_INCLUDE, durationMinutesOf, lockAppointment, type AppointmentRow } from './appointment-row.ts'
import { resolveInterval } from './appointment-rules.ts'
import { assertTransition, isLateCancellation } from './appointment-state.ts'
import { lockBookingParties, slotProblem } from './book-appointment.ts'
import type { BookingNotifier } from './booking-workflow-notifier.ts'
import { overlapError, overlapViolation } from './overlap-violation.ts'

export interface CancelInput {
  reason: CancellationReason
  note?: string
}

/** A new time and/or provider; what is left out stays as it is (the duration included). */
export interface RescheduleInput {
  startsAt?: Date
  durationMinutes?: number
  providerId?: string
}

/** The writable fields of a PATCH (JSON merge patch): `notes: null` removes the notes. */
export interface AppointmentPatch extends RescheduleInput {
  notes?: string | null
  type?: AppointmentType
  service?: string
}

export interface TransitionDeps {
  clock: Clock
  notifier: BookingNotifier
}

/** Creates the lifecycle operations. */
export function createAppointmentTransitions({ clock, notifier }: TransitionDeps) {
  /**
   * Cancels a locked appointment: `CANCELLED` with the reason, the note and whether it is late by its location's
   * policy; records `booking.cancelled`.
   * @throws AppError `invalid_state_transition` unless CONFIRMED
   */
  async function cancelLocked(uow: UnitOfWork, appointment: AppointmentRow, input: CancelInput) {
    const now = clock()
    assertTransition({ status: appointment.status, action: 'cancel', startsAt: appointment.startsAt, now })
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
    return cancelled
  }

  /**
   * Records that the appointment took place: `COMPLETED`, its session ensured, `appointment.completed` recorded.
   * @throws AppError `invalid_state_transition` unless CONFIRMED and started
   */
  async function complete(uow: UnitOfWork, id: string) {
    const appointment = await lockAppointment(uow, id)
    const now = clock()
    assertTransition({ status: appointment.status, action: 'complete', startsAt: appointment.startsAt, now })
    const completed = await uow.tx.appointment.update({
      where: { id },
      data: { status: 'COMPLETED', completedAt: now },
      include: APPOINTMENT_INCLUDE,
    })
    // The session the appointment became: opened at check-in already, or created now (sessions own that rule).
    const { id: sessionId } = await ensureSessionForAppointment(uow, { appointmentId: id })
    await recordEvent(uow, 'appointment.completed', {
      appointmentId: id,
      childId: appointment.childId,
      providerId: appointment.providerId,
      sessionId,
      completedAt: now.toISOString(),
    })
    notifier.changed(uow, [id])
    return completed
  }

  /**
   * Records that the child did not come: `NO_SHOW`. No event: the catalogue has none for it (spec Part 6).
   * @throws AppError `invalid_state_transition` unless CONFIRMED and started
   */
  async function noShow(uow: UnitOfWork, id: string) {
    const appointment = await lockAppointment(uow, id)
    const now = clock()
    assertTransition({ status: appointment.status, action: 'no_show', startsAt: appointment.startsAt, now })
    const marked = await uow.tx.appointment.update({
      where: { id },
      data: { status: 'NO_SHOW', noShowAt: now },
      include: APPOINTMENT_INCLUDE,
    })
    notifier.changed(uow, [id])
    return marked
  }

  /**
   * Moves a locked appointment to a new time, duration and/or provider. A request that changes nothing is a no-op
   * (no history row, no event). The old time is kept in the reschedule history; `appointment.rescheduled` recorded.
   * @param explicit - an explicit reschedule operation checks the state even when nothing changes
   * @throws AppError `invalid_state_transition`, `validation_error`, `slot_unavailable`
   */
  async function rescheduleLocked(
    uow: UnitOfWork,
    appointment: AppointmentRow,
    input: RescheduleInput,
    explicit: boolean
  ): Promise<AppointmentRow> {
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
    const parties = await lockBookingParties(uow, { childId: appointment.childId, providerId })
    const problem = await slotProblem(uow, { providerId, interval, excludeAppointmentId: appointment.id, now })
    if (problem) throw problem

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
    return moved
  }

  /** {@link rescheduleLocked} as an explicit operation on an appointment id. */
  async function reschedule(uow: UnitOfWork, id: string, input: RescheduleInput) {
    return rescheduleLocked(uow, await lockAppointment(uow, id), input, true)
  }

  /** Cancels an appointment by id. @see cancelLocked */
  async function cancel(uow: UnitOfWork, id: string, input: CancelInput) {
    return cancelLocked(uow, await lockAppointment(uow, id), input)
  }

  /**
   * Applies a merge patch of the writable fields. `startsAt`, `durationMinutes` and `providerId` make it a
   * reschedule; `type` and `service` can change only while CONFIRMED; `notes` in any state (null removes them).
   * Fields set to their current value change nothing.
   * @throws AppError `invalid_state_transition`, `validation_error`, `slot_unavailable`
   */
  async function update(uow: UnitOfWork, id: string, patch: AppointmentPatch) {
    let appointment = await lockAppointment(uow, id)
    const edits: { type?: AppointmentType; service?: string; notes?: string | null } = {}
    if (patch.type !== undefined && patch.type !== appointment.type) edits.type = patch.type
    if (patch.service !== undefined && patch.service !== appointment.service) edits.service = patch.service
    if (edits.type !== undefined || edits.service !== undefined) {
      assertTransition({ status: appointment.status, action: 'edit', startsAt: appointment.startsAt, now: clock() })
    }
    if (patch.notes !== undefined && patch.notes !== appointment.notes) edits.notes = patch.notes

    const { startsAt, durationMinutes, providerId } = patch
    appointment = await rescheduleLocked(uow, appointment, { startsAt, durationMinutes, providerId }, false)
    if (!Object.keys(edits).length) return appointment
    return uow.tx.appointment.update({ where: { id }, data: edits, include: APPOINTMENT_INCLUDE })
  }

  return { cancel, cancelLocked, complete, noShow, reschedule, update }
}

export type AppointmentTransitions = ReturnType<typeof createAppointmentTransitions>
