/**
 * @module Activities of the appointment workflow. Built by a factory that receives its dependencies, so the worker wires
 * real ones and tests can wire their own. Every query runs in a unit of work scoped to the workflow's tenant, and
 * every change of an appointment's status goes through the appointment's state machine and transitions, as the API's.
 */
import { Context } from '@temporalio/activity'
import { ApplicationFailure } from '@temporalio/common'
import type { Db } from '../infra/db.ts'
import { createLogger, type Logger } from '../infra/logger.ts'
import { runInUnitOfWork } from '../infra/unit-of-work.ts'
import type {
  AppointmentActivities,
  AppointmentPlanWithTiming,
  AppointmentWorkflowState,
  AppointmentWorkflowInput,
  RecordStatusInput,
} from '../common/appointments/appointment-workflow-contract.ts'
import type { TransitionDeps } from '../domain/appointments/appointment-transitions.ts'
import { cancelAppointment } from '../domain/appointments/cancel-appointment.ts'
import { completeAppointment } from '../domain/appointments/complete-appointment.ts'
import {
  loadBookingPlan,
  markNoShowIfAbsent,
  recordBookingReminder,
  recordOperatorStatus,
  settleBookingReminders,
  type OperatorTransitions,
  type ReminderRequest,
} from '../domain/appointments/appointment-lifecycle-store.ts'
import { minuteMsOf } from '../common/appointments/reminder-schedule.ts'
import { AppError } from '../domain/errors.ts'
import { createWorkflowOutbox } from '../domain/workflow-runs/workflow-outbox.ts'
import { systemClock, type Clock } from '../infra/clock.ts'
import { DAY_MS } from '../common/time/calendar.ts'

/** The worker's policy clock: how long a policy day lasts (tests shorten it) and the no-show grace (real ms). */
export interface AppointmentTiming {
  dayMs: number
  noShowGraceMs: number
}

const REAL_TIMING: AppointmentTiming = { dayMs: DAY_MS, noShowGraceMs: 30 * 60_000 }

export interface AppointmentActivityDeps {
  db: Db
  appointmentTiming?: Partial<AppointmentTiming>
  /** What "now" is when a no-show, an operator's step or the reminders' settling is decided. */
  now?: Clock
  /**
   * The transitions an operator's step goes through. Default: the API's, built in the running activity, whose
   * follow-up workflow (at completion) is started through the workflow outbox with the worker's client.
   */
  operatorTransitions?: () => OperatorTransitions
  logger?: Logger
}

const notFound = (appointmentId: string) =>
  ApplicationFailure.create({
    type: 'AppointmentNotFound',
    message: `Appointment ${appointmentId} not found`,
    nonRetryable: true,
  })

/** The API's transitions, as an activity of the appointment workflow runs them. */
function transitionsInActivity(db: Db, now: Clock, logger: Logger): OperatorTransitions {
  const { client, info } = Context.current()
  const deps: TransitionDeps = {
    clock: now,
    // The workflow the notifier would signal is the one waiting for this answer; it follows the answer itself.
    notifier: { changed: () => undefined },
    // No appointment workflow update either, for the same reason: the step is already the workflow's.
    outbox: createWorkflowOutbox({ db, temporal: client, taskQueue: info.taskQueue, logger }),
  }
  return {
    cancel: (uow, appointmentId, input) => cancelAppointment(deps, uow, appointmentId, input),
    complete: (uow, appointmentId) => completeAppointment(deps, uow, appointmentId),
  }
}

/** Creates the appointment activities: the interface the appointment workflow proxies (common/appointments/appointment-workflow-contract.ts). */
export function createAppointmentActivities({
  db,
  appointmentTiming,
  now = systemClock,
  operatorTransitions,
  logger = createLogger('info', 'booking'),
}: AppointmentActivityDeps): AppointmentActivities {
  const timing = { ...REAL_TIMING, ...appointmentTiming }
  const transitionsFor = operatorTransitions ?? (() => transitionsInActivity(db, now, logger))
  return {
    /** The lifecycle's view of the appointment (status, times, location policy, check-in) and the timing. */
    async loadBookingPlan({ tenantId, appointmentId }: AppointmentWorkflowInput): Promise<AppointmentPlanWithTiming> {
      const plan = await runInUnitOfWork(db, tenantId, (uow) => loadBookingPlan(uow, appointmentId))
      if (!plan) throw notFound(appointmentId)
      return { ...plan, minuteMs: minuteMsOf(timing.dayMs), noShowGraceMs: timing.noShowGraceMs }
    },

    /** Records one reminder to the family, once per key; STALE when the appointment changed meanwhile. */
    async recordBookingReminder(input: AppointmentWorkflowInput & ReminderRequest) {
      return runInUnitOfWork(db, input.tenantId, (uow) => recordBookingReminder(uow, input))
    },

    /** Marks the appointment NO_SHOW unless someone checked in or it is already final; answers what it found. */
    async markNoShow({ tenantId, appointmentId }: AppointmentWorkflowInput) {
      return runInUnitOfWork(db, tenantId, (uow) => markNoShowIfAbsent(uow, appointmentId, now()))
    },

    /** Resolves a closed appointment's open reminders. */
    async settleBookingReminders({ tenantId, appointmentId }: AppointmentWorkflowInput) {
      return runInUnitOfWork(db, tenantId, (uow) => settleBookingReminders(uow, appointmentId, now()))
    },

    /** Loads the appointment's status, schedule and parties (ids only); a missing appointment is a permanent failure. */
    async loadBooking({ tenantId, appointmentId }: AppointmentWorkflowInput) {
      const appointment = await runInUnitOfWork(db, tenantId, ({ tx }) =>
        tx.appointment.findFirst({
          where: { id: appointmentId, tenantId },
          select: { status: true, startsAt: true, endsAt: true, providerId: true, locationId: true },
        })
      )
      if (!appointment) throw notFound(appointmentId)
      return {
        status: appointment.status,
        startsAt: appointment.startsAt.toISOString(),
        endsAt: appointment.endsAt.toISOString(),
        providerId: appointment.providerId,
        locationId: appointment.locationId,
      }
    },

    /**
     * Makes the final step an operator's signal asked for, through the appointment's transitions (the state machine,
     * its timestamp and event, and at completion the session and the follow-up workflow), and answers the status the
     * appointment has afterwards: the one asked for; the API's final status when it got there first; CONFIRMED when
     * the state machine refuses (completing before the start). Idempotent: re-run after a crash, it finds the status
     * already final.
     */
    async recordAppointmentStatus({
      tenantId,
      appointmentId,
      status,
    }: RecordStatusInput): Promise<AppointmentWorkflowState> {
      const transitions = transitionsFor()
      try {
        return await runInUnitOfWork(db, tenantId, (uow) =>
          recordOperatorStatus(uow, transitions, appointmentId, status, now())
        )
      } catch (error) {
        if (error instanceof AppError && error.code === 'not_found') throw notFound(appointmentId)
        throw error
      }
    },
  }
}
