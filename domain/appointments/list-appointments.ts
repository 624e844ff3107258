/**
 * @module Listing appointments: keyset pages (domain/listing.ts) sorted by `startsAt` (the calendar view, default)
 * or `createdAt`, filtered by the parties, status, type, service, series and a window on the start time.
 */
import type { AppointmentType } from '../../generated/prisma/enums.ts'
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import { validationError } from '../errors.ts'
import { keysetOrderBy, keysetWhere, parseList, toSortedPage, type Page, type SortParam } from '../listing.ts'
import { APPOINTMENT_INCLUDE, type AppointmentRow } from './appointment-row.ts'
import type { AppointmentStatus } from '../../common/appointments/appointment-status.ts'

export const APPOINTMENT_SORT_FIELDS = ['startsAt', 'createdAt'] as const
export type AppointmentSortField = (typeof APPOINTMENT_SORT_FIELDS)[number]
export const DEFAULT_APPOINTMENT_SORT: SortParam<AppointmentSortField> = 'startsAt'

export interface AppointmentListQuery {
  limit: number
  cursor?: string
  sort: SortParam<AppointmentSortField>
  childId?: string
  providerId?: string
  locationId?: string
  seriesId?: string
  status?: AppointmentStatus
  type?: AppointmentType
  service?: string
  /** Appointments starting at or after this instant. */
  from?: Date
  /** Appointments starting before this instant. */
  to?: Date
}

/**
 * A page of the unit's tenant's appointments.
 * @throws AppError `validation_error` for a foreign cursor or `from` not before `to`
 */
export async function listAppointments(uow: UnitOfWork, query: AppointmentListQuery): Promise<Page<AppointmentRow>> {
  if (query.from && query.to && query.from.getTime() >= query.to.getTime()) {
    throw validationError([{ path: 'to', code: 'before_from', message: 'to must be after from.' }])
  }
  const list = parseList(query)
  const filters = {
    tenantId: uow.tenantId,
    childId: query.childId,
    providerId: query.providerId,
    locationId: query.locationId,
    seriesId: query.seriesId,
    status: query.status,
    type: query.type,
    service: query.service,
    ...(query.from || query.to ? { startsAt: { gte: query.from, lt: query.to } } : {}),
  }
  const rows = await uow.tx.appointment.findMany({
    where: { AND: [filters, keysetWhere(list)] },
    orderBy: keysetOrderBy(list),
    take: list.limit + 1,
    include: APPOINTMENT_INCLUDE,
  })
  return toSortedPage(rows, list)
}
