/**
 * @module Reading a tenant's audit trail: filters and keyset pagination over (`occurredAt`, `id`), newest first
 * unless asked otherwise. Time order, not chain order: a record is listed as soon as its request commits, before the
 * sealer gives it a `seq` (null until then), and a record that committed late may be sealed after later ones.
 */
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import type { Prisma } from '../../generated/prisma/client.ts'
import { validationError } from '../errors.ts'
import type { Page } from '../pagination.ts'
import type { TenantActorType, TenantAuditEvent } from './audit-event.ts'

export interface AuditEventQuery {
  limit: number
  cursor?: string
  /** `-occurredAt` newest first (the default), `occurredAt` oldest first; ties broken by id. */
  sort: 'occurredAt' | '-occurredAt'
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

/** Where a page ended: the last record's time and id. */
export interface AuditCursor {
  occurredAt: Date
  id: string
}

/** The cursor names the last record returned and the direction, so it cannot be replayed against the other order. */
export const encodeAuditCursor = ({ occurredAt, id }: AuditCursor, direction: Direction) =>
  Buffer.from(JSON.stringify({ at: occurredAt.toISOString(), id, dir: direction })).toString('base64url')

/** The position to continue after, or undefined for a cursor that is not one of ours or of the other direction. */
export function decodeAuditCursor(cursor: string, direction: Direction): AuditCursor | undefined {
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as {
      at?: unknown
      id?: unknown
      dir?: unknown
    }
    if (value.dir !== direction || typeof value.id !== 'string' || value.id.length > 255) return undefined
    if (typeof value.at !== 'string' || !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/.test(value.at)) {
      return undefined
    }
    const occurredAt = new Date(value.at)
    return Number.isNaN(occurredAt.getTime()) ? undefined : { occurredAt, id: value.id }
  } catch {
    return undefined
  }
}

/** A page of the unit's tenant's audit trail. @throws AppError `validation_error` for a foreign cursor or range */
export async function listAuditEvents(
  { tx, tenantId }: UnitOfWork,
  query: AuditEventQuery
): Promise<Page<TenantAuditEvent>> {
  const direction: Direction = query.sort === 'occurredAt' ? 'asc' : 'desc'
  const after = query.cursor === undefined ? undefined : decodeAuditCursor(query.cursor, direction)
  if (query.cursor !== undefined && after === undefined) {
    const message = 'Not a cursor of this list and sort.'
    throw validationError([{ path: 'cursor', code: 'invalid_cursor', message }])
  }
  if (query.from && query.to && query.from.getTime() >= query.to.getTime()) {
    throw validationError([{ path: 'to', code: 'invalid_range', message: '`to` must be later than `from`.' }])
  }
  const beyond = direction === 'desc' ? 'lt' : 'gt'
  const keyset: Prisma.AuditEventWhereInput =
    after === undefined
      ? {}
      : {
          OR: [
            { occurredAt: { [beyond]: after.occurredAt } },
            { occurredAt: after.occurredAt, id: { [beyond]: after.id } },
          ],
        }
  const rows = await tx.auditEvent.findMany({
    where: {
      AND: [keyset, query.from || query.to ? { occurredAt: { gte: query.from, lt: query.to } } : {}],
      tenantId,
      actorId: query.actorId,
      resourceType: query.resourceType,
      resourceId: query.resourceId,
      status: query.status,
      method: query.method,
    },
    orderBy: [{ occurredAt: direction }, { id: direction }],
    take: query.limit + 1,
    include: { chainLink: { select: { seq: true, prevHash: true, hash: true } } },
  })
  const data = rows.slice(0, query.limit).map(({ chainLink, ...row }) => ({
    ...row,
    actorType: row.actorType as TenantActorType,
    seq: chainLink?.seq ?? null,
    prevHash: chainLink?.prevHash ?? null,
    hash: chainLink?.hash ?? null,
  }))
  const last = data.at(-1)
  return { data, nextCursor: rows.length > query.limit && last ? encodeAuditCursor(last, direction) : null }
}
