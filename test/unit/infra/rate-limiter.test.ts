import { RateLimiterRes } from 'rate-limiter-flexible'
import { describe, expect, it, vi } from 'vitest'
import type { Logger } from '../../../infra/logger.ts'
import { chooseRateLimitStore, createRateLimiter, outageLimit, toDecision } from '../../../infra/rate-limiter.ts'

const silentLogger = () => ({ warn: vi.fn() }) as unknown as Logger & { warn: ReturnType<typeof vi.fn> }

describe('toDecision', () => {
  it('rounds the window end up to a whole epoch second and Retry-After up to a whole second', () => {
    const decision = toDecision(5, new RateLimiterRes(0, 12_300), false, 1_767_225_600_500)
    expect(decision).toEqual({ allowed: false, limit: 5, remaining: 0, resetAt: 1_767_225_613, retryAfterSeconds: 13 })
  })

  it('never asks a client to retry in less than a second', () => {
    expect(toDecision(5, new RateLimiterRes(0, 0), false, 1_000).retryAfterSeconds).toBe(1)
    expect(toDecision(5, new RateLimiterRes(3, 59_999), true, 1_000)).toMatchObject({
      remaining: 3,
      retryAfterSeconds: 60,
    })
  })
})

describe('memory store', () => {
  it('allows the limit per key in one fixed window, then refuses until it ends', async () => {
    const limiter = createRateLimiter({ store: 'memory', limit: 3, logger: silentLogger() })
    const started = Math.floor(Date.now() / 1000)
    const decisions = []
    for (let i = 0; i < 5; i++) decisions.push(await limiter.consume('client:a'))
    expect(decisions.map((d) => d.allowed)).toEqual([true, true, true, false, false])
    expect(decisions.map((d) => d.remaining)).toEqual([2, 1, 0, 0, 0])
    for (const d of decisions) {
      expect(d.limit).toBe(3)
      expect(d.resetAt).toBeGreaterThan(started)
      expect(d.resetAt).toBeLessThanOrEqual(started + 61)
      expect(d.retryAfterSeconds).toBeGreaterThanOrEqual(59)
    }
    // Another key has its own window.
    expect(await limiter.consume('ip:198.51.100.7')).toMatchObject({ allowed: true, remaining: 2 })
    await limiter.close()
  })

  it('ends the window after windowSeconds when given', async () => {
    const limiter = createRateLimiter({ store: 'memory', limit: 1, windowSeconds: 10, logger: silentLogger() })
    const started = Math.floor(Date.now() / 1000)
    await limiter.consume('client:a')
    const refused = await limiter.consume('client:a')
    expect(refused.allowed).toBe(false)
    expect(refused.retryAfterSeconds).toBeLessThanOrEqual(10)
    expect(refused.resetAt).toBeLessThanOrEqual(started + 11)
    await limiter.close()
  })
})

describe('postgres store', () => {
  it('needs a connection string', () => {
    expect(() => createRateLimiter({ store: 'postgres', limit: 3, logger: silentLogger() })).toThrow(
      /connection string/
    )
  })

  it('counts every store failure, logs it, and keeps limiting in this process at a tenth of the limit', async () => {
    const logger = silentLogger()
    const onStoreError = vi.fn()
    // Port 1 on loopback refuses connections at once.
    const limiter = createRateLimiter({
      store: 'postgres',
      limit: 20,
      connectionString: 'postgresql://nobody:nothing@127.0.0.1:1/none',
      logger,
      onStoreError,
    })
    const decisions = [
      await limiter.consume('client:a'),
      await limiter.consume('client:a'),
      await limiter.consume('client:a'),
    ]
    // Not the 20 of the shared limit: this instance alone must not hand out an unshared allowance.
    expect(decisions.map((d) => [d.allowed, d.limit, d.remaining])).toEqual([
      [true, 2, 1],
      [true, 2, 0],
      [false, 2, 0],
    ])
    expect(onStoreError).toHaveBeenCalledTimes(3)
    expect(logger.warn).toHaveBeenCalledTimes(1)
    expect(logger.warn.mock.calls[0]?.[0]).toMatchObject({ failures: 1, localLimit: 2 })
    expect(logger.warn.mock.calls[0]?.[1]).toMatch(/rate-limit store unavailable/)
    await limiter.close()
  })

  it('allows at least one request per window during an outage', () => {
    expect([1, 5, 10, 11, 600].map(outageLimit)).toEqual([1, 1, 1, 2, 60])
  })
})

describe('chooseRateLimitStore', () => {
  it('shares the counters in PostgreSQL by default, and keeps them in memory for the embedded database', () => {
    expect(chooseRateLimitStore({ DATABASE_EMBEDDED: false })).toEqual({
      store: 'postgres',
      reason: 'PostgreSQL server, shared by every instance',
    })
    expect(chooseRateLimitStore({ DATABASE_EMBEDDED: true })).toEqual({
      store: 'memory',
      reason: 'embedded single-process database',
    })
  })

  it('follows RATE_LIMIT_STORE when it is set, either way', () => {
    expect(chooseRateLimitStore({ RATE_LIMIT_STORE: 'memory', DATABASE_EMBEDDED: false }).store).toBe('memory')
    expect(chooseRateLimitStore({ RATE_LIMIT_STORE: 'postgres', DATABASE_EMBEDDED: true }).store).toBe('postgres')
  })
})
