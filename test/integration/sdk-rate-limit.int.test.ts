/**
 * The SDK against the real API's rate limit (5 requests per window here): it waits out a 429 until the window the
 * API names has reset, with jitter on top, and succeeds; and when that wait would overrun the call's time budget it
 * fails at once with the 429 as an ApiError instead of sleeping in vain. The window is 10 s here instead of 60 s
 * (RATE_LIMIT_WINDOW_SECONDS), which the SDK learns from the API's headers like any other: waiting one out is the point.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ApiError, TherapyCareClient, type RetryEvent } from '../../sdks/typescript/src/index.ts'
import { startPlatform, type Platform } from '../support/platform.ts'

const LIMIT = 5
/** Long enough for six requests on a loaded machine to land in one window, short enough to wait out. */
const WINDOW_SECONDS = 10
/** The budget of the call that must not wait: well under any Retry-After the window can ask for. */
const SHORT_BUDGET_MS = 2_000
let platform: Platform

beforeAll(async () => {
  platform = await startPlatform({
    withWorker: false,
    overrides: { RATE_LIMIT_PER_MINUTE: String(LIMIT), RATE_LIMIT_WINDOW_SECONDS: String(WINDOW_SECONDS) },
  })
})

afterAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await platform?.stop()
})

/** Every answer's status and rate-limit headers, in order. */
interface Seen {
  status: number
  at: number
  reset: number
  retryAfter: string | null
}

async function sdkFor(maxElapsedMs: number, seen: Seen[], retries: RetryEvent[]) {
  const client = await platform.newTenant(['children'])
  return new TherapyCareClient({
    baseUrl: platform.api.url,
    clientId: client.client_id,
    clientSecret: client.client_secret,
    retry: { maxElapsedMs },
    onRetry: (event) => retries.push(event),
    fetch: async (input, init) => {
      const response = await fetch(input, init)
      if (new URL(input instanceof Request ? input.url : input).pathname.startsWith('/v1/')) {
        seen.push({
          status: response.status,
          at: Date.now(),
          reset: Number(response.headers.get('x-ratelimit-reset')),
          retryAfter: response.headers.get('retry-after'),
        })
      }
      return response
    },
  })
}

describe('429', () => {
  it('fails at once with the 429 when the wait would overrun the time budget', async () => {
    const seen: Seen[] = []
    const retries: RetryEvent[] = []
    const api = await sdkFor(SHORT_BUDGET_MS, seen, retries)
    for (let i = 0; i < LIMIT; i++) await expect(api.children.get('chd_none')).rejects.toMatchObject({ status: 404 })
    const started = Date.now()
    const error = await api.children.get('chd_none').catch((e: unknown) => e)
    expect(Date.now() - started).toBeLessThan(2_000)
    expect(error).toBeInstanceOf(ApiError)
    expect(error).toMatchObject({ status: 429, code: 'rate_limited' })
    expect(Number((error as ApiError).headers.get('retry-after'))).toBeGreaterThan(SHORT_BUDGET_MS / 1000)
    expect(retries).toEqual([])
  })

  it('waits until the window resets, plus jitter, then succeeds', async () => {
    const seen: Seen[] = []
    const retries: RetryEvent[] = []
    const api = await sdkFor(120_000, seen, retries)
    for (let i = 0; i < LIMIT; i++) await expect(api.children.get('chd_none')).rejects.toMatchObject({ status: 404 })
    await expect(api.children.get('chd_none')).rejects.toMatchObject({ status: 404 })

    expect(seen.map((s) => s.status)).toEqual([404, 404, 404, 404, 404, 429, 404])
    const [limited, after] = seen.slice(-2) as [Seen, Seen]
    expect(retries).toHaveLength(1)
    const retryAfterMs = Number(limited.retryAfter) * 1000
    // The API's hint is a floor; the jitter adds at most a fifth of it.
    expect(retries[0]!.delayMs).toBeGreaterThanOrEqual(retryAfterMs)
    expect(retries[0]!.delayMs).toBeLessThanOrEqual(retryAfterMs * 1.2)
    expect(after.at - limited.at).toBeGreaterThanOrEqual(retryAfterMs)
    // It came back in the next window, not the limited one.
    expect(after.at).toBeGreaterThanOrEqual(limited.reset * 1000 - 1000)
    expect(after.reset).toBeGreaterThan(limited.reset)
  })
})
