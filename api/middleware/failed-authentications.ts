/**
 * @module Failed authentications per client address: credentials sent and refused (an unknown API key, a forged or
 * expired token, an SSO token no tenant trusts). Past the limit (AUTH_FAILURES_PER_MINUTE, 60 by default, in fixed
 * windows of RATE_LIMIT_WINDOW_SECONDS) the address's requests with credentials are answered 429 until the window
 * ends, before anything verifies or looks them up, as OAuth servers do against guessing (docs/rate-limits.md).
 *
 * Counted in this process's memory on purpose: the point is that a flood of bad credentials costs nothing but a map
 * look-up, and a shared counter would cost a database write per refused request. With N instances an address gets
 * N × the limit of failures, still far below the request limit.
 */
import type { Clock } from '../../infra/clock.ts'

/** Addresses tracked at once; beyond it the oldest windows are forgotten (an attacker's many addresses cost memory). */
const MAX_ADDRESSES = 100_000

export interface FailedAuthentications {
  /** Seconds until the address may try again (0: it may). */
  blockedFor(address: string): number
  /** Counts one failure; answers the seconds until the address may try again, 0 while within the limit. */
  record(address: string): number
}

/**
 * @param options - `limit` failures per address in each window of `windowSeconds`, on `clock`
 */
export function failedAuthentications({
  limit,
  windowSeconds,
  clock,
}: {
  limit: number
  windowSeconds: number
  clock: Clock
}): FailedAuthentications {
  const windows = new Map<string, { count: number; endsAt: number }>()
  const current = (address: string, now: number) => {
    const window = windows.get(address)
    if (window && window.endsAt > now) return window
    if (window) windows.delete(address)
    return undefined
  }
  const waitOf = (endsAt: number, now: number) => Math.max(1, Math.ceil((endsAt - now) / 1000))
  return {
    blockedFor(address) {
      const now = clock().getTime()
      const window = current(address, now)
      return window && window.count > limit ? waitOf(window.endsAt, now) : 0
    },
    record(address) {
      const now = clock().getTime()
      let window = current(address, now)
      if (!window) {
        window = { count: 0, endsAt: now + windowSeconds * 1000 }
        windows.set(address, window)
        while (windows.size > MAX_ADDRESSES) windows.delete(windows.keys().next().value!)
      }
      window.count += 1
      return window.count > limit ? waitOf(window.endsAt, now) : 0
    },
  }
}
