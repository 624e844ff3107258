/**
 * @module Paces calls per key: each key has its own rate (with a burst), and a call beyond it waits for its turn
 * rather than being refused, up to a longest wait; past that it is refused with 429 `rate_limited` and the seconds
 * until a turn is free. Turns are kept as the Generic Cell Rate Algorithm keeps them (one "theoretical arrival time"
 * per key), so a key costs one number, and callers are served in the order they came.
 *
 * Used for reads answered by Temporal (workflow views, keyed by tenant): the rate limiter (infra/rate-limiter.ts)
 * counts requests of every kind per API client, while these cost Temporal and the API's event loop far more than a
 * database read, and a tenant's dashboard polling them flat out would take that capacity from bookings and from
 * other tenants.
 */
import { rateLimited } from './errors.ts'

export interface PacerOptions {
  /** Calls a second per key; 0 paces nothing. */
  perSecond: number
  /** Calls a key may make at once after being idle. */
  burst: number
  /** Longest a call waits for its turn before it is refused. */
  maxWaitMs: number
  /** What is paced, per key, as the refusal's detail says it: "A tenant's workflow views". */
  what: string
  now?: () => number
  sleep?: (ms: number) => Promise<void>
}

export interface Pacer {
  /**
   * Waits for `key`'s next turn.
   * @throws AppError `rate_limited` when that turn is more than `maxWaitMs` away
   */
  take(key: string): Promise<void>
}

/** Keys kept before idle ones (whose turn is already past) are dropped. */
const SWEEP_ABOVE = 10_000

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

export function createPacer(options: PacerOptions): Pacer {
  const { perSecond, burst, maxWaitMs, what, now = Date.now, sleep = defaultSleep } = options
  if (perSecond <= 0) return { take: async () => undefined }
  const interval = 1000 / perSecond
  // How far ahead of its theoretical arrival time a call may come: the burst.
  const tolerance = (Math.max(1, burst) - 1) * interval
  /** Per key, when the next call would be due at the steady rate. */
  const arrivals = new Map<string, number>()

  return {
    async take(key) {
      const at = now()
      const theoretical = Math.max(arrivals.get(key) ?? at, at)
      const wait = Math.max(0, theoretical - tolerance - at)
      if (wait > maxWaitMs) {
        const retryAfter = Math.ceil((wait - maxWaitMs) / 1000)
        throw rateLimited(
          retryAfter,
          `${what} are paced to ${perSecond} a second, and as many as can wait are waiting. Retry after ` +
            `${retryAfter} seconds, or poll less often.`
        )
      }
      arrivals.set(key, theoretical + interval)
      if (arrivals.size > SWEEP_ABOVE) for (const [k, t] of arrivals) if (t <= at) arrivals.delete(k)
      if (wait > 0) await sleep(wait)
    },
  }
}
