/**
 * @module Cursor pagination (docs/conventions.md): `?limit=` from 1 to 100 (default 20) and an opaque `?cursor=`.
 * Ids are time-ordered UUIDv7s, so "after this id" is a stable keyset cursor that never skips or repeats rows.
 */
import { validationError } from './errors.ts'

export interface Page<T> {
  data: T[]
  nextCursor: string | null
}

export const encodeCursor = (lastId: string) => Buffer.from(JSON.stringify({ after: lastId })).toString('base64url')

/** The id to continue after, or undefined for a cursor that is not one of ours. */
export function decodeCursor(cursor: string): string | undefined {
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { after?: unknown }
    return typeof value.after === 'string' ? value.after : undefined
  } catch {
    return undefined
  }
}

/**
 * The id to continue after for a list request.
 * @throws AppError `validation_error` on a cursor that is not one of ours
 */
export function afterCursor(cursor: string | undefined): string | undefined {
  if (cursor === undefined) return undefined
  const after = decodeCursor(cursor)
  if (!after)
    throw validationError([{ path: 'cursor', code: 'invalid_cursor', message: 'Not a cursor from this API.' }])
  return after
}

/**
 * Builds a page from rows fetched with `take: limit + 1`.
 * @param rows - up to limit + 1 rows in id order
 * @param limit - the page size asked for
 */
export function toPage<T extends { id: string }>(rows: T[], limit: number): Page<T> {
  const data = rows.slice(0, limit)
  const last = data.at(-1)
  return { data, nextCursor: rows.length > limit && last ? encodeCursor(last.id) : null }
}
