/**
 * @module Recurring appointments' rows: reading, locking and listing a series with its occurrences, and what every
 * change of a series is given ({@link SeriesDeps}: the appointment service's booking primitives). A weekly series books
 * one ordinary appointment per occurrence, in local time (recurrence.ts), each with its own appointment workflow and
 * `booking.created` event; the changes are one function per file, as the appointments' are: book-series.ts,
 * cancel-series.ts (from a date), add-series-exception.ts; series-service.ts composes them for the API. Single
 * occurrences are rescheduled or completed through /v1/appointments.
 */
import type { Prisma } from '../../generated/prisma/client.ts'
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import { lockAppointment } from '../appointments/appointment-row.ts'
import type { AppointmentService } from '../appointments/appointment-service.ts'
import { cancelLockedAppointment, type CancelInput } from '../appointments/cancel-appointment.ts'
import { notFound } from '../errors.ts'
import { keysetOrderBy, keysetWhere, parseList, toSortedPage, type SortParam } from '../listing.ts'

/** What every change of a series is given first: the appointment service's booking primitives. */
export type SeriesDeps = AppointmentService['internals']

export interface SeriesListQuery {
  limit: number
  cursor?: string
  sort: SortParam<'createdAt'>
  childId?: string
  providerId?: string
}

export const OCCURRENCES = {
  select: { id: true, occurrenceDate: true, status: true, startsAt: true },
  orderBy: [{ occurrenceDate: 'asc' }, { id: 'asc' }],
} satisfies Prisma.AppointmentSeries$appointmentsArgs

/** An occurrence's cancellation, signalled only: no workflow update per occurrence of a long series. */
export const cancelOccurrence = async (
  { clock, notifier }: Pick<SeriesDeps, 'clock' | 'notifier'>,
  uow: UnitOfWork,
  appointmentId: string,
  input: CancelInput
) => cancelLockedAppointment({ clock, notifier }, uow, await lockAppointment(uow, appointmentId), input)

/** A series with its occurrences. @throws AppError `not_found` */
export async function loadSeries({ tx, tenantId }: UnitOfWork, id: string) {
  const series = await tx.appointmentSeries.findFirst({
    where: { id, tenantId },
    include: { appointments: OCCURRENCES },
  })
  if (!series) throw notFound('appointment series', id)
  return series
}

/** A series, its row locked for this unit. @throws AppError `not_found` */
export async function lockSeries(uow: UnitOfWork, id: string) {
  const locked = await uow.tx.$queryRaw<Array<{ id: string }>>`
    SELECT id FROM appointment_series WHERE id = ${id} AND tenant_id = ${uow.tenantId} FOR UPDATE`
  if (!locked.length) throw notFound('appointment series', id)
  return loadSeries(uow, id)
}

/** A page of the tenant's series, newest first by default. */
export async function listSeries(uow: UnitOfWork, query: SeriesListQuery) {
  const page = parseList(query)
  const where = { tenantId: uow.tenantId, childId: query.childId, providerId: query.providerId }
  const rows = await uow.tx.appointmentSeries.findMany({
    where: { AND: [where, keysetWhere(page)] },
    orderBy: keysetOrderBy(page),
    take: page.limit + 1,
    include: { appointments: OCCURRENCES },
  })
  return toSortedPage(rows, page)
}

export type SeriesRow = Awaited<ReturnType<typeof loadSeries>>
