/**
 * @module Reading appointments: the shape every operation returns (the row with its provider's id and name and its
 * reschedule history) and the row lock that serialises changes to one appointment.
 */
import type { Prisma } from '../../generated/prisma/client.ts'
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import { notFound } from '../errors.ts'
import { nextReminderAt } from '../../common/appointments/reminder-schedule.ts'

/** What every appointment read includes: enough for the API's response without a second round trip. */
export const APPOINTMENT_INCLUDE = {
  provider: { select: { id: true, name: true } },
  // The reminder policy, for `nextReminderOf`.
  location: { select: { reminderOffsetsMinutes: true } },
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

/**
 * When the family's next reminder is due: the appointment workflow's rule (reminder-schedule.ts `nextReminderAt`) applied
 * to the row and its location's `reminderOffsetsMinutes`, so an answer carries it at once rather than after the
 * workflow has read the booking. Reminders already sent are in the past, which the rule skips; only a CONFIRMED
 * appointment is reminded of.
 * @param minuteMs - length of a policy minute (`minuteMsOf(CARE_WORKFLOW_DAY_MS)`), as the workflow uses
 */
export function nextReminderOf(
  a: { status: string; startsAt: Date; location: { reminderOffsetsMinutes: number[] } },
  now: Date,
  minuteMs: number
): Date | null {
  if (a.status !== 'CONFIRMED') return null
  const at = nextReminderAt({
    startsAt: a.startsAt.toISOString(),
    offsetsMinutes: a.location.reminderOffsetsMinutes,
    minuteMs,
    now: now.getTime(),
    sent: [],
  })
  return at === null ? null : new Date(at)
}

/** Minutes between start and end. */
export const durationMinutesOf = (a: { startsAt: Date; endsAt: Date }) =>
  Math.round((a.endsAt.getTime() - a.startsAt.getTime()) / 60_000)
