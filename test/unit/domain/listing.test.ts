import { describe, expect, it } from 'vitest'
import { keysetOrderBy, keysetWhere, listQuerySchema, parseList, toSortedPage } from '../../../domain/listing.ts'

const schema = listQuerySchema(['createdAt', 'lastName'], '-createdAt')
const rows = [
  { id: 'a1', lastName: 'Berg', createdAt: new Date('2026-11-01T00:00:00Z') },
  { id: 'a2', lastName: 'Berg', createdAt: new Date('2026-11-02T00:00:00Z') },
  { id: 'a3', lastName: 'Cole', createdAt: new Date('2026-11-02T00:00:00Z') },
]

/** Applies keysetWhere/keysetOrderBy semantics in memory, as PostgreSQL would. */
function page(all: typeof rows, query: Record<string, string>) {
  const list = parseList(schema.parse(query))
  const where = keysetWhere(list) as { OR?: Array<Record<string, unknown>> }
  const sign = list.direction === 'asc' ? 1 : -1
  const cmp = (x: unknown, y: unknown) => (x! < y! ? -1 : x! > y! ? 1 : 0)
  const key = (r: (typeof rows)[number]) => (r as Record<string, unknown>)[list.field] as Date | string
  const sorted = [...all].sort((x, y) => sign * (cmp(+key(x) || key(x), +key(y) || key(y)) || cmp(x.id, y.id)))
  const after = list.after
  const rest = after
    ? sorted.filter((r) => {
        const c = cmp(+key(r) || key(r), after.value instanceof Date ? +after.value : after.value)
        return sign * c > 0 || (c === 0 && sign * cmp(r.id, after.id) > 0)
      })
    : sorted
  expect(where.OR === undefined).toBe(after === undefined)
  return toSortedPage(rest.slice(0, list.limit + 1), list)
}

describe('sorted cursor pagination', () => {
  it('defaults to limit 20 and the declared sort, and refuses unknown sorts', () => {
    expect(schema.parse({})).toEqual({ limit: 20, sort: '-createdAt' })
    expect(schema.safeParse({ sort: 'firstName' }).success).toBe(false)
    expect(schema.safeParse({ limit: '101' }).success).toBe(false)
  })

  it('orders by the field then id, in the same direction', () => {
    expect(keysetOrderBy(parseList(schema.parse({ sort: '-lastName' })))).toEqual([
      { lastName: 'desc' },
      { id: 'desc' },
    ])
  })

  it('walks every row exactly once through ties, in both directions', () => {
    for (const sort of ['createdAt', '-createdAt', 'lastName', '-lastName']) {
      const seen: string[] = []
      let cursor: string | null | undefined
      do {
        const result = page(rows, { limit: '1', sort, ...(cursor ? { cursor } : {}) })
        seen.push(...result.data.map((r) => r.id))
        cursor = result.nextCursor
      } while (cursor)
      expect(new Set(seen).size, sort).toBe(3)
      expect(seen).toHaveLength(3)
    }
  })

  it('round-trips dates through the cursor and builds the keyset condition', () => {
    const first = toSortedPage(rows, parseList(schema.parse({ limit: '2', sort: 'createdAt' })))
    const list = parseList(schema.parse({ limit: '2', sort: 'createdAt', cursor: first.nextCursor! }))
    expect(list.after).toEqual({ value: new Date('2026-11-02T00:00:00Z'), id: 'a2' })
    expect(keysetWhere(list)).toEqual({
      createdAt: { gte: list.after!.value },
      OR: [{ createdAt: { gt: list.after!.value } }, { createdAt: list.after!.value, id: { gt: 'a2' } }],
    })
  })

  it('refuses a cursor made for another sort, and garbage, as validation errors on `cursor`', () => {
    const { nextCursor } = toSortedPage(rows, parseList(schema.parse({ limit: '1', sort: 'lastName' })))
    expect(() => parseList(schema.parse({ sort: '-lastName', cursor: nextCursor! }))).toThrow(
      expect.objectContaining({
        code: 'validation_error',
        errors: [expect.objectContaining({ path: 'cursor', code: 'invalid_cursor' })],
      })
    )
    expect(() => parseList(schema.parse({ cursor: 'not-ours' }))).toThrow(
      expect.objectContaining({ code: 'validation_error' })
    )
  })
})
