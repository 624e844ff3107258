/**
 * @module Which failures are worth another attempt, and after how long: 429 after the server's hint,
 * 5xx and network failures with exponential backoff — for writes too, because every write carries one
 * `Idempotency-Key` for all its attempts, so a repeat cannot act twice. Everything else is the caller's to fix.
 */
import {
  exponentialBackoff,
  hintedBackoff,
  parseRetryAfter,
  rateLimitHintMs,
  type BackoffSettings,
  type Random,
} from './backoff.ts'
import type { ApiError } from './errors.ts'

/** Bounds and spacing of retries; every field is configurable on the client. */
export interface RetryPolicy extends BackoffSettings {
  /** Attempts per call, the first included (1 disables retries). */
  maxAttempts: number
  /**
   * Longest a call may take, waits included, in milliseconds. A retry whose wait would end past this is not made:
   * the last error is thrown at once instead of after a pointless sleep.
   */
  maxElapsedMs: number
}

/**
 * The defaults: 5 attempts within 90 seconds, waits doubling from up to 0.5 s to at most 20 s. 90 seconds lets a
 * call ride out one full rate-limit window (60 seconds) and a short outage.
 */
export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxAttempts: 5,
  maxElapsedMs: 90_000,
  baseDelayMs: 500,
  maxDelayMs: 20_000,
}

/** Statuses that say "try again later" without blaming the request. */
const TRANSIENT_STATUSES = new Set([408, 500, 502, 503, 504])

/** What the last attempt ended with. */
export type AttemptOutcome = { kind: 'response'; error: ApiError } | { kind: 'network'; error: unknown }

/**
 * The wait before the next attempt, or undefined when the outcome is final.
 * @param outcome - the failed attempt
 * @param retry - 1-based number of the retry that would follow
 * @param repeatable - whether repeating the request is safe: a read, or a write with an Idempotency-Key
 */
export function retryDelay(
  outcome: AttemptOutcome,
  retry: number,
  repeatable: boolean,
  policy: RetryPolicy,
  nowMs: number,
  random: Random
): number | undefined {
  if (outcome.kind === 'network') return repeatable ? exponentialBackoff(retry, policy, random) : undefined
  const { status, code, headers } = outcome.error
  // Refused before it ran (the limit is checked before the request's transaction opens): always safe to repeat.
  if (status === 429) return hintedBackoff(rateLimitHintMs(headers, nowMs), retry, policy, random)
  const retryAfter = parseRetryAfter(headers.get('retry-after'), nowMs)
  // The first request with this key is still running; its answer will be replayed to us once it is done.
  if (status === 409 && code === 'idempotency_request_in_progress')
    return hintedBackoff(retryAfter, retry, policy, random)
  if (TRANSIENT_STATUSES.has(status) && repeatable) return hintedBackoff(retryAfter, retry, policy, random)
  return undefined
}
