import { describe, expect, it } from 'vitest'
import { attemptOutcome } from '../../../../domain/webhooks/attempt-outcome.ts'
import {
  backoffDelayMs,
  nextRetryDelayMs,
  parseRetryAfter,
  probeDelayMs,
  type RetryPolicy,
} from '../../../../common/webhooks/retry-schedule.ts'

const DAY = 24 * 3600 * 1000
const policy: RetryPolicy = { windowMs: DAY, initialIntervalMs: 5000, maxIntervalMs: 3 * 3600 * 1000 }

describe('backoffDelayMs', () => {
  it('grows exponentially from the initial interval up to the cap, with half of each delay random', () => {
    expect(backoffDelayMs(1, policy, 0)).toBe(2500)
    expect(backoffDelayMs(1, policy, 0.999999)).toBeCloseTo(5000, -1)
    expect(backoffDelayMs(2, policy, 0)).toBe(7500)
    expect(backoffDelayMs(3, policy, 0)).toBe(22_500)
    expect(backoffDelayMs(30, policy, 0)).toBe(policy.maxIntervalMs / 2)
    expect(backoffDelayMs(30, policy, 0.999999)).toBeLessThanOrEqual(policy.maxIntervalMs)
  })

  it('retries within seconds first and reaches hours later, about a dozen attempts in 24 hours', () => {
    let now = 0
    let attempts = 1
    for (;;) {
      const delay = nextRetryDelayMs({ failures: attempts, policy, firstAttemptAt: 0, now, random: 0.5 })
      if (delay === undefined) break
      now += delay
      attempts++
    }
    expect(now).toBe(DAY)
    expect(attempts).toBeGreaterThan(10)
    expect(attempts).toBeLessThan(25)
  })
})

describe('nextRetryDelayMs', () => {
  const base = { policy, firstAttemptAt: 1_000_000, random: 0 }

  it('waits at least what Retry-After asked, capped at the longest interval', () => {
    expect(nextRetryDelayMs({ ...base, failures: 1, now: 1_000_000, retryAfterMs: 60_000 })).toBe(60_000)
    expect(nextRetryDelayMs({ ...base, failures: 1, now: 1_000_000, retryAfterMs: 1000 })).toBe(2500)
    expect(nextRetryDelayMs({ ...base, failures: 1, now: 1_000_000, retryAfterMs: 10 * DAY })).toBe(
      policy.maxIntervalMs
    )
  })

  it('places the last retry at the end of the window, and gives up once the window is over', () => {
    const nearEnd = 1_000_000 + DAY - 1000
    expect(nextRetryDelayMs({ ...base, failures: 9, now: nearEnd })).toBe(1000)
    expect(nextRetryDelayMs({ ...base, failures: 10, now: 1_000_000 + DAY })).toBeUndefined()
  })
})

describe('parseRetryAfter', () => {
  it('reads delay seconds and HTTP dates', () => {
    const now = Date.parse('2026-11-21T12:00:00Z')
    expect(parseRetryAfter('120', now)).toBe(120_000)
    expect(parseRetryAfter('Sat, 21 Nov 2026 12:00:30 GMT', now)).toBe(30_000)
    expect(parseRetryAfter('Sat, 21 Nov 2026 11:00:00 GMT', now)).toBe(0)
    expect(parseRetryAfter('soon', now)).toBeUndefined()
    expect(parseRetryAfter(undefined, now)).toBeUndefined()
  })
})

describe('attemptOutcome', () => {
  const input = { attempt: 1, firstAttemptAt: 0, now: 0, policy, random: 0 }

  it('succeeds on any 2xx, is gone on 410, retries everything else', () => {
    for (const statusCode of [200, 201, 202, 204, 299]) {
      expect(attemptOutcome({ ...input, result: { statusCode, latencyMs: 1 } })).toEqual({ kind: 'SUCCEEDED' })
    }
    expect(attemptOutcome({ ...input, result: { statusCode: 410, latencyMs: 1 } })).toEqual({ kind: 'GONE' })
    for (const result of [
      { statusCode: 301, latencyMs: 1, error: 'redirect not followed' },
      { statusCode: 400, latencyMs: 1 },
      { statusCode: 404, latencyMs: 1 },
      { statusCode: 500, latencyMs: 1 },
      { latencyMs: 10_000, error: 'no response within 10000 ms' },
    ]) {
      expect(attemptOutcome({ ...input, result })).toEqual({ kind: 'RETRY', retryInMs: 2500 })
    }
  })

  it('is exhausted once the window is over', () => {
    expect(attemptOutcome({ ...input, now: DAY, result: { statusCode: 500, latencyMs: 1 } })).toEqual({
      kind: 'EXHAUSTED',
    })
  })
})

describe('probeDelayMs', () => {
  it('follows the backoff, counted in failed probes', () => {
    expect(probeDelayMs(1, policy, 1)).toBe(backoffDelayMs(1, policy, 1))
    expect(probeDelayMs(4, policy, 0)).toBe(backoffDelayMs(4, policy, 0))
  })

  it('waits at least what Retry-After asked, capped like every wait', () => {
    expect(probeDelayMs(1, policy, 0, 600_000)).toBe(600_000)
    expect(probeDelayMs(1, policy, 0, 100 * 3_600_000)).toBe(policy.maxIntervalMs)
  })
})
