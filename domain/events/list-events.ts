/**
 * @module Reading a tenant's events (`GET /v1/events`): filter by type and creation time, keyset pages sorted by
 * creation time (newest first by default). Every event is listed, delivered or not, so a receiver that missed
 * deliveries can catch up by polling. A caller without `webhooks.read` sees the events of the resources it may read
 * (event-scopes.ts).
 */
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import type { Principal } from '../auth/principal.ts'
import { insufficientScope, notFound, validationError } from '../errors.ts'
import { keysetOrderBy, keysetWhere, parseList, toSortedPage, type Page, type SortParam } from '../listing.ts'
import { toEnvelope, type EventEnvelope } from './event-envelope.ts'
import { ALL_EVENTS_SCOPE, eventReadScope, readableEventTypes } from './event-scopes.ts'

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

/**
 * The `type` condition for a caller: none with `webhooks.read`, else the types it may read.
 * @throws AppError `insufficient_scope` when it asks for a type it may not read, or may read none
 */
function typesFor(principal: Principal, asked: string | undefined) {
  const readable = readableEventTypes(principal)
  if (readable === 'all') return asked
  if (asked !== undefined) {
    if (!(readable as string[]).includes(asked)) throw insufficientScope(eventReadScope(asked) ?? ALL_EVENTS_SCOPE)
    return asked
  }
  // The route lets in any scope that reads some events; an API key's permissions may still cover none.
  if (readable.length === 0) throw insufficientScope(ALL_EVENTS_SCOPE)
  return { in: readable }
}

/**
 * A page of the unit's tenant's events that the caller may read.
 * @throws AppError `validation_error` for a foreign cursor or an empty range, `insufficient_scope` (see typesFor)
 */
export async function listEvents(
  { tx, tenantId }: UnitOfWork,
  principal: Principal,
  query: ListEventsQuery
): Promise<Page<EventEnvelope>> {
  if (query.from && query.to && query.from.getTime() >= query.to.getTime()) {
    throw validationError([{ path: 'to', code: 'invalid_range', message: '`to` must be later than `from`.' }])
  }
  const type = typesFor(principal, query.type)
  const list = parseList(query)
  const created = query.from || query.to ? { createdAt: { gte: query.from, lt: query.to } } : {}
  const rows = await tx.event.findMany({
    where: { AND: [{ tenantId, type }, created, keysetWhere(list)] },
    orderBy: keysetOrderBy(list),
    take: list.limit + 1,
    select: { id: true, type: true, createdAt: true, data: true },
  })
  const page = toSortedPage(rows, list)
  return { data: page.data.map(toEnvelope), nextCursor: page.nextCursor }
}

/**
 * One event of the unit's tenant, if the caller may read its type.
 * @throws AppError `not_found` (also for a type the caller may not read: not disclosed, as for another tenant's)
 */
export async function getEvent({ tx, tenantId }: UnitOfWork, principal: Principal, id: string): Promise<EventEnvelope> {
  const readable = readableEventTypes(principal)
  const event = await tx.event.findFirst({
    where: { id, tenantId, ...(readable === 'all' ? {} : { type: { in: readable } }) },
    select: { id: true, type: true, createdAt: true, data: true },
  })
  if (!event) throw notFound('event', id)
  return toEnvelope(event)
}
