/**
 * @module Iterating a list (docs/conventions.md, "Lists": `{ data, nextCursor }`, opaque `?cursor=`): page after page,
 * following `nextCursor` until it is null. Pages are fetched lazily, one at a time, as the loop asks for items, so
 * breaking out of the loop stops the requests.
 */
import type { Page } from './typed-paths.ts'

/** Fetches the page after `cursor` (the first page when undefined). */
export type PageFetcher<T> = (cursor: string | undefined) => Promise<Page<T>>

/**
 * The items of a list: `for await (const child of client.children.list({ limit: 50 }))`.
 * Also iterates whole pages (`.pages()`) or collects everything (`.toArray()`).
 */
export class PageIterator<T> implements AsyncIterable<T> {
  readonly #fetchPage: PageFetcher<T>

  constructor(fetchPage: PageFetcher<T>) {
    this.#fetchPage = fetchPage
  }

  /** Each page in turn, as the API answered it. */
  async *pages(): AsyncGenerator<Page<T>, void, undefined> {
    let cursor: string | undefined
    const seen = new Set<string>()
    do {
      const page = await this.#fetchPage(cursor)
      yield page
      cursor = page.nextCursor ?? undefined
      // A cursor that comes back would loop forever; the API never does that, but a proxy cache might.
      if (cursor !== undefined) {
        if (seen.has(cursor)) throw new Error('The list answered a cursor it had already answered; stopping.')
        seen.add(cursor)
      }
    } while (cursor !== undefined)
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T, void, undefined> {
    for await (const page of this.pages()) yield* page.data
  }

  /** Every item of every page. Mind the size of the list. */
  async toArray(): Promise<T[]> {
    const items: T[] = []
    for await (const item of this) items.push(item)
    return items
  }
}
