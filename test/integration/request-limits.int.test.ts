/**
 * The platform's request limits over HTTP against the real database. The rate limit with both stores: the three
 * headers on every response (errors included), 429 with Retry-After and a problem body, clients and addresses counted
 * apart, a 429 that opens no transaction, one limit shared by two API instances on the postgres store, and a store
 * outage that degrades to per-instance counting instead of failing requests. Then the body limits: 413, 415 and 400
 * problem documents, and the heads the HTTP parser refuses (431, 400) as problem documents the client reads in full.
 */
import { randomInt } from 'node:crypto'
import net from 'node:net'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import type { ProvisionedClient } from '../../domain/tenants/provision-client.ts'
import { unitTransactionsOf } from '../../infra/db.ts'
import type { Logger } from '../../infra/logger.ts'
import { createRateLimiter, outageLimit } from '../../infra/rate-limiter.ts'
import type { HttpResponse } from '../support/http.ts'
import { startPlatform, type Platform } from '../support/platform.ts'
import { startTcpProxy } from '../support/tcp-proxy.ts'
import { testDatabaseUrl } from '../support/file-database.ts'

const LIMIT = 5
const PROBLEM = /^application\/problem\+json/

/**
 * A client address no other test uses (from 198.18.0.0/15, the benchmarking range), sent as X-Forwarded-For to
 * APIs that trust it, so every test has its own per-address bucket even on the shared postgres store.
 */
const freshAddress = (() => {
  let next = randomInt(0, (1 << 17) - 10_000)
  return () => {
    const n = next++
    return `198.${18 + (n >> 16)}.${(n >> 8) & 255}.${n & 255}`
  }
})()

const from = (address: string) => ({ 'X-Forwarded-For': address })

/** The rate-limit headers of a response, as numbers (NaN when missing). */
const limits = (response: HttpResponse) => ({
  limit: Number(response.headers.get('x-ratelimit-limit')),
  remaining: Number(response.headers.get('x-ratelimit-remaining')),
  reset: Number(response.headers.get('x-ratelimit-reset')),
})

const nowSeconds = () => Math.floor(Date.now() / 1000)

/** The three headers are present and well-formed, with a window end within the next minute. */
function expectRateLimitHeaders(response: HttpResponse, remaining: number) {
  const { limit, remaining: left, reset } = limits(response)
  expect(limit).toBe(LIMIT)
  expect(left).toBe(remaining)
  expect(reset).toBeGreaterThanOrEqual(nowSeconds())
  expect(reset).toBeLessThanOrEqual(nowSeconds() + 61)
}

/** A token fetched from an address of its own, so getting it does not count against the test's buckets. */
async function tokenFor(platform: Platform, client: ProvisionedClient): Promise<string> {
  const response = await platform.http.post('/oauth/token', {
    headers: from(freshAddress()),
    body: { grant_type: 'client_credentials', client_id: client.client_id, client_secret: client.client_secret },
  })
  expect(response.status).toBe(200)
  return response.body.access_token as string
}

const limitedPlatform = (store: 'memory' | 'postgres') =>
  startPlatform({
    overrides: { RATE_LIMIT_PER_MINUTE: String(LIMIT), RATE_LIMIT_STORE: store, TRUST_PROXY: 'true' },
    withWorker: false,
  })

describe.each(['memory', 'postgres'] as const)('rate limit on the %s store', (store) => {
  let platform: Platform

  beforeAll(async () => {
    platform = await limitedPlatform(store)
  })

  afterAll(async () => {
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
    await platform?.stop()
  })

  afterEach(() => {
    vi.restoreAllMocks()
  })

  it('counts a client down to a 429 with Retry-After and a problem body', async () => {
    const token = await tokenFor(platform, await platform.newTenant(['providers']))
    const address = freshAddress()
    const allowed: HttpResponse[] = []
    for (let i = 0; i < LIMIT; i++)
      allowed.push(await platform.http.get('/v1/providers', { token, headers: from(address) }))
    expect(allowed.map((r) => r.status)).toEqual([200, 200, 200, 200, 200])
    allowed.forEach((r, i) => expectRateLimitHeaders(r, LIMIT - 1 - i))
    // One fixed window: the same end for every request of it (give or take the rounding of a millisecond).
    const resets = allowed.map((r) => limits(r).reset)
    expect(Math.max(...resets) - Math.min(...resets)).toBeLessThanOrEqual(1)

    const refused = await platform.http.get('/v1/providers', { token, headers: from(address) })
    expect(refused.status).toBe(429)
    expect(refused.headers.get('content-type')).toMatch(PROBLEM)
    expect(refused.body).toMatchObject({
      type: 'http://localhost:3000/errors/rate_limited',
      status: 429,
      code: 'rate_limited',
      instance: '/v1/providers',
      requestId: refused.headers.get('x-request-id'),
    })
    expectRateLimitHeaders(refused, 0)
    const retryAfter = Number(refused.headers.get('retry-after'))
    expect(Number.isInteger(retryAfter)).toBe(true)
    expect(retryAfter).toBeGreaterThanOrEqual(1)
    expect(retryAfter).toBeLessThanOrEqual(60)
    expect(Math.abs(nowSeconds() + retryAfter - limits(refused).reset)).toBeLessThanOrEqual(2)
    expect(refused.headers.get('x-api-version')).toMatch(/^\d+\.\d+\.\d+$/)

    // Writes are refused the same way, and their Idempotency-Key stays unused.
    const write = await platform.http.post('/v1/providers', {
      token,
      headers: { ...from(address), 'Idempotency-Key': 'rate-limited-write' },
      body: { name: 'Dana Whitfield', timeZone: 'America/Chicago' },
    })
    expect(write.status).toBe(429)
    expect(await platform.api.deps.db.idempotencyRecord.count({ where: { key: 'rate-limited-write' } })).toBe(0)
  })

  it('puts the headers on every response: 401, 404, 415, 500, and endpoints without authentication', async () => {
    const token = await tokenFor(platform, await platform.newTenant(['children']))

    const unauthenticated = await platform.http.post('/v1/children', { headers: from(freshAddress()), body: {} })
    expect(unauthenticated.status).toBe(401)
    expect(unauthenticated.body.code).toBe('invalid_token')
    expectRateLimitHeaders(unauthenticated, LIMIT - 1)

    const unknownRoute = await platform.http.get('/no/such/route', { headers: from(freshAddress()) })
    expect(unknownRoute.status).toBe(404)
    expect(unknownRoute.headers.get('content-type')).toMatch(PROBLEM)
    expectRateLimitHeaders(unknownRoute, LIMIT - 1)

    const address = freshAddress()
    const missing = await platform.http.get('/v1/children/chd_missing', { token, headers: from(address) })
    expect(missing.status).toBe(404)
    expectRateLimitHeaders(missing, LIMIT - 1)

    const wrongType = await platform.http.post('/v1/children', {
      token,
      raw: 'a=b',
      headers: { ...from(address), 'Content-Type': 'text/plain' },
    })
    expect(wrongType.status).toBe(415)
    expectRateLimitHeaders(wrongType, LIMIT - 2)

    // An unexpected failure inside the request still reports the count.
    // Every transaction fails while this one request runs: background sweeps also open transactions, and a one-shot
    // failure could be spent on one of them instead of the request.
    const broken = vi
      .spyOn(unitTransactionsOf(platform.api.deps.db), 'begin')
      .mockRejectedValue(new Error('connection reset'))
    const failed = await platform.http.get('/v1/children/chd_missing', { token, headers: from(address) })
    broken.mockRestore()
    expect(failed.status).toBe(500)
    expect(failed.body.code).toBe('internal_error')
    expectRateLimitHeaders(failed, LIMIT - 3)

    for (const path of ['/.well-known/jwks.json', '/openapi.json', '/health']) {
      const response = await platform.http.get(path, { headers: from(freshAddress()) })
      expect(response.status, path).toBeLessThan(500)
      expectRateLimitHeaders(response, LIMIT - 1)
    }
    const oauthError = await platform.http.post('/oauth/token', {
      headers: from(freshAddress()),
      body: { grant_type: 'client_credentials', client_id: 'nobody', client_secret: 'nothing' },
    })
    expect(oauthError.status).toBe(401)
    expectRateLimitHeaders(oauthError, LIMIT - 1)
  })

  it('counts requests without a valid token per address, apart from the API clients at that address', async () => {
    const address = freshAddress()
    const [first, second] = [await platform.newTenant(['providers']), await platform.newTenant(['providers'])]
    const [firstToken, secondToken] = [await tokenFor(platform, first), await tokenFor(platform, second)]

    for (let i = 0; i < LIMIT; i++)
      await platform.http.get('/v1/providers', { token: firstToken, headers: from(address) })
    expect((await platform.http.get('/v1/providers', { token: firstToken, headers: from(address) })).status).toBe(429)

    // The address itself and another client at the same address have their own windows.
    const anonymous = await platform.http.get('/.well-known/jwks.json', { headers: from(address) })
    expect(anonymous.status).toBe(200)
    expectRateLimitHeaders(anonymous, LIMIT - 1)
    const otherClient = await platform.http.get('/v1/providers', { token: secondToken, headers: from(address) })
    expect(otherClient.status).toBe(200)
    expectRateLimitHeaders(otherClient, LIMIT - 1)

    // A token that does not verify counts against the address, like no token at all.
    const forged = await platform.http.get('/v1/providers', {
      token: `${firstToken.slice(0, -4)}AAAA`,
      headers: from(address),
    })
    expect(forged.status).toBe(401)
    expectRateLimitHeaders(forged, LIMIT - 2)
    for (let i = 0; i < LIMIT - 2; i++) await platform.http.get('/.well-known/jwks.json', { headers: from(address) })
    const exhausted = await platform.http.post('/oauth/token', {
      headers: from(address),
      body: { grant_type: 'client_credentials', client_id: first.client_id, client_secret: first.client_secret },
    })
    expect(exhausted.status).toBe(429)
    expect(exhausted.body.code).toBe('rate_limited')

    // Another address is unaffected.
    const elsewhere = await platform.http.get('/.well-known/jwks.json', { headers: from(freshAddress()) })
    expectRateLimitHeaders(elsewhere, LIMIT - 1)
  })

  it('refuses before the request opens its transaction: a 429 needs no database transaction to answer', async () => {
    const [limited, control] = [await platform.newTenant(['providers']), await platform.newTenant(['providers'])]
    const [token, controlToken] = [await tokenFor(platform, limited), await tokenFor(platform, control)]
    const address = freshAddress()
    for (let i = 0; i < LIMIT; i++) await platform.http.get('/v1/providers', { token, headers: from(address) })

    // From now on no transaction can open. The request under its limit fails on its unit of work; the one over it is
    // refused before it gets there. (The audit trail's own record of the call fails too, which it only logs.)
    vi.spyOn(unitTransactionsOf(platform.api.deps.db), 'begin').mockRejectedValue(new Error('no transactions'))
    const underLimit = await platform.http.get('/v1/providers', { token: controlToken, headers: from(address) })
    expect(underLimit.status).toBe(500)
    const refused = await platform.http.get('/v1/providers', { token, headers: from(address) })
    expect(refused.status).toBe(429)
    expect(refused.body.code).toBe('rate_limited')
  })
})

describe('failed authentications', () => {
  let platform: Platform

  beforeAll(async () => {
    platform = await startPlatform({
      overrides: { AUTH_FAILURES_PER_MINUTE: '3', RATE_LIMIT_PER_MINUTE: '100', TRUST_PROXY: 'true' },
      withWorker: false,
    })
  })

  afterAll(async () => {
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
    await platform?.stop()
  })

  it('answers 429 with Retry-After to an address past its failed authentications, before any lookup', async () => {
    const guesser = from(freshAddress())
    const guess = (i: number) =>
      platform.http.get('/v1/providers', { headers: { ...guesser, Authorization: `Bearer sk_guess${i}` } })
    const refused = [await guess(1), await guess(2), await guess(3)]
    expect(refused.map((r) => r.status)).toEqual([401, 401, 401])
    const blocked = await guess(4)
    expect(blocked.status).toBe(429)
    expect(blocked.body).toMatchObject({ code: 'rate_limited' })
    expect(blocked.body.detail).toMatch(/failed authentications/)
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
    // The same bad key again, and even a valid token from that address, until the window ends.
    expect((await guess(1)).status).toBe(429)
    const client = await platform.newTenant(['providers'])
    const token = await tokenFor(platform, client)
    const valid = { Authorization: `Bearer ${token}` }
    expect((await platform.http.get('/v1/providers', { headers: { ...guesser, ...valid } })).status).toBe(429)
    // Requests without credentials from it, and valid ones from elsewhere, go on.
    expect((await platform.http.get('/.well-known/jwks.json', { headers: guesser })).status).toBe(200)
    const elsewhere = from(freshAddress())
    expect((await platform.http.get('/v1/providers', { headers: { ...elsewhere, ...valid } })).status).toBe(200)
  })
})

describe('rate limit without a trusted proxy', () => {
  let platform: Platform

  beforeAll(async () => {
    platform = await startPlatform({ overrides: { RATE_LIMIT_PER_MINUTE: String(LIMIT) }, withWorker: false })
  })

  afterAll(async () => {
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
    await platform?.stop()
  })

  it('ignores X-Forwarded-For: a client cannot pick a fresh bucket per request', async () => {
    const responses: HttpResponse[] = []
    for (let i = 0; i <= LIMIT; i++) {
      responses.push(await platform.http.get('/.well-known/jwks.json', { headers: from(freshAddress()) }))
    }
    expect(responses.map((r) => limits(r).remaining)).toEqual([4, 3, 2, 1, 0, 0])
    expect(responses.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 429])
  })
})

describe('two API instances on one database', () => {
  const platforms: Platform[] = []

  afterAll(async () => {
    await Promise.all(platforms.map((p) => p.stop()))
  })

  /**
   * Opens each instance's store connection before the count starts: on a loaded machine a first connection can take
   * longer than the store's one-second budget, and that count then (rightly) falls back to the process's outage limit,
   * which lets one more request through than the shared count would (seen in CI: 6 of 12 allowed at a limit of 5).
   * A count that reached the table left its row there.
   */
  async function warmStores(pair: readonly Platform[]) {
    for (const { api } of pair) {
      for (let attempt = 0; attempt < 10; attempt++) {
        const key = `ip:${freshAddress()}`
        await api.deps.rateLimiter.consume(key)
        if (await api.deps.db.rateLimit.findUnique({ where: { key: `api:${key}` } })) break
      }
    }
  }

  /** Each instance's count of shared-store statements that failed or outran their budget. */
  const storeErrorCounts = (pair: readonly Platform[]) =>
    Promise.all(pair.map(async ({ api }) => (await api.deps.metrics.rateLimitStoreErrors.get()).values[0]?.value ?? 0))

  /** Sends 8 requests of one client, alternating between two instances; returns them in order. */
  async function alternate(store: 'memory' | 'postgres') {
    const pair = [await limitedPlatform(store), await limitedPlatform(store)] as const
    platforms.push(...pair)
    if (store === 'postgres') await warmStores(pair)
    const client = await pair[0].newTenant(['providers'])
    const token = await tokenFor(pair[0], client)
    const responses: HttpResponse[] = []
    for (let i = 0; i < 8; i++)
      responses.push(await pair[i % 2]!.http.get('/v1/providers', { token, headers: from(freshAddress()) }))
    return { responses, clientId: client.client_id, db: pair[0].api.deps.db }
  }

  it('share one limit on the postgres store, counted in rate_limits', async () => {
    const { responses, clientId, db } = await alternate('postgres')
    expect(responses.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 429, 429, 429])
    expect(responses.map((r) => limits(r).remaining)).toEqual([4, 3, 2, 1, 0, 0, 0, 0])
    const row = await db.rateLimit.findUnique({ where: { key: `api:client:${clientId}` } })
    expect(row?.points).toBeGreaterThan(LIMIT)
    expect(Number(row?.expire)).toBeGreaterThan(Date.now())
    expect(Number(row?.expire)).toBeLessThanOrEqual(Date.now() + 60_000)
  })

  it('let exactly the limit through when one client races both postgres instances', async () => {
    const pair = [await limitedPlatform('postgres'), await limitedPlatform('postgres')] as const
    platforms.push(...pair)
    await warmStores(pair)
    const token = await tokenFor(pair[0], await pair[0].newTenant(['providers']))
    const errorsBefore = await storeErrorCounts(pair)
    const burst = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        pair[i % 2]!.http.get('/v1/providers', { token, headers: from(freshAddress()) })
      )
    )
    // The shared count holds the limit exactly. A statement that outran the store's one-second budget on a loaded
    // machine (counted in the metric) was counted in its process at the outage limit instead, as designed.
    const storeErrors = (await storeErrorCounts(pair)).map((n, i) => n - errorsBefore[i]!)
    const allowedCount = burst.filter((r) => r.status === 200).length
    if (storeErrors.every((n) => n === 0)) expect(allowedCount).toBe(LIMIT)
    else expect(allowedCount).toBeLessThanOrEqual(LIMIT + pair.length * outageLimit(LIMIT))
    expect(burst.filter((r) => r.status === 429)).toHaveLength(12 - allowedCount)
    // Every refusal says nothing remains. What an allowed answer says remains is each instance's view at that moment,
    // which depends on how the two instances' statements interleaved: exact on a quiet machine ([0, 1, 2, 3, 4]), but a
    // loaded CI run saw [0, 0, 1, 3, 4] with the limit itself held exactly. Each is below the limit and never negative.
    // (A count that fell back to a process's outage limit may also refuse before the shared limit is reached: 4 allowed
    // and 8 refused in one loaded CI run, with the store's timeouts in the metric.)
    expect(burst.filter((r) => r.status === 429).map((r) => limits(r).remaining)).toEqual(
      Array(12 - allowedCount).fill(0)
    )
    for (const allowed of burst.filter((r) => r.status === 200)) {
      expect(limits(allowed).remaining).toBeGreaterThanOrEqual(0)
      expect(limits(allowed).remaining).toBeLessThan(LIMIT)
    }
  })

  it('count on their own with the memory store (the default of the embedded database)', async () => {
    const { responses, clientId, db } = await alternate('memory')
    const statuses = responses.map((r) => r.status)
    const refusals = JSON.stringify(responses.filter((r) => r.status !== 200).map((r) => r.body))
    expect(statuses, refusals).toEqual([200, 200, 200, 200, 200, 200, 200, 200])
    expect(await db.rateLimit.findUnique({ where: { key: `api:client:${clientId}` } })).toBeNull()
  })
})

describe('postgres store leases', () => {
  const silent = { warn: () => undefined } as unknown as Logger

  it('takes a block of points per statement and spends it in memory, counting down what the client may still send', async () => {
    const limiter = createRateLimiter({
      store: 'postgres',
      limit: 100,
      connectionString: testDatabaseUrl(),
      logger: silent,
    })
    const key = `lease:${randomInt(1e9)}`
    const db = (await import('../../infra/db.ts')).createDb(testDatabaseUrl(), 1)
    try {
      const decisions = []
      for (let i = 0; i < 12; i++) decisions.push(await limiter.consume(key))
      expect(decisions.map((d) => d.remaining)).toEqual(Array.from({ length: 12 }, (_, i) => 99 - i))
      // A twentieth of the limit per block: 12 requests took three blocks of 5, three statements instead of 12.
      expect((await db.rateLimit.findUnique({ where: { key: `api:${key}` } }))?.points).toBe(15)
    } finally {
      await limiter.close()
      await db.$disconnect()
    }
  })

  it('never allows more than the limit across instances, and refuses at most (instances - 1) × block early', async () => {
    const instances = [0, 1, 2].map(() =>
      createRateLimiter({ store: 'postgres', limit: 40, connectionString: testDatabaseUrl(), logger: silent })
    )
    const key = `lease:${randomInt(1e9)}`
    try {
      // Concurrent requests on every instance, more than the limit in all.
      const decisions = (
        await Promise.all(
          instances.map((limiter) => Promise.all(Array.from({ length: 30 }, () => limiter.consume(key))))
        )
      ).flat()
      const allowed = decisions.filter((d) => d.allowed).length
      expect(allowed).toBeLessThanOrEqual(40)
      expect(allowed).toBeGreaterThanOrEqual(40 - 2 * 2)
      expect(decisions.filter((d) => !d.allowed).every((d) => d.remaining === 0 && d.retryAfterSeconds >= 1)).toBe(true)
    } finally {
      await Promise.all(instances.map((limiter) => limiter.close()))
    }
  })
})

describe('postgres store outage', () => {
  it('counts in the process at the outage limit while the database is unreachable, and shares the count again when it returns', async () => {
    const url = new URL(testDatabaseUrl())
    const proxy = await startTcpProxy(`${url.hostname}:${url.port || 5432}`)
    const [host, port] = proxy.address.split(':') as [string, string]
    url.hostname = host
    url.port = port
    const warnings: string[] = []
    const logger = { warn: (_: unknown, message: string) => warnings.push(message) } as unknown as Logger
    let storeErrors = 0
    const limiter = createRateLimiter({
      store: 'postgres',
      limit: 20,
      connectionString: url.toString(),
      logger,
      onStoreError: () => (storeErrors += 1),
    })
    const key = `outage:${randomInt(1e9)}`
    const db = (await import('../../infra/db.ts')).createDb(testDatabaseUrl(), 1)
    try {
      expect(await limiter.consume(key)).toMatchObject({ allowed: true, remaining: 19 })
      expect((await db.rateLimit.findUnique({ where: { key: `api:${key}` } }))?.points).toBe(1)

      proxy.cut()
      const started = performance.now()
      const during = [await limiter.consume(key), await limiter.consume(key), await limiter.consume(key)]
      expect(performance.now() - started).toBeLessThan(3500)
      // The in-process count starts afresh, at a tenth of the limit: requests keep being answered and limited, and
      // N instances together do not hand out N × the limit.
      expect(during.map((d) => [d.allowed, d.limit, d.remaining])).toEqual([
        [true, 2, 1],
        [true, 2, 0],
        [false, 2, 0],
      ])
      expect(storeErrors).toBe(3)
      expect(warnings.filter((w) => /rate-limit store unavailable/.test(w))).toHaveLength(1)

      proxy.restore()
      expect(await limiter.consume(key)).toMatchObject({ allowed: true, limit: 20, remaining: 18 })
      expect((await db.rateLimit.findUnique({ where: { key: `api:${key}` } }))?.points).toBe(2)
    } finally {
      await limiter.close()
      await db.$disconnect()
      await proxy.close()
    }
  })
})

describe('request bodies', () => {
  let platform: Platform
  let token: string

  beforeAll(async () => {
    platform = await startPlatform({ withWorker: false })
    token = await platform.token(await platform.newTenant(['children', 'providers', 'bookings']))
  })

  afterAll(async () => {
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
    await platform?.stop()
  })

  const LIMIT_BYTES = 1024 * 1024
  const bodyOfSize = (bytes: number) => {
    const skeleton = JSON.stringify({ firstName: '', lastName: 'Okafor', dateOfBirth: '2023-04-18' })
    return JSON.stringify({
      firstName: 'x'.repeat(bytes - skeleton.length),
      lastName: 'Okafor',
      dateOfBirth: '2023-04-18',
    })
  }

  it('refuses a body over 1 MiB with a 413 problem document, with or without Content-Length', async () => {
    const tooLarge = bodyOfSize(LIMIT_BYTES + 1)
    expect(Buffer.byteLength(tooLarge)).toBe(LIMIT_BYTES + 1)
    const declared = await platform.http.post('/v1/children', {
      token,
      raw: tooLarge,
      headers: { 'Content-Type': 'application/json', 'Idempotency-Key': 'too-large' },
    })
    expect(declared.status).toBe(413)
    expect(declared.headers.get('content-type')).toMatch(PROBLEM)
    expect(declared.body).toMatchObject({ code: 'payload_too_large', status: 413, instance: '/v1/children' })
    expect(declared.body.detail).toContain(String(LIMIT_BYTES))
    expect(declared.headers.get('x-ratelimit-remaining')).not.toBeNull()

    // Chunked: no length announced, the bytes are counted as they arrive.
    const bytes = new TextEncoder().encode(tooLarge)
    const chunked = await fetch(`${platform.api.url}/v1/children`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: new ReadableStream({
        start(controller) {
          for (let offset = 0; offset < bytes.length; offset += 64 * 1024)
            controller.enqueue(bytes.slice(offset, offset + 64 * 1024))
          controller.close()
        },
      }),
      duplex: 'half',
    })
    expect(chunked.status).toBe(413)
    expect(((await chunked.json()) as { code: string }).code).toBe('payload_too_large')

    // The token endpoint is bounded too.
    const token413 = await platform.http.post('/oauth/token', {
      raw: tooLarge,
      headers: { 'Content-Type': 'application/json' },
    })
    expect(token413.status).toBe(413)
  })

  it('reads a body of exactly 1 MiB (then validates it)', async () => {
    const atLimit = bodyOfSize(LIMIT_BYTES)
    expect(Buffer.byteLength(atLimit)).toBe(LIMIT_BYTES)
    const response = await platform.http.post('/v1/children', {
      token,
      raw: atLimit,
      headers: { 'Content-Type': 'application/json' },
    })
    expect(response.status).toBe(400)
    expect(response.body.code).toBe('validation_error')
    expect(response.body.errors.map((e: { path: string }) => e.path)).toEqual(['firstName'])
  })

  it('answers 415 to a JSON route sent another media type or none, and 400 to malformed JSON', async () => {
    for (const path of ['/v1/children', '/v1/providers', '/v1/appointments']) {
      for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml']) {
        const response = await platform.http.post(path, { token, raw: 'a=b', headers: { 'Content-Type': type } })
        expect(response.status, `${path} ${type}`).toBe(415)
        expect(response.headers.get('content-type')).toMatch(PROBLEM)
        expect(response.body).toMatchObject({ code: 'unsupported_media_type', status: 415, instance: path })
      }
      // Bytes without any Content-Type (fetch labels a string body text/plain, a byte array not at all).
      const untyped = await fetch(`${platform.api.url}${path}`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}` },
        body: new TextEncoder().encode('{}'),
      })
      expect(untyped.status, `${path} without Content-Type`).toBe(415)
      expect(((await untyped.json()) as { code: string }).code).toBe('unsupported_media_type')
      const malformed = await platform.http.post(path, {
        token,
        raw: '{"name": ',
        headers: { 'Content-Type': 'application/json' },
      })
      expect(malformed.status, path).toBe(400)
      expect(malformed.headers.get('content-type')).toMatch(PROBLEM)
      expect(malformed.body).toMatchObject({ code: 'invalid_json', status: 400, instance: path })
    }
  })
})

describe('request heads', () => {
  let platform: Platform

  beforeAll(async () => {
    platform = await startPlatform({ withWorker: false })
  })

  afterAll(async () => {
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
    await platform?.stop()
  })

  /** Sends `head` on a raw socket and reads the whole answer until the server closes; a reset is the error code. */
  const exchange = (head: string) =>
    new Promise<string>((resolve) => {
      const socket = net.connect(platform.api.port, '127.0.0.1', () => socket.write(head))
      let answer = ''
      socket.setEncoding('utf8')
      socket.on('data', (chunk: string) => (answer += chunk))
      socket.on('end', () => resolve(answer))
      socket.on('error', (error: NodeJS.ErrnoException) => resolve(`error ${error.code}`))
    })
  const bodyOf = (answer: string) => JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))

  it('answers a head over 16 KiB with a 431 problem the client reads in full, never a reset connection', async () => {
    // Node's own answer is followed by a destroyed socket, which resets a client still sending: about a third of
    // these exchanges failed that way before api/client-errors.ts (Schemathesis's fuzzing phase saw the same).
    for (let i = 0; i < 20; i++) {
      const answer = await exchange(
        `GET /v1/availability?providerIds=${'a'.repeat(100_000 + i * 997)} HTTP/1.1\r\nHost: api\r\n\r\n`
      )
      expect(answer.slice(0, 13), answer.slice(0, 80)).toBe('HTTP/1.1 431 ')
      expect(answer).toMatch(/\r\nContent-Type: application\/problem\+json\r\n/)
      expect(answer).toMatch(/\r\nX-Request-Id: req_[0-9a-f]{32}\r\n/)
      expect(bodyOf(answer)).toMatchObject({
        type: 'http://localhost:3000/errors/request_header_fields_too_large',
        status: 431,
        code: 'request_header_fields_too_large',
        requestId: expect.stringMatching(/^req_/),
      })
    }
  })

  it('answers a request line that is not HTTP with a 400 problem, and keeps serving', async () => {
    const answer = await exchange('GET /v1/children HTTP/1.1\r\nHost: api\r\nContent-Length: nope\r\n\r\n')
    expect(answer.slice(0, 13)).toBe('HTTP/1.1 400 ')
    expect(bodyOf(answer)).toMatchObject({ status: 400, code: 'malformed_request' })
    expect((await platform.http.get('/health')).status).toBe(200)
  })
})

describe('OpenAPI description', () => {
  let platform: Platform

  beforeAll(async () => {
    platform = await startPlatform({ withWorker: false })
  })

  afterAll(async () => {
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
    await platform?.stop()
  })

  it('documents the rate-limit headers on every response and a 429 with Retry-After on every operation', async () => {
    const { body: document } = await platform.http.get('/openapi.json')
    expect(Object.keys(document.components.schemas)).toContain('Problem')
    type Response = { headers?: Record<string, unknown>; content?: Record<string, unknown> }
    const operations = Object.values(
      document.paths as Record<string, Record<string, { responses: Record<string, Response> }>>
    ).flatMap((item) => Object.values(item))
    expect(operations.length).toBeGreaterThan(5)
    for (const operation of operations) {
      const tooMany = operation.responses['429']
      expect(tooMany?.headers).toHaveProperty('Retry-After')
      expect(tooMany?.content).toHaveProperty(['application/problem+json'])
      for (const [status, response] of Object.entries(operation.responses)) {
        // Node's HTTP parser answers an oversized request head itself, before any middleware runs; the description
        // says so, and that answer is the one response without the headers.
        if (status === '431') continue
        expect(Object.keys(response.headers ?? {})).toEqual(
          expect.arrayContaining(['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'])
        )
      }
    }
  })
})
