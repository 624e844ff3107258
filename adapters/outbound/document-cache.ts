/**
 * @module A cache of documents fetched from URLs tenants chose, which also decides how often each URL is fetched. The
 * traffic that asks for a document (a token naming an SSO issuer, which anyone can mint) must never decide how often
 * we call out: one URL is fetched at most once per `minIntervalMs` whatever the traffic, concurrent askers share that
 * one fetch, and a failure is remembered as long and answered again without calling out. A document stays fresh for
 * as long as its server says (`max-age`), held within bounds: no less, so a server cannot make us fetch on every
 * request; no more, so a removed key stops being trusted in bounded time. The cache's size bounds its memory without
 * loosening that rule: it forgets only a URL whose interval has passed, so cycling through more URLs than it holds
 * cannot get any of them fetched again early; when every URL it holds was fetched within the interval, a new URL is
 * refused (DocumentCacheFullError) rather than fetched.
 */
import { DocumentCacheFullError, type DocumentCache, type DocumentCacheOptions } from '../../domain/outbound-policy.ts'

interface Entry<T> {
  value?: T
  freshUntil: number
  fetchedAt: number
  failure?: Error
  pending?: Promise<T>
}

/** Creates an empty cache. */
export function createDocumentCache<T>(options: DocumentCacheOptions<T>): DocumentCache<T> {
  const { minIntervalMs, freshness, now } = options
  const maxEntries = options.maxEntries ?? 1000
  const entries = new Map<string, Entry<T>>()

  function fetchInto(url: string, entry: Entry<T>): Promise<T> {
    entry.fetchedAt = now()
    // Kept in the order of their last fetch, so the first entry is the one to forget first.
    entries.delete(url)
    entries.set(url, entry)
    const pending = options.fetch(url).then(
      ({ value, maxAgeMs }) => {
        const lifetime = Math.min(freshness.maxMs, Math.max(freshness.minMs, maxAgeMs ?? freshness.defaultMs))
        Object.assign(entry, { value, freshUntil: now() + lifetime, failure: undefined })
        return value
      },
      (error: unknown) => {
        // The document that was fresh before stays unused (it is stale or was found wanting); the failure is answered
        // until the interval lets us try again.
        entry.failure = error instanceof Error ? error : new Error(String(error))
        throw entry.failure
      }
    )
    entry.pending = pending
    void pending.then(
      () => (entry.pending = undefined),
      () => (entry.pending = undefined)
    )
    return pending
  }

  /** Forgets the URL fetched longest ago if its interval has passed; false when none may be forgotten yet. */
  function forgetOne(at: number): boolean {
    const [url, oldest] = entries.entries().next().value!
    if (oldest.pending || at - oldest.fetchedAt < minIntervalMs) return false
    entries.delete(url)
    return true
  }

  async function get(url: string, { refresh = false }: { refresh?: boolean } = {}): Promise<T> {
    const at = now()
    let entry = entries.get(url)
    if (!entry) {
      // Forgetting a URL fetched within the interval would let it be fetched again at once.
      if (entries.size >= maxEntries && !forgetOne(at)) throw new DocumentCacheFullError(url)
      entry = { freshUntil: 0, fetchedAt: Number.NEGATIVE_INFINITY }
      entries.set(url, entry)
    }
    if (entry.pending) return entry.pending
    const fresh = entry.failure === undefined && entry.value !== undefined && at < entry.freshUntil
    if (fresh && !refresh) return entry.value!
    if (at - entry.fetchedAt >= minIntervalMs) return fetchInto(url, entry)
    if (entry.failure !== undefined) throw entry.failure
    return entry.value!
  }

  return { get }
}
