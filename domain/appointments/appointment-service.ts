/**
 * @module The appointment service: booking (one appointment), reading and listing, and the lifecycle operations
 * (appointment-transitions.ts). The overlap guarantee is the database's (overlap-violation.ts); the availability
 * rules are the same predicate as the availability endpoint (domain/availability/assert-slot-bookable.ts); the
 * appointment workflow is started through the outbox and told about every later change after commit.
 */
import type { Client } from '@temporalio/client'
import type { AppointmentType } from '../../generated/prisma/enums.ts'
import type { Clock } from '../../infra/clock.ts'
import type { Logger } from '../../infra/logger.ts'
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import { rateLimited, validationError } from '../errors.ts'
import { createPacer, type PacerOptions } from '../../infra/pacer.ts'
import type { WorkflowOutbox } from '../workflow-runs/workflow-outbox.ts'
import { getAppointment, nextReminderOf, type AppointmentRow } from './appointment-row.ts'
import { resolveInterval } from './appointment-rules.ts'
import type { TransitionDeps } from './appointment-transitions.ts'
import { insertAppointment, lockAppointmentParties, slotProblem } from './book-appointment.ts'
import { createAppointmentWorkflowCalls } from './appointment-workflow-calls.ts'
import { cancelAppointment, type CancelInput } from './cancel-appointment.ts'
import { completeAppointment } from './complete-appointment.ts'
import { listAppointments } from './list-appointments.ts'
import { markNoShow } from './mark-no-show.ts'
import { appointmentWorkflowStartAt, minuteMsOf } from '../../common/appointments/reminder-schedule.ts'
import { rescheduleAppointment, type RescheduleInput } from './reschedule-appointment.ts'
import { updateAppointment, type AppointmentPatch } from './update-appointment.ts'
import { DAY_MS } from '../../common/time/calendar.ts'

export interface CreateAppointmentInput {
  childId: string
  providerId: string
  type: AppointmentType
  /** A discipline; defaults to the provider's first discipline (appointment-rules.ts `defaultService`). */
  service?: string
  startsAt: Date
  /** Give at most one of endsAt and durationMinutes; neither means 60 minutes. */
  endsAt?: Date
  durationMinutes?: number
  notes?: string
}

export interface AppointmentServiceDeps {
  outbox: WorkflowOutbox
  clock: Clock
  /** Calls the appointments' workflows (appointment-workflow-calls.ts). */
  temporal: Client
  logger: Logger
  /** Length of a policy day (CARE_WORKFLOW_DAY_MS), as the appointment workflow counts reminder offsets. */
  dayMs?: number
  /**
   * BOOKING_WORKFLOW_START: `deferred` (the default) starts a booking's workflow with a start delay that ends shortly
   * before its first reminder; `immediate` runs its first task at booking.
   */
  workflowStart?: 'deferred' | 'immediate'
  /** How each tenant's workflow views are paced (infra/pacer.ts); none by default. */
  viewPacing?: Pick<PacerOptions, 'perSecond' | 'burst' | 'maxWaitMs' | 'turns'>
}

/** Creates the appointment service. */
export function createAppointmentService({
  outbox,
  clock,
  temporal,
  logger,
  dayMs = DAY_MS,
  workflowStart = 'deferred',
  viewPacing = { perSecond: 0, burst: 1, maxWaitMs: 0 },
}: AppointmentServiceDeps) {
  const viewPacer = createPacer({ ...viewPacing, what: "A tenant's workflow views", refuse: rateLimited })
  const workflow = createAppointmentWorkflowCalls({ temporal, logger, started: outbox.started })
  const deps: TransitionDeps = { clock, notifier: workflow, workflow, outbox }
  const minuteMs = minuteMsOf(dayMs)
  const workflowStartAt = (startsAt: Date, offsetsMinutes: number[], now = clock().getTime()) =>
    workflowStart === 'immediate'
      ? null
      : appointmentWorkflowStartAt({ startsAt: startsAt.toISOString(), offsetsMinutes, minuteMs, now })

  /**
   * Books an appointment: `CONFIRMED` at once when the slot is bookable, its appointment workflow queued and its
   * `booking.created` event recorded.
   * @throws AppError `validation_error` (bad interval, unknown child or provider), `slot_unavailable`
   */
  async function create(uow: UnitOfWork, input: CreateAppointmentInput) {
    if (input.endsAt && input.durationMinutes !== undefined) {
      throw validationError([
        {
          path: 'durationMinutes',
          code: 'conflicts_with_ends_at',
          message: 'Give endsAt or durationMinutes, not both.',
        },
      ])
    }
    const now = clock()
    const resolved = resolveInterval(input.startsAt, input.endsAt ?? input.durationMinutes, now)
    if ('errors' in resolved) throw validationError(resolved.errors)
    const { interval } = resolved
    // Sent together, one round trip: on the unit's one connection the slot check runs after the lock is taken, as it
    // must. The lock's refusal (no such child or provider) is the answer when there is one.
    const locking = lockAppointmentParties(uow, input)
    const checking = slotProblem(uow, { providerId: input.providerId, interval, now })
    checking.catch(() => undefined)
    const parties = await locking
    const problem = await checking
    if (problem) throw problem
    return insertAppointment(uow, { outbox, workflowStartAt }, parties, {
      type: input.type,
      service: input.service,
      interval,
      notes: input.notes,
    })
  }

  /** Every answer carries its next reminder at once, by the workflow's rule, rather than once the workflow has run. */
  const reminded = <T extends AppointmentRow>(a: T) => ({ ...a, nextReminderAt: nextReminderOf(a, clock(), minuteMs) })

  return {
    async create(uow: UnitOfWork, input: CreateAppointmentInput) {
      return reminded(await create(uow, input))
    },
    async get(uow: UnitOfWork, id: string) {
      return reminded(await getAppointment(uow, id))
    },
    async list(...args: Parameters<typeof listAppointments>) {
      const page = await listAppointments(...args)
      return { ...page, data: page.data.map(reminded) }
    },
    /** @see cancelAppointment */
    async cancel(uow: UnitOfWork, id: string, input: CancelInput) {
      return reminded(await cancelAppointment(deps, uow, id, input))
    },
    /** @see completeAppointment */
    async complete(uow: UnitOfWork, id: string) {
      return reminded(await completeAppointment(deps, uow, id))
    },
    /** @see markNoShow */
    async noShow(uow: UnitOfWork, id: string) {
      return reminded(await markNoShow(deps, uow, id))
    },
    /** @see rescheduleAppointment */
    async reschedule(uow: UnitOfWork, id: string, input: RescheduleInput) {
      return reminded(await rescheduleAppointment(deps, uow, id, input))
    },
    /** @see updateAppointment */
    async update(uow: UnitOfWork, id: string, patch: AppointmentPatch) {
      return reminded(await updateAppointment(deps, uow, id, patch))
    },
    /**
     * The appointment's appointment lifecycle and follow-up as their workflows hold them (404 for another tenant's),
     * paced per tenant.
     * @throws AppError `not_found`, `dependency_unavailable`, `rate_limited`
     */
    async workflowView(uow: UnitOfWork, id: string) {
      // Its turn is waited for holding nothing: a queued view must not hold a database connection.
      await uow.release(() => viewPacer.take(uow.tenantId))
      const appointment = await getAppointment(uow, id)
      // Read, commit, then ask Temporal holding no transaction: a slow Temporal must not hold the database.
      const view = await uow.release(() => workflow.view(appointment.id, appointment.status === 'COMPLETED'))
      return { appointmentId: appointment.id, status: appointment.status, ...view }
    },
    /** A note of this session was signed: its appointment's follow-up is told after commit. */
    async noteSigned(uow: UnitOfWork, sessionId: string) {
      const session = await uow.tx.session.findFirst({
        where: { id: sessionId, tenantId: uow.tenantId },
        select: { appointmentId: true },
      })
      if (session) workflow.noteSigned(uow, session.appointmentId)
    },
    /**
     * For the series service: the same booking primitives, the same outbox, clock and notifier (its cancellations
     * take them to `cancelLockedAppointment`, without the workflow's update).
     */
    internals: { outbox, workflowStartAt, clock, notifier: workflow },
  }
}

export type AppointmentService = ReturnType<typeof createAppointmentService>
