/**
 * @module The lifecycle operations on an existing appointment: reschedule, cancel, complete, no-show and edits of
 * its descriptive fields. Each locks the appointment's row, asks the state machine (appointment-state.ts) whether
 * the action is legal, asks the booking workflow to accept the step (a Temporal update whose answer — the next
 * reminder, the no-show deadline — the response carries as `workflow`) holding no transaction (`UnitOfWork.release`:
 * the read commits first), then locks the row again in the unit's next transaction, checks the step against the row
 * as it is now (another request may have changed it during the call), writes the change with its event, and tells
 * the booking workflow after commit (`bookingChanged`: it re-reads and confirms, which also undoes an accepted step
 * that was then refused here). Temporal unreachable: 503, nothing written (booking-workflow-calls.ts). Series
 * cancellations go without the update (the signal only), so cancelling a long series is not one round trip per
 * occurrence.
 */
import type { CancellationReason } from '../../generated/prisma/enums.ts'
import type { AppointmentType } from '../../generated/prisma/enums.ts'
import type { Clock } from '../../infra/clock.ts'
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import { conflict, validationError } from '../errors.ts'
import { recordEvent } from '../events/record-event.ts'
import { newId } from '../ids.ts'
import { ensureSessionForAppointment } from '../sessions/ensure-session.ts'
import { formatInTimeZone } from '../time.ts'
import { APPOINTMENT_INCLUDE, durationMinutesOf, lockAppointment, type AppointmentRow } from './appointment-row.ts'
import { resolveInterval } from './appointment-rules.ts'
import { assertTransition, isLateCancellation } from './appointment-state.ts'
import { lockBookingParties, slotProblem } from './book-appointment.ts'
import type { BookingNotifier } from './booking-workflow-notifier.ts'
import type { BookingWorkflowCalls } from './booking-workflow-calls.ts'
import type { WorkflowOutbox } from '../workflow-runs/workflow-outbox.ts'
import type { BookingWorkflowView } from '../../workflows/booking-contract.ts'
import {
  APPOINTMENT_FOLLOW_UP_KIND,
  APPOINTMENT_FOLLOW_UP_WORKFLOW_TYPE,
  appointmentFollowUpWorkflowId,
  type AppointmentFollowUpInput,
} from '../../workflows/appointment-follow-up-contract.ts'
import { overlapError, overlapViolation } from './overlap-violation.ts'

/** Whether two reads of an appointment have it at the same time with the same provider. */
const sameSlot = (a: AppointmentRow, b: AppointmentRow) =>
  a.startsAt.getTime() === b.startsAt.getTime() &&
  a.endsAt.getTime() === b.endsAt.getTime() &&
  a.providerId === b.providerId

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
  /** The booking lifecycle's updates; absent: changes are only signalled (as before the lifecycle). */
  workflow?: BookingWorkflowCalls
  /** Starts the appointment follow-up at completion; absent: no follow-up. */
  outbox?: WorkflowOutbox
}

/**
 * An appointment after a lifecycle operation, with the booking workflow's accepted result: null when the workflow
 * does not exist (yet), absent when it was not asked (edits of descriptive fields, series cancellations).
 */
export type TransitionedAppointment = AppointmentRow & { workflow?: BookingWorkflowView | null }

/** Creates the lifecycle operations. */
export function createAppointmentTransitions({ clock, notifier, workflow, outbox }: TransitionDeps) {
  /**
   * Asks the booking workflow to accept a step, holding no transaction, then locks the appointment again in the unit's
   * next transaction and checks the step against it as it is now. A step the workflow accepted that is refused here
   * is not written; the workflow is told to re-read after commit, and follows the row.
   * @param ask - the workflow call; the query it needs must be made before (a released unit refuses queries)
   * @returns the workflow's answer and the appointment as locked now
   */
  async function askWorkflowThenRelock<A>(
    uow: UnitOfWork,
    id: string,
    action: Parameters<typeof assertTransition>[0]['action'],
    ask: () => Promise<A>
  ): Promise<{ answer: A; appointment: AppointmentRow }> {
    const answer = await uow.release(ask)
    try {
      const appointment = await lockAppointment(uow, id)
      assertTransition({ status: appointment.status, action, startsAt: appointment.startsAt, now: clock() })
      return { answer, appointment }
    } catch (error) {
      notifier.changed(uow, [id])
      throw error
    }
  }

  /**
   * Cancels a locked appointment: `CANCELLED` with the reason, the note and whether it is late by its location's
   * policy; records `booking.cancelled`.
   * @throws AppError `invalid_state_transition` unless CONFIRMED
   */
  async function cancelLocked(
    uow: UnitOfWork,
    appointment: AppointmentRow,
    input: CancelInput,
    askWorkflow = false
  ): Promise<TransitionedAppointment> {
    const now = clock()
    assertTransition({ status: appointment.status, action: 'cancel', startsAt: appointment.startsAt, now })
    let accepted = {}
    if (askWorkflow && workflow) {
      const asked = await askWorkflowThenRelock(uow, appointment.id, 'cancel', () => workflow.cancel(appointment.id))
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
   * Records that the appointment took place: `COMPLETED`, its session ensured, `appointment.completed` recorded.
   * @throws AppError `invalid_state_transition` unless CONFIRMED and started
   */
  async function complete(uow: UnitOfWork, id: string): Promise<TransitionedAppointment> {
    let appointment = await lockAppointment(uow, id)
    const now = clock()
    assertTransition({ status: appointment.status, action: 'complete', startsAt: appointment.startsAt, now })
    let accepted = {}
    if (workflow) {
      const asked = await askWorkflowThenRelock(uow, id, 'complete', () => workflow.complete(id))
      ;({ appointment } = asked)
      accepted = { workflow: asked.answer }
    }
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
    if (outbox) await enqueueFollowUp(uow, appointment, sessionId)
    notifier.changed(uow, [id])
    return { ...completed, ...accepted }
  }

  /** Queues the appointment's follow-up workflow (note deadline, provider nudges, the family's follow-up). */
  async function enqueueFollowUp(uow: UnitOfWork, appointment: AppointmentRow, sessionId: string) {
    const input: AppointmentFollowUpInput = { tenantId: uow.tenantId, appointmentId: appointment.id }
    await outbox!.enqueue(uow, {
      workflowType: APPOINTMENT_FOLLOW_UP_WORKFLOW_TYPE,
      workflowId: appointmentFollowUpWorkflowId(appointment.id),
      args: [input],
      searchAttributes: {
        TenantId: uow.tenantId,
        WorkflowKind: APPOINTMENT_FOLLOW_UP_KIND,
        AppointmentId: appointment.id,
        ProviderId: appointment.providerId,
        ChildId: appointment.childId,
      },
      summary: `Appointment follow-up: appointment ${appointment.id}`,
      details: [
        `Follow-up of appointment \`${appointment.id}\` (session \`${sessionId}\`, tenant \`${uow.tenantId}\`): waits until the`,
        "session's note is due (the location's noteDueHours), nudges the provider daily while it is unsigned, and",
        "records the family's follow-up once it is signed.",
        '',
        `State: \`GET /v1/appointments/${appointment.id}/workflow\``,
      ].join('\n'),
    })
  }

  /**
   * Records that the child did not come: `NO_SHOW`, with the platform event `appointment.no_show` (the spec's
   * catalogue has none; docs/webhooks.md).
   * @throws AppError `invalid_state_transition` unless CONFIRMED and started
   */
  async function noShow(uow: UnitOfWork, id: string): Promise<TransitionedAppointment> {
    let appointment = await lockAppointment(uow, id)
    const now = clock()
    assertTransition({ status: appointment.status, action: 'no_show', startsAt: appointment.startsAt, now })
    let accepted = {}
    if (workflow) {
      const asked = await askWorkflowThenRelock(uow, id, 'no_show', () => workflow.noShow(id))
      ;({ appointment } = asked)
      accepted = { workflow: asked.answer }
    }
    const marked = await uow.tx.appointment.update({
      where: { id },
      data: { status: 'NO_SHOW', noShowAt: now },
      include: APPOINTMENT_INCLUDE,
    })
    await recordEvent(uow, 'appointment.no_show', {
      appointmentId: id,
      childId: appointment.childId,
      providerId: appointment.providerId,
      noShowAt: now.toISOString(),
      markedBy: 'API',
    })
    notifier.changed(uow, [id])
    return { ...marked, ...accepted }
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
      const locked = await lockBookingParties(uow, { childId: appointment.childId, providerId })
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
      const asked = await askWorkflowThenRelock(uow, appointment.id, 'reschedule', () =>
        workflow.reschedule(appointment.id, request)
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

  /** {@link rescheduleLocked} as an explicit operation on an appointment id. */
  async function reschedule(uow: UnitOfWork, id: string, input: RescheduleInput) {
    return rescheduleLocked(uow, await lockAppointment(uow, id), input, true)
  }

  /** Cancels an appointment by id. @see cancelLocked */
  async function cancel(uow: UnitOfWork, id: string, input: CancelInput) {
    return cancelLocked(uow, await lockAppointment(uow, id), input, true)
  }

  /**
   * Applies a merge patch of the writable fields. `startsAt`, `durationMinutes` and `providerId` make it a
   * reschedule; `type` and `service` can change only while CONFIRMED; `notes` in any state (null removes them).
   * Fields set to their current value change nothing.
   * @throws AppError `invalid_state_transition`, `validation_error`, `slot_unavailable`
   */
  async function update(uow: UnitOfWork, id: string, patch: AppointmentPatch): Promise<TransitionedAppointment> {
    const appointment = await lockAppointment(uow, id)
    const edits: { type?: AppointmentType; service?: string; notes?: string | null } = {}
    if (patch.type !== undefined && patch.type !== appointment.type) edits.type = patch.type
    if (patch.service !== undefined && patch.service !== appointment.service) edits.service = patch.service
    if (edits.type !== undefined || edits.service !== undefined) {
      assertTransition({ status: appointment.status, action: 'edit', startsAt: appointment.startsAt, now: clock() })
    }
    if (patch.notes !== undefined && patch.notes !== appointment.notes) edits.notes = patch.notes

    const { startsAt, durationMinutes, providerId } = patch
    const moved = await rescheduleLocked(uow, appointment, { startsAt, durationMinutes, providerId }, false)
    if (!Object.keys(edits).length) return moved
    const edited = await uow.tx.appointment.update({ where: { id }, data: edits, include: APPOINTMENT_INCLUDE })
    return 'workflow' in moved ? { ...edited, workflow: moved.workflow } : edited
  }

  return { cancel, cancelLocked, complete, noShow, reschedule, update }
}

export type AppointmentTransitions = ReturnType<typeof createAppointmentTransitions>
