/**
 * The SDK's retry timing (sdks/typescript/src/backoff.ts, sdks/typescript/src/retry-policy.ts): exact waits for fixed random draws, the
 * server's hints as floors, and which failures are retried at all.
 */
import { describe, expect, it } from 'vitest'
import {
  exponentialBackoff,
  hintedBackoff,
  parseRateLimitReset,
  parseRetryAfter,
  rateLimitHintMs,
} from '../../../../../sdks/typescript/src/backoff.ts'
import { ApiError } from '../../../../../sdks/typescript/src/errors.ts'
import {
  DEFAULT_RETRY_POLICY,
  retryDelay,
  type AttemptOutcome,
} from '../../../../../sdks/typescript/src/retry-policy.ts'

const settings = { baseDelayMs: 500, maxDelayMs: 20_000 }
const NOW = Date.UTC(2026, 5, 1, 12, 0, 0)
const draw = (value: number) => () => value

const answer = (status: number, code: string, headers: Record<string, string> = {}): AttemptOutcome => ({
  kind: 'response',
  error: new ApiError({ status, code, title: code, headers: new Headers(headers), body: undefined }),
})

describe('exponentialBackoff', () => {
  it('draws uniformly below a ceiling that doubles per retry and stops at the maximum', () => {
    expect([1, 2, 3, 4].map((retry) => exponentialBackoff(retry, settings, draw(0.999_999)))).toEqual([
      499, 999, 1999, 3999,
    ])
    expect(exponentialBackoff(7, settings, draw(0.999_999))).toBe(19_999) // 500 × 2^6 = 32 000, capped at 20 000
    expect(exponentialBackoff(40, settings, draw(0.5))).toBe(10_000)
    expect(exponentialBackoff(3, settings, draw(0))).toBe(0) // full jitter: may retry at once
  })
})

describe('Retry-After and X-RateLimit-Reset', () => {
  it('reads delay-seconds and HTTP-dates, and nothing else', () => {
    expect(parseRetryAfter('7', NOW)).toBe(7000)
    expect(parseRetryAfter(' 0 ', NOW)).toBe(0)
    expect(parseRetryAfter(new Date(NOW + 42_000).toUTCString(), NOW)).toBe(42_000)
    expect(parseRetryAfter(new Date(NOW - 5_000).toUTCString(), NOW)).toBe(0)
    for (const bad of ['-1', '1.5', 'soon', '', null, undefined]) expect(parseRetryAfter(bad, NOW)).toBeUndefined()
  })

  it('reads the reset as Unix seconds against our clock', () => {
    expect(parseRateLimitReset(String(NOW / 1000 + 30), NOW)).toBe(30_000)
    expect(parseRateLimitReset(String(NOW / 1000 - 30), NOW)).toBe(0)
    expect(parseRateLimitReset('tomorrow', NOW)).toBeUndefined()
  })

  it('prefers the relative Retry-After to the absolute reset for a 429', () => {
    const both = new Headers({ 'Retry-After': '3', 'X-RateLimit-Reset': String(NOW / 1000 + 50) })
    expect(rateLimitHintMs(both, NOW)).toBe(3000)
    expect(rateLimitHintMs(new Headers({ 'X-RateLimit-Reset': String(NOW / 1000 + 50) }), NOW)).toBe(50_000)
    expect(rateLimitHintMs(new Headers(), NOW)).toBeUndefined()
  })
})

describe('hintedBackoff', () => {
  it('never waits less than the hint and adds at most a fifth of it (at least 250 ms) as jitter', () => {
    expect(hintedBackoff(10_000, 1, settings, draw(0))).toBe(10_000)
    expect(hintedBackoff(10_000, 1, settings, draw(0.999_999))).toBe(11_999)
    expect(hintedBackoff(0, 1, settings, draw(0.999_999))).toBe(249)
    expect(hintedBackoff(undefined, 2, settings, draw(0.5))).toBe(500) // no hint: the exponential schedule
  })
})

describe('retryDelay', () => {
  const policy = DEFAULT_RETRY_POLICY
  const delay = (outcome: AttemptOutcome, repeatable = true) => retryDelay(outcome, 1, repeatable, policy, NOW, draw(0))

  it('waits out a 429 until the window resets, even for a request that is not repeatable (it never ran)', () => {
    expect(delay(answer(429, 'rate_limited', { 'Retry-After': '12' }), false)).toBe(12_000)
    expect(delay(answer(429, 'rate_limited', { 'X-RateLimit-Reset': String(NOW / 1000 + 20) }))).toBe(20_000)
  })

  it('retries 5xx and timeouts of repeatable requests only, honouring Retry-After', () => {
    expect(delay(answer(503, 'dependency_unavailable', { 'Retry-After': '5' }))).toBe(5000)
    expect(retryDelay(answer(500, 'internal_error'), 2, true, policy, NOW, draw(0.5))).toBe(500)
    expect(delay(answer(502, 'http_502'))).toBe(0)
    expect(delay(answer(408, 'http_408'))).toBe(0)
    expect(delay(answer(500, 'internal_error'), false)).toBeUndefined()
  })

  it('does not read X-RateLimit-Reset outside a 429: every response carries it', () => {
    const reset = { 'X-RateLimit-Reset': String(NOW / 1000 + 55) }
    expect(retryDelay(answer(500, 'internal_error', reset), 1, true, policy, NOW, draw(0.5))).toBe(250)
  })

  it('waits for a duplicate still in progress, and leaves every other client error to the caller', () => {
    expect(delay(answer(409, 'idempotency_request_in_progress', { 'Retry-After': '1' }))).toBe(1000)
    for (const [status, code] of [
      [400, 'validation_error'],
      [401, 'invalid_token'],
      [403, 'insufficient_scope'],
      [404, 'not_found'],
      [409, 'slot_unavailable'],
      [422, 'idempotency_key_reused'],
      [501, 'http_501'],
    ] as const) {
      expect(delay(answer(status, code))).toBeUndefined()
    }
  })

  it('retries network failures only when repeating is safe', () => {
    const network: AttemptOutcome = { kind: 'network', error: new TypeError('fetch failed') }
    expect(retryDelay(network, 3, true, policy, NOW, draw(0.5))).toBe(1000)
    expect(retryDelay(network, 3, false, policy, NOW, draw(0.5))).toBeUndefined()
  })
})
