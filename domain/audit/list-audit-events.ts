/**
 * @module Reading a tenant's audit trail: filters and keyset pagination over `seq`, newest first unless asked
 * otherwise. `seq` is the chain's order, the order records committed in; `occurredAt` is when each request arrived,
 * so a long request that arrived first may follow a short one that arrived after it.
 */
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import { validationError } from '../errors.ts'
import type { Page } from '../pagination.ts'
import type { ActorType, AuditEvent } from './audit-event.ts'

export interface AuditEventQuery {
  limit: number
  cursor?: string
  /** `-seq` newest first (the default), `seq` oldest first. */
  sort: 'seq' | '-seq'
  /** Inclusive lower bound of `occurredAt`. */
  from?: Date
  /** Exclusive upper bound of `occurredAt`. */
  to?: Date
  actorId?: string
  resourceType?: string
  resourceId?: string
  status?: number
  method?: string
}

type Direction = 'asc' | 'desc'

/** The cursor names the last seq returned and the direction, so it cannot be replayed against the other order. */
export const encodeAuditCursor = (seq: bigint, direction: Direction) =>
  Buffer.from(JSON.stringify({ seq: seq.toString(), dir: direction })).toString('base64url')

/** The seq to continue after, or undefined for a cursor that is not one of ours or of the other direction. */
export function decodeAuditCursor(cursor: string, direction: Direction): bigint | undefined {
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { seq?: unknown; dir?: unknown }
    if (value.dir !== direction || typeof value.seq !== 'string' || !/^\d{1,19}$/.test(value.seq)) return undefined
    return BigInt(value.seq)
  } catch {
    return undefined
  }
}

/** A page of the unit's tenant's audit trail. @throws AppError `validation_error` for a foreign cursor or range */
export async function listAuditEvents(
  { tx, tenantId }: UnitOfWork,
  query: AuditEventQuery
): Promise<Page<AuditEvent>> {
  const direction: Direction = query.sort === 'seq' ? 'asc' : 'desc'
  const after = query.cursor === undefined ? undefined : decodeAuditCursor(query.cursor, direction)
  if (query.cursor !== undefined && after === undefined) {
    const message = 'Not a cursor of this list and sort.'
    throw validationError([{ path: 'cursor', code: 'invalid_cursor', message }])
  }
  if (query.from && query.to && query.from.getTime() >= query.to.getTime()) {
    throw validationError([{ path: 'to', code: 'invalid_range', message: '`to` must be later than `from`.' }])
  }
  const rows = await tx.auditEvent.findMany({
    where: {
      tenantId,
      ...(after === undefined ? {} : { seq: direction === 'desc' ? { lt: after } : { gt: after } }),
      ...(query.from || query.to ? { occurredAt: { gte: query.from, lt: query.to } } : {}),
      actorId: query.actorId,
      resourceType: query.resourceType,
      resourceId: query.resourceId,
      status: query.status,
      method: query.method,
    },
    orderBy: { seq: direction },
    take: query.limit + 1,
  })
  const data = rows.slice(0, query.limit).map((row) => ({ ...row, actorType: row.actorType as ActorType }))
  const last = data.at(-1)
  return { data, nextCursor: rows.length > query.limit && last ? encodeAuditCursor(last.seq, direction) : null }
}
