/**
 * The TypeScript SDK (sdks/typescript/) against the real running API, database and token endpoint: typed calls, tokens obtained
 * and renewed by the SDK (refresh before expiry, client credentials when the refresh token is refused, one retry
 * after a 401), writes repeated with their Idempotency-Key after a lost answer and after a real 503, pagination,
 * and problem documents surfaced as ApiError. The SDK's fetch is wrapped only to observe what goes over the wire.
 */
import net from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ApiError, TherapyCareClient, type ClientOptions } from '../../sdks/typescript/src/index.ts'
import type { ProvisionedClient } from '../../domain/tenants/provision-client.ts'
import { createChildAndProvider, futureSlot } from '../support/fixtures.ts'
import { eventually, startPlatform, type Platform } from '../support/platform.ts'
import { startTcpProxy } from '../support/tcp-proxy.ts'
import { testDatabaseLogins } from '../support/file-database.ts'

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

/** One exchange the SDK made, as seen on its side of the wire. */
interface Exchange {
  method: string
  path: string
  query: URLSearchParams
  /** 0 when no answer came. */
  status: number
  idempotencyKey: string | null
  authorization: string | null
  requestBody?: Record<string, string>
  /** The token endpoint's answer, to act on the tokens the SDK holds. */
  tokens?: { access_token: string; refresh_token: string }
  replayed: boolean
  at: number
}

/** A fetch that records every exchange and otherwise is the real fetch. */
function recordingFetch(log: Exchange[]): typeof fetch {
  return async (input, init) => {
    const headers = new Headers(init?.headers)
    const url = new URL(input instanceof Request ? input.url : input)
    const entry: Exchange = {
      method: init?.method ?? 'GET',
      path: url.pathname,
      query: url.searchParams,
      status: 0,
      idempotencyKey: headers.get('idempotency-key'),
      authorization: headers.get('authorization'),
      requestBody: typeof init?.body === 'string' ? JSON.parse(init.body) : undefined,
      replayed: false,
      at: Date.now(),
    }
    log.push(entry)
    const response = await fetch(input, init)
    entry.status = response.status
    entry.replayed = response.headers.get('idempotent-replayed') === 'true'
    if (entry.path === '/oauth/token' && response.ok)
      entry.tokens = (await response.clone().json()) as Exchange['tokens']
    return response
  }
}

let platform: Platform
let shortLived: Platform
let tenant: ProvisionedClient

const sdk = (on: Platform, who: ProvisionedClient, log: Exchange[] = [], options: Partial<ClientOptions> = {}) =>
  new TherapyCareClient({
    baseUrl: on.api.url,
    clientId: who.client_id,
    clientSecret: who.client_secret,
    fetch: recordingFetch(log),
    ...options,
  })

/** Revokes a token the way an operator or a leak response would (RFC 7009, client authenticated by HTTP Basic). */
async function revoke(on: Platform, who: ProvisionedClient, token: string, hint: 'access_token' | 'refresh_token') {
  const response = await fetch(`${on.api.url}/oauth/revoke`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/x-www-form-urlencoded',
      Authorization: `Basic ${Buffer.from(`${who.client_id}:${who.client_secret}`).toString('base64')}`,
    },
    body: new URLSearchParams({ token, token_type_hint: hint }).toString(),
  })
  expect(response.status).toBe(200)
}

const grants = (log: Exchange[]) =>
  log.filter((e) => e.path === '/oauth/token').map((e) => `${e.requestBody?.grant_type}:${e.status}`)

beforeAll(async () => {
  // No worker: the SDK's behaviour is all request/response; bookings wait in the outbox, which is fine here.
  ;[platform, shortLived] = await Promise.all([
    startPlatform({ withWorker: false }),
    startPlatform({ withWorker: false, overrides: { ACCESS_TOKEN_TTL_SECONDS: '4' } }),
  ])
  tenant = await platform.newTenant(['children', 'providers', 'bookings'])
})

afterAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await Promise.allSettled([platform?.stop(), shortLived?.stop()])
})

describe('typed calls', () => {
  it('books an appointment with one token it obtained itself, and a UUID v4 Idempotency-Key per write', async () => {
    const log: Exchange[] = []
    const api = sdk(platform, tenant, log, { scope: ['children', 'providers', 'bookings'] })
    const child = await api.children.create({ firstName: 'Maya', lastName: 'Okafor', dateOfBirth: '2023-04-18' })
    const provider = await api.providers.create({ name: 'Dana Whitfield', timeZone: 'America/Chicago' })
    const startsAt = futureSlot(12)
    const appointment = await api.appointments.create({
      childId: child.id,
      providerId: provider.id,
      type: 'THERAPY_SESSION',
      startsAt: startsAt.toISOString(),
    })
    expect(appointment).toMatchObject({
      status: 'CONFIRMED',
      childId: child.id,
      provider: { id: provider.id, name: 'Dana Whitfield' },
    })
    expect(new Date(appointment.startsAt).getTime()).toBe(startsAt.getTime())
    expect(await api.appointments.get(appointment.id)).toEqual(appointment)
    expect(await api.request('GET', '/v1/children/{id}', { params: { id: child.id } })).toMatchObject({
      firstName: 'Maya',
    })

    expect(grants(log)).toEqual(['client_credentials:200'])
    expect(log[0]!.requestBody).toMatchObject({ scope: 'children providers bookings', client_id: tenant.client_id })
    const writes = log.filter((e) => e.method === 'POST' && e.path.startsWith('/v1/'))
    expect(writes).toHaveLength(3)
    for (const write of writes) expect(write.idempotencyKey).toMatch(UUID_V4)
    expect(new Set(writes.map((w) => w.idempotencyKey)).size).toBe(3)
    expect(
      log
        .filter((e) => e.path.startsWith('/v1/'))
        .every((e) => e.authorization === `Bearer ${log[0]!.tokens!.access_token}`)
    ).toBe(true)
  })

  it('surfaces problem documents as ApiError with code, detail, per-field errors and the request id', async () => {
    const api = sdk(platform, tenant)
    const missing = await api.children.get('chd_doesnotexist').catch((e: unknown) => e)
    expect(missing).toBeInstanceOf(ApiError)
    const notFound = missing as ApiError
    expect(notFound).toMatchObject({
      status: 404,
      code: 'not_found',
      title: 'Not found',
      instance: '/v1/children/chd_doesnotexist',
    })
    expect(notFound.detail).toContain('chd_doesnotexist')
    expect(notFound.requestId).toBe(notFound.headers.get('x-request-id'))
    expect(notFound.requestId).toMatch(/^req_[0-9a-f]{32}$/)

    // The types forbid this body; the API's answer is what an untyped caller would get.
    const invalid = await api
      .requestUnchecked('POST', '/v1/children', { body: { firstName: 'Maya' } })
      .catch((e: unknown) => e)
    expect(invalid).toMatchObject({ status: 400, code: 'validation_error' })
    expect((invalid as ApiError).errors?.map((e) => e.path)).toEqual(
      expect.arrayContaining(['lastName', 'dateOfBirth'])
    )
  })
})

describe('tokens', () => {
  it('renews an access token with the refresh token before it expires, never sending an expired one', async () => {
    const client = await shortLived.newTenant(['children'])
    const log: Exchange[] = []
    const api = sdk(shortLived, client, log)
    await expect(api.children.get('chd_none')).rejects.toMatchObject({ status: 404 })
    await new Promise((resolve) => setTimeout(resolve, 4100)) // the 4-second token has expired
    await expect(api.children.get('chd_none')).rejects.toMatchObject({ status: 404 })
    expect(grants(log)).toEqual(['client_credentials:200', 'refresh_token:200'])
    expect(log.find((e) => e.requestBody?.grant_type === 'refresh_token')!.requestBody!.refresh_token).toBe(
      log[0]!.tokens!.refresh_token
    )
    expect(log.filter((e) => e.status === 401)).toEqual([])
    const [first, second] = log.filter((e) => e.path.startsWith('/v1/'))
    expect(second!.authorization).not.toBe(first!.authorization)
  })

  it('goes back to client credentials when the refresh token is refused', async () => {
    const client = await shortLived.newTenant(['children'])
    const log: Exchange[] = []
    const api = sdk(shortLived, client, log)
    await expect(api.children.get('chd_none')).rejects.toMatchObject({ status: 404 })
    await revoke(shortLived, client, log[0]!.tokens!.refresh_token, 'refresh_token')
    await new Promise((resolve) => setTimeout(resolve, 4100))
    await expect(api.children.get('chd_none')).rejects.toMatchObject({ status: 404 })
    expect(grants(log)).toEqual(['client_credentials:200', 'refresh_token:400', 'client_credentials:200'])
  })

  it('retries a 401 once, after renewing, when its access token is revoked', async () => {
    const log: Exchange[] = []
    const api = sdk(platform, tenant, log)
    const { childId } = await createChildAndProvider(platform.http, await platform.token(tenant))
    await api.children.get(childId)
    await revoke(platform, tenant, log[0]!.tokens!.access_token, 'access_token')

    expect((await api.children.get(childId)).id).toBe(childId)
    const calls = log.filter((e) => e.path === `/v1/children/${childId}`).map((e) => e.status)
    expect(calls).toEqual([200, 401, 200])
    expect(grants(log)).toEqual(['client_credentials:200', 'refresh_token:200'])
  })
})

/**
 * A loopback proxy that forwards everything except the answer to the first request whose head matches `pattern`:
 * that connection is dropped instead. The API received and processed the request; the client never hears back.
 */
async function startAnswerDroppingProxy(targetUrl: string, pattern: RegExp) {
  const target = new URL(targetUrl)
  let dropped = 0
  const server = net.createServer((client) => {
    const upstream = net.connect({ host: target.hostname, port: Number(target.port) })
    let dropThisAnswer = false
    client.on('data', (chunk: Buffer) => {
      if (dropped === 0 && pattern.test(chunk.toString('latin1'))) dropThisAnswer = true
      upstream.write(chunk)
    })
    upstream.on('data', (chunk: Buffer) => {
      if (!dropThisAnswer) return void client.write(chunk)
      dropped += 1
      client.destroy()
      upstream.destroy()
    })
    for (const s of [client, upstream]) s.on('error', () => undefined)
    client.on('close', () => upstream.destroy())
    upstream.on('close', () => client.destroy())
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    dropped: () => dropped,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

describe('writes repeated safely', () => {
  it('repeats a booking whose answer was lost with the same Idempotency-Key: one appointment, replayed answer', async () => {
    const proxy = await startAnswerDroppingProxy(platform.api.url, /^POST \/v1\/appointments /m)
    try {
      const log: Exchange[] = []
      const api = sdk(platform, tenant, log, { baseUrl: proxy.url, retry: { baseDelayMs: 50 } })
      const { childId, providerId } = await createChildAndProvider(platform.http, await platform.token(tenant))
      const { data, response } = await api.requestWithResponse('POST', '/v1/appointments', {
        body: { childId, providerId, type: 'THERAPY_SESSION', startsAt: futureSlot(20).toISOString() },
      })
      expect(proxy.dropped()).toBe(1)
      const attempts = log.filter((e) => e.path === '/v1/appointments')
      expect(attempts.map((a) => a.status)).toEqual([0, 201])
      expect(attempts[0]!.idempotencyKey).toMatch(UUID_V4)
      expect(attempts[1]!.idempotencyKey).toBe(attempts[0]!.idempotencyKey)
      // The second attempt did not book again: the API replayed the first attempt's stored answer.
      expect(response.headers.get('idempotent-replayed')).toBe('true')
      expect(data).toMatchObject({ childId, status: 'CONFIRMED' })
      expect(await platform.api.deps.db.appointment.count({ where: { childId } })).toBe(1)
    } finally {
      await proxy.close()
    }
  })

  it("repeats a booking refused with 503 while the API's database is unreachable, once it is back", async () => {
    // A third API whose only way to its database is a proxy the test cuts: its 503s are real answers of the API.
    const logins = testDatabaseLogins()
    const databaseUrl = new URL(logins.system)
    const dbProxy = await startTcpProxy(`${databaseUrl.hostname}:${databaseUrl.port}`)
    const proxied = (login: string) => {
      const url = new URL(login)
      url.host = dbProxy.address
      return url.toString()
    }
    const isolated = await startPlatform({
      withWorker: false,
      overrides: { DATABASE_URL: proxied(logins.system), DATABASE_APP_URL: proxied(logins.units) },
    })
    try {
      const client = await isolated.newTenant(['children', 'providers', 'bookings'])
      const { childId, providerId } = await createChildAndProvider(isolated.http, await isolated.token(client))
      const log: Exchange[] = []
      const retries: number[] = []
      const api = sdk(isolated, client, log, { onRetry: (event) => retries.push(event.delayMs) })
      await api.children.get(childId) // token obtained while the database is up

      dbProxy.cut()
      const booking = api.appointments.create({ childId, providerId, startsAt: futureSlot(21).toISOString() })
      await eventually(
        async () => (log.some((e) => e.path === '/v1/appointments' && e.status === 503) ? true : undefined),
        10_000,
        20
      )
      dbProxy.restore()
      const appointment = await booking

      const attempts = log.filter((e) => e.path === '/v1/appointments')
      expect(attempts[0]!.status).toBe(503)
      expect(attempts.at(-1)!.status).toBe(201)
      expect(new Set(attempts.map((a) => a.idempotencyKey)).size).toBe(1)
      expect(retries[0]).toBeGreaterThanOrEqual(5000) // the API's Retry-After: 5 is a floor
      expect(appointment.childId).toBe(childId)
      expect(await platform.api.deps.db.appointment.count({ where: { childId } })).toBe(1)
    } finally {
      dbProxy.restore()
      await isolated.stop()
      await dbProxy.close()
    }
  })
})

describe('pagination', () => {
  it('iterates every item across pages, following nextCursor, keeping filters and sort on every page', async () => {
    const client = await platform.newTenant(['children'])
    const log: Exchange[] = []
    const api = sdk(platform, client, log)
    // Each child registered starts its progress workflow: 25 children make the same three pages as 120 did, at a fifth of the cost.
    const lastNames = Array.from({ length: 25 }, (_, i) => `Okafor-${String(i).padStart(3, '0')}`)
    for (let i = 0; i < lastNames.length; i += 10) {
      await Promise.all(
        lastNames
          .slice(i, i + 10)
          .map((lastName) => api.children.create({ firstName: 'Maya', lastName, dateOfBirth: '2022-02-02' }))
      )
    }

    const seen: string[] = []
    for await (const child of api.children.list({ limit: 10, sort: '-lastName' })) seen.push(child.lastName)
    expect(seen).toEqual([...lastNames].reverse())
    const pages = log.filter((e) => e.method === 'GET' && e.path === '/v1/children')
    expect(pages).toHaveLength(3) // 10 + 10 + 5
    expect(pages.map((p) => [p.query.get('limit'), p.query.get('sort'), p.query.has('cursor')])).toEqual([
      ['10', '-lastName', false],
      ['10', '-lastName', true],
      ['10', '-lastName', true],
    ])

    const before = log.length
    const generic = await api.paginate('/v1/children', { limit: 20 }).toArray()
    expect(new Set(generic.map((c) => c.id)).size).toBe(25)
    expect(log.slice(before).map((e) => e.path)).toEqual(['/v1/children', '/v1/children']) // 20 + 5

    // Breaking out of the loop stops the requests.
    const beforeBreak = log.length
    for await (const child of api.paginate('/v1/children', { limit: 5 })) {
      expect(child.id).toMatch(/^chd_/)
      break
    }
    expect(log.length - beforeBreak).toBe(1)
  })
})
