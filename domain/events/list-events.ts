/**
 * @module Reading a tenant's events (`GET /v1/events`): filter by type and creation time, keyset pages sorted by
 * creation time (newest first by default). Every event is listed, delivered or not, so a receiver that missed
 * deliveries can catch up by polling.
 */
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import { notFound, validationError } from '../errors.ts'
import { keysetOrderBy, keysetWhere, parseList, toSortedPage, type Page, type SortParam } from '../listing.ts'
import { toEnvelope, type EventEnvelope } from './event-envelope.ts'

export const EVENT_SORTS = ['createdAt'] as const

export interface ListEventsQuery {
  limit: number
  cursor?: string
  sort: SortParam<(typeof EVENT_SORTS)[number]>
  type?: string
  /** Inclusive lower bound of `createdAt`. */
  from?: Date
  /** Exclusive upper bound of `createdAt`. */
  to?: Date
}

/** A page of the unit's tenant's events. @throws AppError `validation_error` for a foreign cursor or an empty range */
export async function listEvents({ tx, tenantId }: UnitOfWork, query: ListEventsQuery): Promise<Page<EventEnvelope>> {
  if (query.from && query.to && query.from.getTime() >= query.to.getTime()) {
    throw validationError([{ path: 'to', code: 'invalid_range', message: '`to` must be later than `from`.' }])
  }
  const list = parseList(query)
  const created = query.from || query.to ? { createdAt: { gte: query.from, lt: query.to } } : {}
  const rows = await tx.event.findMany({
    where: { AND: [{ tenantId, type: query.type }, created, keysetWhere(list)] },
    orderBy: keysetOrderBy(list),
    take: list.limit + 1,
    select: { id: true, type: true, createdAt: true, data: true },
  })
  const page = toSortedPage(rows, list)
  return { data: page.data.map(toEnvelope), nextCursor: page.nextCursor }
}

/** One event of the unit's tenant. @throws AppError `not_found` */
export async function getEvent({ tx, tenantId }: UnitOfWork, id: string): Promise<EventEnvelope> {
  const event = await tx.event.findFirst({
    where: { id, tenantId },
    select: { id: true, type: true, createdAt: true, data: true },
  })
  if (!event) throw notFound('event', id)
  return toEnvelope(event)
}
