/**
 * @module Walking a cursor-paginated list over HTTP (docs/conventions.md lists): follows `nextCursor` to the end and
 * returns every item, so a test can check that pages neither skip nor repeat anything.
 */
import { expect } from 'vitest'
import type { HttpClient } from './http.ts'

/**
 * Every item of a list, page by page.
 * @param path - the list path with its query, e.g. `/v1/clients?sort=lastName&limit=2`
 * @returns the items in order and how many pages it took
 */
export async function walkPages<T = Record<string, unknown>>(
  http: HttpClient,
  token: string,
  path: string,
  maxPages = 100
) {
  const items: T[] = []
  let cursor: string | null = null
  let pages = 0
  do {
    const separator = path.includes('?') ? '&' : '?'
    const url: string = cursor === null ? path : `${path}${separator}cursor=${encodeURIComponent(cursor)}`
    const response = await http.get(url, { token })
    expect(response.status, `${url}: ${JSON.stringify(response.body)}`).toBe(200)
    items.push(...(response.body.data as T[]))
    cursor = response.body.nextCursor as string | null
    pages += 1
  } while (cursor !== null && pages < maxPages)
  expect(cursor, 'the list did not end').toBeNull()
  return { items, pages }
}
