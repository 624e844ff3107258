/**
 * @module Activities of the booking workflow. Built by a factory that receives its dependencies, so the worker wires
 * real ones and tests can wire their own. Every query runs in a unit of work scoped to the workflow's tenant.
 */
import { ApplicationFailure } from '@temporalio/common'
import type { Db } from '../infra/db.ts'
import { runInUnitOfWork } from '../infra/unit-of-work.ts'
import type { BookingState, BookingWorkflowInput } from '../workflows/shared.ts'
import {
  loadBookingPlan,
  markNoShowIfAbsent,
  recordBookingReminder,
  settleBookingReminders,
  type BookingPlan,
  type ReminderRequest,
} from '../domain/appointments/booking-lifecycle-store.ts'
import { minuteMsOf } from '../domain/appointments/reminder-schedule.ts'
import { systemClock, type Clock } from '../infra/clock.ts'

/** The worker's policy clock: how long a policy day lasts (tests shorten it) and the no-show grace (real ms). */
export interface BookingTiming {
  dayMs: number
  noShowGraceMs: number
}

const REAL_TIMING: BookingTiming = { dayMs: 86_400_000, noShowGraceMs: 30 * 60_000 }

export interface BookingActivityDeps {
  db: Db
  bookingTiming?: Partial<BookingTiming>
  /** What "now" is when a no-show or the reminders' settling is decided. */
  now?: Clock
}

/** The plan the lifecycle works from, with the worker's timing (recorded in history, so replays see the same). */
export interface BookingPlanWithTiming extends BookingPlan {
  minuteMs: number
  noShowGraceMs: number
}

const notFound = (appointmentId: string) =>
  ApplicationFailure.create({
    type: 'AppointmentNotFound',
    message: `Appointment ${appointmentId} not found`,
    nonRetryable: true,
  })

export interface RecordStatusInput extends BookingWorkflowInput {
  status: Exclude<BookingState, 'CONFIRMED'>
}

/** Creates the booking activities. */
export function createBookingActivities({ db, bookingTiming, now = systemClock }: BookingActivityDeps) {
  const timing = { ...REAL_TIMING, ...bookingTiming }
  return {
    /** The lifecycle's view of the appointment (status, times, location policy, check-in) and the timing. */
    async loadBookingPlan({ tenantId, appointmentId }: BookingWorkflowInput): Promise<BookingPlanWithTiming> {
      const plan = await runInUnitOfWork(db, tenantId, (uow) => loadBookingPlan(uow, appointmentId))
      if (!plan) throw notFound(appointmentId)
      return { ...plan, minuteMs: minuteMsOf(timing.dayMs), noShowGraceMs: timing.noShowGraceMs }
    },

    /** Records one reminder to the family, once per key; STALE when the appointment changed meanwhile. */
    async recordBookingReminder(input: BookingWorkflowInput & ReminderRequest) {
      return runInUnitOfWork(db, input.tenantId, (uow) => recordBookingReminder(uow, input))
    },

    /** Marks the appointment NO_SHOW unless someone checked in or it is already final; answers what it found. */
    async markNoShow({ tenantId, appointmentId }: BookingWorkflowInput) {
      return runInUnitOfWork(db, tenantId, (uow) => markNoShowIfAbsent(uow, appointmentId, now()))
    },

    /** Resolves a closed appointment's open reminders. */
    async settleBookingReminders({ tenantId, appointmentId }: BookingWorkflowInput) {
      return runInUnitOfWork(db, tenantId, (uow) => settleBookingReminders(uow, appointmentId, now()))
    },

    /** Loads the appointment's status, schedule and parties (ids only); a missing appointment is a permanent failure. */
    async loadBooking({ tenantId, appointmentId }: BookingWorkflowInput) {
      const appointment = await runInUnitOfWork(db, tenantId, ({ tx }) =>
        tx.appointment.findFirst({
          where: { id: appointmentId, tenantId },
          select: { status: true, startsAt: true, endsAt: true, providerId: true, locationId: true },
        })
      )
      if (!appointment) {
        throw ApplicationFailure.create({
          type: 'AppointmentNotFound',
          message: `Appointment ${appointmentId} not found`,
          nonRetryable: true,
        })
      }
      return {
        status: appointment.status,
        startsAt: appointment.startsAt.toISOString(),
        endsAt: appointment.endsAt.toISOString(),
        providerId: appointment.providerId,
        locationId: appointment.locationId,
      }
    },

    /**
     * Persists a final status asked for by an operator's signal, only over CONFIRMED (the state machine's rule: a
     * final state is never left), and answers the status the appointment has afterwards. Idempotent: re-running it
     * after a crash finds the status already written.
     */
    async recordAppointmentStatus({ tenantId, appointmentId, status }: RecordStatusInput): Promise<BookingState> {
      return runInUnitOfWork(db, tenantId, async ({ tx }) => {
        await tx.appointment.updateMany({
          where: { id: appointmentId, tenantId, status: 'CONFIRMED' },
          data: { status },
        })
        const row = await tx.appointment.findFirst({ where: { id: appointmentId, tenantId }, select: { status: true } })
        return row?.status ?? status
      })
    },
  }
}

export type BookingActivities = ReturnType<typeof createBookingActivities>
