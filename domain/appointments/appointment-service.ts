/**
 * @module Booking an appointment. The provider's row is locked for the transaction, so two bookings for the same
 * provider are serialised and the overlap check cannot race; the booking workflow's start is recorded in the same
 * transaction (outbox), so the row and the workflow cannot diverge.
 */
import type { Clock } from '../../infra/clock.ts'
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import { bookingWorkflowId, type BookingWorkflowInput } from '../../workflows/shared.ts'
import { notFound, slotUnavailable, validationError, type FieldError } from '../errors.ts'
import { newId } from '../ids.ts'
import type { WorkflowOutbox } from '../workflows/workflow-outbox.ts'
import { resolveInterval } from './appointment-rules.ts'
import type { AppointmentType } from '../../generated/prisma/enums.ts'

export interface CreateAppointmentInput {
  childId: string
  providerId: string
  type: AppointmentType
  startsAt: Date
  endsAt?: Date
  notes?: string
}

export interface AppointmentServiceDeps {
  outbox: WorkflowOutbox
  clock: Clock
}

const withProvider = { provider: { select: { id: true, name: true } } } as const

/** Creates the appointment service. */
export function createAppointmentService({ outbox, clock }: AppointmentServiceDeps) {
  /**
   * Books an appointment: `CONFIRMED` at once when the provider is free, and its booking workflow queued.
   * @throws AppError `validation_error` (bad interval, unknown child or provider), `slot_unavailable`
   */
  async function create(uow: UnitOfWork, input: CreateAppointmentInput) {
    const { tx, tenantId } = uow
    const resolved = resolveInterval(input.startsAt, input.endsAt, clock())
    if ('errors' in resolved) throw validationError(resolved.errors)
    const { interval } = resolved

    const [provider] = await tx.$queryRaw<Array<{ id: string; location_id: string }>>`
      SELECT id, location_id FROM providers WHERE id = ${input.providerId} AND tenant_id = ${tenantId} FOR UPDATE`
    const child = await tx.child.findFirst({ where: { id: input.childId, tenantId }, select: { id: true } })
    const missing: FieldError[] = []
    if (!child) missing.push({ path: 'childId', code: 'not_found', message: 'No child with this id.' })
    if (!provider) missing.push({ path: 'providerId', code: 'not_found', message: 'No provider with this id.' })
    if (missing.length || !provider) throw validationError(missing)

    const clash = await tx.appointment.findFirst({
      where: {
        tenantId,
        providerId: provider.id,
        status: 'CONFIRMED',
        startsAt: { lt: interval.endsAt },
        endsAt: { gt: interval.startsAt },
      },
      select: { id: true },
    })
    if (clash) throw slotUnavailable('The provider already has an appointment that overlaps this time.')

    const location = await tx.location.findFirstOrThrow({ where: { id: provider.location_id, tenantId } })
    const appointment = await tx.appointment.create({
      data: {
        id: newId('appointment'),
        tenantId,
        locationId: location.id,
        childId: input.childId,
        providerId: provider.id,
        type: input.type,
        status: 'CONFIRMED',
        startsAt: interval.startsAt,
        endsAt: interval.endsAt,
        timeZone: location.timeZone,
        notes: input.notes,
      },
      include: withProvider,
    })
    const workflowInput: BookingWorkflowInput = { tenantId, appointmentId: appointment.id }
    await outbox.enqueue(uow, {
      workflowType: 'bookingWorkflow',
      workflowId: bookingWorkflowId(appointment.id),
      args: [workflowInput],
      searchAttributes: {
        TenantId: tenantId,
        WorkflowKind: 'booking',
        AppointmentId: appointment.id,
        ChildId: appointment.childId,
        ProviderId: appointment.providerId,
        LocationId: appointment.locationId,
      },
    })
    return appointment
  }

  /** One appointment of the unit's tenant. @throws AppError `not_found` */
  async function get({ tx, tenantId }: UnitOfWork, id: string) {
    const appointment = await tx.appointment.findFirst({ where: { id, tenantId }, include: withProvider })
    if (!appointment) throw notFound('appointment', id)
    return appointment
  }

  return { create, get }
}

export type AppointmentService = ReturnType<typeof createAppointmentService>
