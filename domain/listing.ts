/**
 * @module Sorted cursor pagination for every list endpoint (docs/conventions.md): `?limit=` 1..100 (default 20), an opaque
 * `?cursor=`, and `?sort=field` or `?sort=-field`. Pages are keyset pages over (sort field, id): they never skip or
 * repeat a row while rows are added, and cost the same on page 1 and page 1,000.
 *
 * A cursor remembers the sort it was made for; presenting it with another sort is a 400, because the position it
 * names means nothing in another order. Sortable fields must be non-null columns (ties are broken by id).
 *
 * Usage, in a route file: `request: { query: listQuerySchema(['createdAt', 'lastName'], '-createdAt').extend({...filters}) }`;
 * in a domain function:
 * ```ts
 * const list = parseList(query)
 * const rows = await tx.client.findMany({ where: { AND: [filters, keysetWhere(list)] }, orderBy: keysetOrderBy(list), take: list.limit + 1 })
 * return toSortedPage(rows, list)
 * ```
 */
import { z } from '@hono/zod-openapi'
import { validationError } from './errors.ts'
import type { Page } from './pagination.ts'

export type { Page } from './pagination.ts'

export type SortDirection = 'asc' | 'desc'
export type SortParam<F extends string> = F | `-${F}`

/** A parsed list request. */
export interface ListRequest<F extends string = string> {
  limit: number
  field: F
  direction: SortDirection
  /** The sort as the client wrote it, e.g. `-createdAt`. */
  sort: SortParam<F>
  /** The position to continue after, from the cursor. */
  after?: { value: CursorValue; id: string }
}

type CursorValue = string | number | boolean | Date
type EncodedValue = string | number | boolean | { d: string }

interface CursorPayload {
  s: string
  v: EncodedValue
  id: string
}

const limitParam = z.coerce
  .number()
  .int()
  .min(1)
  .max(100)
  .default(20)
  .openapi({ param: { name: 'limit', in: 'query' }, description: 'Page size, 1 to 100.' })

const cursorParam = (description: string) =>
  z
    .string()
    .max(512)
    .optional()
    .openapi({ param: { name: 'cursor', in: 'query' }, description })

/** The query schema of a list route in one fixed order (no `sort`): limit and cursor. Extend it with the filters. */
export const pageQuerySchema = z.object({
  limit: limitParam,
  cursor: cursorParam('The `nextCursor` of the previous page.'),
})

/**
 * The query schema of a list route: limit, cursor and a sort restricted to `sortable` fields in either direction.
 * Extend it with the route's filters.
 */
export function listQuerySchema<const F extends string>(sortable: readonly [F, ...F[]], defaultSort: SortParam<F>) {
  const values = sortable.flatMap((field) => [field, `-${field}`]) as [SortParam<F>, ...SortParam<F>[]]
  return z.object({
    limit: limitParam,
    cursor: cursorParam('The `nextCursor` of the previous page, with the same `sort`.'),
    sort: z
      .enum(values)
      // zod cannot see that a SortParam<F> is one of the enum's values when F is generic.
      .default(defaultSort as never)
      .openapi({
        param: { name: 'sort', in: 'query' },
        description: `Sort field; a leading \`-\` sorts descending. Ties are broken by id. Default \`${defaultSort}\`.`,
      }),
  })
}

const encodeValue = (value: CursorValue): EncodedValue => (value instanceof Date ? { d: value.toISOString() } : value)
const decodeValue = (value: EncodedValue): CursorValue => (typeof value === 'object' ? new Date(value.d) : value)

function invalidCursor(message: string) {
  return validationError([{ path: 'cursor', code: 'invalid_cursor', message }])
}

function decodeCursor(cursor: string): CursorPayload {
  let payload: unknown
  try {
    payload = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'))
  } catch {
    throw invalidCursor('Not a cursor from this API.')
  }
  const p = payload as Partial<Record<keyof CursorPayload, unknown>> | null
  const valueOk =
    typeof p?.v === 'string' ||
    typeof p?.v === 'number' ||
    typeof p?.v === 'boolean' ||
    (typeof p?.v === 'object' && p.v !== null && typeof (p.v as { d?: unknown }).d === 'string')
  if (typeof p?.s !== 'string' || typeof p.id !== 'string' || !valueOk)
    throw invalidCursor('Not a cursor from this API.')
  return p as CursorPayload
}

/**
 * Parses a validated list query.
 * @throws AppError `validation_error` (`invalid_cursor`) for a foreign cursor or one made for another sort
 */
export function parseList<F extends string>(query: {
  limit: number
  cursor?: string
  sort: SortParam<F>
}): ListRequest<F> {
  const descending = query.sort.startsWith('-')
  const field = (descending ? query.sort.slice(1) : query.sort) as F
  const list: ListRequest<F> = { limit: query.limit, field, direction: descending ? 'desc' : 'asc', sort: query.sort }
  if (query.cursor === undefined) return list
  const cursor = decodeCursor(query.cursor)
  if (cursor.s !== query.sort) {
    throw invalidCursor(`This cursor was made for sort=${cursor.s}; repeat that sort or start again without a cursor.`)
  }
  return { ...list, after: { value: decodeValue(cursor.v), id: cursor.id } }
}

/** The Prisma `where` fragment that selects rows after the cursor's position ({} on the first page). */
export function keysetWhere(list: ListRequest): Record<string, unknown> {
  if (!list.after) return {}
  const op = list.direction === 'asc' ? 'gt' : 'lt'
  if (list.field === 'id') return { id: { [op]: list.after.id } }
  return {
    // The first bound is implied by the OR, but PostgreSQL cannot turn an OR into an index range: with it, a deep
    // page starts its index scan at the cursor instead of filtering every row before it (78 ms → 0.2 ms measured on
    // 50,000 clients).
    [list.field]: { [list.direction === 'asc' ? 'gte' : 'lte']: list.after.value },
    OR: [{ [list.field]: { [op]: list.after.value } }, { [list.field]: list.after.value, id: { [op]: list.after.id } }],
  }
}

/** The Prisma `orderBy` for the list: the sort field, then id in the same direction. */
export function keysetOrderBy(list: ListRequest): Array<Record<string, SortDirection>> {
  return list.field === 'id' ? [{ id: list.direction }] : [{ [list.field]: list.direction }, { id: list.direction }]
}

/** The arguments {@link findPage} gives a model's `findMany`. */
export interface KeysetFindArgs<W> {
  where: { AND: W[] }
  orderBy: Array<Record<string, SortDirection>>
  take: number
}

/**
 * One keyset page of a model: `filters` and the cursor's position, in the list's order, one row more than the page
 * to know whether another follows.
 * @param filters - the list's `where` conditions (the tenant, the query's filters), all of which must hold
 * @param findMany - the model's query, e.g. `(args) => uow.tx.lead.findMany(args)`
 */
export async function findPage<W, T extends { id: string }>(
  list: ListRequest,
  filters: W[],
  findMany: (args: KeysetFindArgs<W>) => Promise<T[]>
): Promise<Page<T>> {
  const rows = await findMany({
    // The cursor's fragment is a `where` of any model with the sort field and `id`; W is that model's where type.
    where: { AND: [...filters, keysetWhere(list) as W] },
    orderBy: keysetOrderBy(list),
    take: list.limit + 1,
  })
  return toSortedPage(rows, list)
}

/**
 * A page from rows fetched with `take: list.limit + 1` in {@link keysetOrderBy} order.
 * @param rows - the rows, each carrying `id` and the sort field
 */
export function toSortedPage<T extends { id: string }>(rows: T[], list: ListRequest): Page<T> {
  const data = rows.slice(0, list.limit)
  const last = data.at(-1)
  if (rows.length <= list.limit || !last) return { data, nextCursor: null }
  const value = (last as Record<string, unknown>)[list.field]
  if (!(
    typeof value === 'string' ||
    typeof value === 'number' ||
    typeof value === 'boolean' ||
    value instanceof Date
  )) {
    throw new Error(`list sorted by ${list.field}: the field is missing or not sortable on the returned rows`)
  }
  const payload: CursorPayload = { s: list.sort, v: encodeValue(value), id: last.id }
  return { data, nextCursor: Buffer.from(JSON.stringify(payload)).toString('base64url') }
}
