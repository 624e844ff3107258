/**
 * @module How long to wait before the next attempt: pure functions of the attempt number, the answer's headers,
 * the clock and a random source, so they can be tested exactly.
 *
 * - Server errors and network failures: exponential backoff with "full jitter" (a uniform wait between zero and
 *   the exponential ceiling), which spreads clients that failed together so they do not come back together.
 * - Rate limits (429) and `Retry-After` on 503: the server's hint is a floor (retrying earlier only earns another
 *   429), plus a random extra so the clients of one window do not all return at its first second.
 */

/** A source of uniform numbers in [0, 1), `Math.random` by default. */
export type Random = () => number

/** How far apart attempts are spaced. */
export interface BackoffSettings {
  /** Ceiling of the first retry's wait, in milliseconds; each retry doubles it. */
  baseDelayMs: number
  /** Largest wait computed from the exponential schedule, in milliseconds. */
  maxDelayMs: number
}

/**
 * The wait before retry number `retry` (1 for the first retry) after a server error or network failure.
 * @param retry - 1-based number of the retry about to happen
 * @param random - uniform source in [0, 1)
 * @returns milliseconds, uniform in [0, min(maxDelayMs, baseDelayMs × 2^(retry − 1)))
 */
export function exponentialBackoff(retry: number, settings: BackoffSettings, random: Random): number {
  const ceiling = Math.min(settings.maxDelayMs, settings.baseDelayMs * 2 ** Math.max(0, retry - 1))
  return Math.floor(random() * ceiling)
}

/**
 * Parses `Retry-After` (RFC 9110 §10.2.3): delay-seconds or an HTTP-date.
 * @param nowMs - the current time, to turn a date into a delay
 * @returns milliseconds to wait (never negative), or undefined when the header is absent or malformed
 */
export function parseRetryAfter(value: string | null | undefined, nowMs: number): number | undefined {
  if (value === null || value === undefined) return undefined
  const trimmed = value.trim()
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000
  const date = Date.parse(trimmed)
  // Only the IMF-fixdate family parses to a date; a bare number was handled above.
  if (Number.isNaN(date) || !/[A-Za-z]/.test(trimmed)) return undefined
  return Math.max(0, date - nowMs)
}

/**
 * Parses `X-RateLimit-Reset` (Unix epoch seconds at which the window ends, as GitHub does).
 * @returns milliseconds until then (never negative), or undefined when absent or malformed
 */
export function parseRateLimitReset(value: string | null | undefined, nowMs: number): number | undefined {
  if (value === null || value === undefined || !/^\d+$/.test(value.trim())) return undefined
  return Math.max(0, Number(value.trim()) * 1000 - nowMs)
}

/** Extra random wait added to a server hint: up to this share of the hint... */
const HINT_JITTER_RATIO = 0.2
/** ...and at least up to this many milliseconds, so a hint of zero still spreads clients. */
const HINT_JITTER_MIN_MS = 250

/**
 * The wait a 429 asks for: `Retry-After` first (it is relative, so immune to clock skew between client and server),
 * else `X-RateLimit-Reset` (absolute, read against our clock). Only for a 429: every response carries
 * `X-RateLimit-Reset`, and on any other status it says nothing about when to retry.
 * @returns milliseconds, or undefined when the response carries neither header
 */
export function rateLimitHintMs(headers: Headers, nowMs: number): number | undefined {
  return (
    parseRetryAfter(headers.get('retry-after'), nowMs) ?? parseRateLimitReset(headers.get('x-ratelimit-reset'), nowMs)
  )
}

/**
 * The wait after a response that named one (a 429, a 503 with `Retry-After`): the hint plus jitter, never less than
 * the hint. Without a hint, the exponential schedule.
 * @param hintMs - the server's requested wait, if it gave one
 * @param retry - 1-based number of the retry about to happen
 */
export function hintedBackoff(
  hintMs: number | undefined,
  retry: number,
  settings: BackoffSettings,
  random: Random
): number {
  if (hintMs === undefined) return exponentialBackoff(retry, settings, random)
  return hintMs + Math.floor(random() * Math.max(hintMs * HINT_JITTER_RATIO, HINT_JITTER_MIN_MS))
}
