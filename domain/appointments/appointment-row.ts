/**
 * @module Reading appointments: the shape every operation returns (the row with its provider's id and name and its
 * reschedule history) and the row lock that serialises changes to one appointment.
 */
import type { Prisma } from '../../generated/prisma/client.ts'
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import { notFound } from '../errors.ts'

/** What every appointment read includes: enough for the API's response without a second round trip. */
export const APPOINTMENT_INCLUDE = {
  provider: { select: { id: true, name: true } },
  reschedules: { orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] },
} satisfies Prisma.AppointmentInclude

/** An appointment as the service returns it. */
export type AppointmentRow = NonNullable<Awaited<ReturnType<typeof findAppointment>>>

function findAppointment({ tx, tenantId }: UnitOfWork, id: string) {
  return tx.appointment.findFirst({ where: { id, tenantId }, include: APPOINTMENT_INCLUDE })
}

/** One appointment of the unit's tenant. @throws AppError `not_found` */
export async function getAppointment(uow: UnitOfWork, id: string): Promise<AppointmentRow> {
  const appointment = await findAppointment(uow, id)
  if (!appointment) throw notFound('appointment', id)
  return appointment
}

/**
 * Locks one appointment's row for the rest of the transaction and reads it, so two changes to the same appointment
 * (a cancel racing a complete) are decided one after the other on its latest state.
 * @throws AppError `not_found` (also for another tenant's appointment: row-level security hides it)
 */
export async function lockAppointment(uow: UnitOfWork, id: string): Promise<AppointmentRow> {
  const locked = await uow.tx.$queryRaw<Array<{ id: string }>>`
    SELECT id FROM appointments WHERE id = ${id} AND tenant_id = ${uow.tenantId} FOR UPDATE`
  if (!locked.length) throw notFound('appointment', id)
  return getAppointment(uow, id)
}

/** Minutes between start and end. */
export const durationMinutesOf = (a: { startsAt: Date; endsAt: Date }) =>
  Math.round((a.endsAt.getTime() - a.startsAt.getTime()) / 60_000)
