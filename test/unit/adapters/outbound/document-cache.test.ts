/**
 * The outbound document cache decides how often a tenant's URL is called, whatever the traffic: at most once per
 * interval per URL (a flood, a refresh request, a failure), one fetch shared by concurrent askers, and freshness from
 * the server's max-age held within bounds; its size bound forgets no URL still inside its interval. A counting fetcher stands in for the remote server; time is a variable.
 */
import { describe, expect, it } from 'vitest'
import { createDocumentCache } from '../../../../adapters/outbound/document-cache.ts'
import { DocumentCacheFullError } from '../../../../domain/outbound-policy.ts'

const INTERVAL = 30_000
const FRESHNESS = { defaultMs: 600_000, minMs: 60_000, maxMs: 3_600_000 }

/** A cache over a fetcher that answers version n of a document (or fails while `failing`), counting its calls. */
function setUp(answer: { maxAgeMs?: number } = {}) {
  let now = 1_000_000
  const calls: string[] = []
  const state = { failing: false, release: undefined as (() => void) | undefined, hold: false }
  const cache = createDocumentCache<string>({
    minIntervalMs: INTERVAL,
    freshness: FRESHNESS,
    now: () => now,
    maxEntries: 3,
    fetch: async (url) => {
      calls.push(url)
      if (state.hold) await new Promise<void>((resolve) => (state.release = resolve))
      if (state.failing) throw new Error(`down: ${url}`)
      return { value: `${url}#${calls.length}`, ...answer }
    },
  })
  return {
    cache,
    calls,
    state,
    advance: (ms: number) => (now += ms),
  }
}

describe('createDocumentCache', () => {
  it('fetches a URL once, then answers from the cache while the document is fresh', async () => {
    const { cache, calls, advance } = setUp()
    expect(await cache.get('https://a/jwks')).toBe('https://a/jwks#1')
    for (let i = 0; i < 100; i++) expect(await cache.get('https://a/jwks')).toBe('https://a/jwks#1')
    advance(FRESHNESS.defaultMs - 1)
    expect(await cache.get('https://a/jwks')).toBe('https://a/jwks#1')
    advance(1)
    expect(await cache.get('https://a/jwks')).toBe('https://a/jwks#2')
    expect(calls).toHaveLength(2)
  })

  it('grants a refresh at most once per interval, however many ask', async () => {
    const { cache, calls, advance } = setUp()
    await cache.get('https://a/jwks')
    // A flood of tokens with unknown key ids: the first refresh is in the interval of the first fetch.
    for (let i = 0; i < 50; i++) expect(await cache.get('https://a/jwks', { refresh: true })).toBe('https://a/jwks#1')
    expect(calls).toHaveLength(1)
    advance(INTERVAL)
    for (let i = 0; i < 50; i++) expect(await cache.get('https://a/jwks', { refresh: true })).toBe('https://a/jwks#2')
    expect(calls).toHaveLength(2)
  })

  it('shares one fetch between concurrent askers', async () => {
    const { cache, calls, state } = setUp()
    state.hold = true
    const answers = Array.from({ length: 20 }, () => cache.get('https://a/jwks'))
    await new Promise((resolve) => setImmediate(resolve))
    state.release!()
    expect(new Set(await Promise.all(answers))).toEqual(new Set(['https://a/jwks#1']))
    expect(calls).toHaveLength(1)
  })

  it('remembers a failure for the interval and answers it again without calling out', async () => {
    const { cache, calls, state, advance } = setUp()
    state.failing = true
    for (let i = 0; i < 10; i++) await expect(cache.get('https://down/jwks')).rejects.toThrow('down: https://down/jwks')
    expect(calls).toHaveLength(1)
    state.failing = false
    advance(INTERVAL - 1)
    await expect(cache.get('https://down/jwks')).rejects.toThrow('down')
    advance(1)
    expect(await cache.get('https://down/jwks')).toBe('https://down/jwks#2')
  })

  it('does not serve a document whose refetch failed, once it is stale', async () => {
    const { cache, state, advance } = setUp()
    await cache.get('https://a/jwks')
    advance(FRESHNESS.defaultMs)
    state.failing = true
    await expect(cache.get('https://a/jwks')).rejects.toThrow('down')
    await expect(cache.get('https://a/jwks')).rejects.toThrow('down')
  })

  it.each([
    ['no-store (0)', 0, FRESHNESS.minMs],
    ['a short max-age', 5_000, FRESHNESS.minMs],
    ['a max-age within bounds', 900_000, 900_000],
    ['a year', 365 * 86_400_000, FRESHNESS.maxMs],
  ])('holds the freshness of %s within bounds', async (_name, maxAgeMs, expected) => {
    const { cache, calls, advance } = setUp({ maxAgeMs })
    await cache.get('https://a/jwks')
    advance(expected - 1)
    await cache.get('https://a/jwks')
    expect(calls).toHaveLength(1)
    advance(1)
    await cache.get('https://a/jwks')
    expect(calls).toHaveLength(2)
  })

  it('keys by URL and, beyond its size, forgets the URL fetched longest ago once its interval has passed', async () => {
    const { cache, calls, advance } = setUp()
    for (const url of ['https://a', 'https://b', 'https://c']) await cache.get(url)
    advance(INTERVAL)
    // Fetched again, 'https://a' is now the latest: 'https://b' is the one forgotten for 'https://d'.
    await cache.get('https://a', { refresh: true })
    await cache.get('https://d')
    await cache.get('https://d')
    expect(calls).toEqual(['https://a', 'https://b', 'https://c', 'https://a', 'https://d'])
    await cache.get('https://a')
    await cache.get('https://c')
    expect(calls).toHaveLength(5)
    // 'https://b' was forgotten: asked again, it is fetched again (in place of 'https://c', whose interval has passed).
    await cache.get('https://b')
    expect(calls).toHaveLength(6)
  })

  it('refuses a new URL rather than forget one fetched within the interval, so cycling URLs cannot refetch early', async () => {
    const { cache, calls, advance } = setUp()
    const urls = ['https://a', 'https://b', 'https://c', 'https://d', 'https://e']
    // Round after round over more URLs than the cache holds: each URL is fetched at most once per interval.
    for (let round = 0; round < 5; round++) {
      for (const url of urls) await cache.get(url).catch((error: unknown) => error)
      advance(INTERVAL / 4)
    }
    for (const url of urls) expect(calls.filter((c) => c === url).length).toBeLessThanOrEqual(2)

    // Full of URLs fetched within the interval, the cache refuses a new one without calling out, until one's passes.
    const fresh = setUp()
    for (const url of ['https://a', 'https://b', 'https://c']) await fresh.cache.get(url)
    await expect(fresh.cache.get('https://f')).rejects.toBeInstanceOf(DocumentCacheFullError)
    expect(fresh.calls).not.toContain('https://f')
    fresh.advance(INTERVAL)
    expect(await fresh.cache.get('https://f')).toBe('https://f#4')
  })
})
