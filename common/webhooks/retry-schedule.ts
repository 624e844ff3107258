/**
 * @module When a failed webhook delivery is tried again (docs/conventions.md, spec 6.2 and 8): exponential backoff with
 * jitter, at least what a 429 or 503 asked for in `Retry-After`, for up to the retry window (24 hours) after the
 * first attempt; the last retry is placed at the end of the window rather than dropped. Pure functions over numbers,
 * free of Node imports, so the delivery workflow and its activity agree on the same rules.
 */

/** The retry rules of a delivery, fixed when the delivery is dispatched (so a config change never alters it midway). */
export interface RetryPolicy {
  /** How long after the first attempt retries continue (24 h; shortened in tests). */
  windowMs: number
  /** The first retry's nominal delay. */
  initialIntervalMs: number
  /** No retry waits longer than this (also caps a Retry-After). */
  maxIntervalMs: number
}

/** Each retry waits about three times longer than the one before: 5 s, 15 s, 45 s, 2 min... up to the cap. */
export const BACKOFF_MULTIPLIER = 3

/**
 * The delay before retry number `failures` (1 for the first retry), with "equal jitter": half the nominal delay
 * fixed, half random, so receivers recovering from an outage are not hit by every delivery at the same instant.
 * @param random - a number in [0, 1)
 */
export function backoffDelayMs(failures: number, policy: RetryPolicy, random: number): number {
  const nominal = Math.min(
    policy.initialIntervalMs * BACKOFF_MULTIPLIER ** Math.max(0, failures - 1),
    policy.maxIntervalMs
  )
  return Math.round(nominal / 2 + (nominal / 2) * random)
}

/** Input of {@link nextRetryDelayMs}. */
export interface NextRetryInput {
  /** Attempts made so far, all failed (1 after the first attempt). */
  failures: number
  policy: RetryPolicy
  /** When the first attempt was made (ms since the epoch). */
  firstAttemptAt: number
  now: number
  /** What the receiver asked for with Retry-After (429 or 503), if anything. */
  retryAfterMs?: number
  /** A number in [0, 1) for the jitter. */
  random: number
}

/**
 * How long to wait before the next attempt.
 * @returns the delay in ms, or undefined when the retry window is over and the delivery has failed
 */
export function nextRetryDelayMs(input: NextRetryInput): number | undefined {
  const deadline = input.firstAttemptAt + input.policy.windowMs
  if (input.now >= deadline) return undefined
  const asked = input.retryAfterMs === undefined ? 0 : Math.min(input.retryAfterMs, input.policy.maxIntervalMs)
  const delay = Math.max(backoffDelayMs(input.failures, input.policy, input.random), asked)
  // A retry that would fall after the window happens at its end instead: the window is "up to 24 hours", used fully.
  return Math.min(delay, deadline - input.now)
}

/**
 * Parses a Retry-After header (RFC 9110 §10.2.3): delay seconds or an HTTP date.
 * @returns milliseconds from `now`, or undefined when absent or unparseable
 */
export function parseRetryAfter(value: string | null | undefined, now: number): number | undefined {
  if (!value) return undefined
  const trimmed = value.trim()
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000
  const at = Date.parse(trimmed)
  return Number.isNaN(at) ? undefined : Math.max(0, at - now)
}

/**
 * When a failing endpoint's retry workflow probes next: the same backoff as a delivery's retries, counted in probes
 * that failed, and at least what the receiver asked for with Retry-After (capped like every wait).
 * @param failures - probes failed so far plus one (1 for the first probe after the breaker opened)
 * @param random - a number in [0, 1)
 */
export function probeDelayMs(failures: number, policy: RetryPolicy, random: number, retryAfterMs?: number): number {
  const asked = retryAfterMs === undefined ? 0 : Math.min(retryAfterMs, policy.maxIntervalMs)
  return Math.max(backoffDelayMs(failures, policy, random), asked)
}
