/**
 * The SDK's call loop (sdks/typescript/src/transport.ts, credentials.ts) against a scripted HTTP peer on loopback, for the
 * failures the real API cannot be made to produce on demand (a 500, a hung attempt, a 401 that persists): the same
 * Idempotency-Key on every attempt, bounded attempts and time, the single 401 retry, one token request shared by
 * concurrent calls, cancellation. The behaviour against the real API is in test/integration/sdk.int.test.ts.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  ApiConnectionError,
  ApiError,
  TherapyCareClient,
  type ClientOptions,
} from '../../../../../sdks/typescript/src/index.ts'

interface Seen {
  method: string
  path: string
  headers: IncomingMessage['headers']
  body: string
}
type Handler = (req: Seen, res: ServerResponse) => void

let server: Server
let baseUrl: string
let seen: Seen[]
let script: Handler[]
let fallback: Handler

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

const json =
  (status: number, body: unknown, headers: Record<string, string> = {}): Handler =>
  (_req, res) => {
    const problem = status >= 400 && typeof body === 'object' && body !== null && 'code' in body
    res.writeHead(status, { 'Content-Type': problem ? 'application/problem+json' : 'application/json', ...headers })
    res.end(JSON.stringify(body))
  }
const problem = (status: number, code: string, headers: Record<string, string> = {}, extra: object = {}) =>
  json(
    status,
    {
      type: `http://api.test/problems/${code}`,
      title: code,
      status,
      detail: `${code} happened`,
      code,
      requestId: `req_${code}`,
      ...extra,
    },
    headers
  )
const tokens = (n: number) =>
  json(200, {
    access_token: `at_${n}`,
    token_type: 'Bearer',
    expires_in: 900,
    scope: 'bookings',
    refresh_token: `rt_${n}`,
  })

beforeEach(async () => {
  seen = []
  script = []
  let issued = 0
  fallback = (req, res) =>
    req.path === '/oauth/token' ? tokens(++issued)(req, res) : json(200, { ok: true })(req, res)
  server = createServer((req, res) => {
    let body = ''
    req.on('data', (chunk: Buffer) => (body += chunk.toString()))
    req.on('end', () => {
      const entry = { method: req.method!, path: req.url!, headers: req.headers, body }
      seen.push(entry)
      const next = entry.path === '/oauth/token' ? undefined : script.shift()
      ;(next ?? fallback)(entry, res)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})

afterEach(async () => {
  server.closeAllConnections()
  await new Promise((resolve) => server.close(resolve))
})

const client = (options: Partial<ClientOptions> = {}) =>
  new TherapyCareClient({
    baseUrl,
    clientId: 'cli_1',
    clientSecret: 'secret',
    retry: { baseDelayMs: 5, maxDelayMs: 20 },
    ...options,
  })
const calls = (path: string) => seen.filter((s) => s.path === path)
const body = { childId: 'chd_1', providerId: 'prv_1', startsAt: '2026-12-01T09:00:00-06:00' }

describe('writes', () => {
  it('repeats a write after a 503 with the same generated Idempotency-Key, and a new key per call', async () => {
    script.push(problem(503, 'dependency_unavailable', { 'Retry-After': '0' }), json(201, { id: 'apt_1' }))
    const api = client()
    expect(await api.request('POST', '/v1/appointments', { body })).toEqual({ id: 'apt_1' })
    const attempts = calls('/v1/appointments')
    expect(attempts).toHaveLength(2)
    const key = attempts[0]!.headers['idempotency-key']
    expect(key).toMatch(UUID_V4)
    expect(attempts[1]!.headers['idempotency-key']).toBe(key)
    expect(attempts.map((a) => JSON.parse(a.body))).toEqual([body, body])

    await api.appointments.create(body)
    await api.appointments.create(body, { idempotencyKey: 'order-42-booking' })
    const keys = calls('/v1/appointments').map((a) => a.headers['idempotency-key'])
    expect(new Set(keys).size).toBe(3)
    expect(keys[3]).toBe('order-42-booking')
    expect(calls('/oauth/token')).toHaveLength(1) // one token for every call
  })

  it('repeats a write whose connection dropped before any answer', async () => {
    script.push((_req, res) => res.socket!.destroy(), json(201, { id: 'apt_2' }))
    expect(await client().appointments.create(body)).toEqual({ id: 'apt_2' })
    const [first, second] = calls('/v1/appointments')
    expect(second!.headers['idempotency-key']).toBe(first!.headers['idempotency-key'])
  })

  it('repeats an attempt that exceeded its time limit', async () => {
    script.push(() => undefined, json(200, { id: 'chd_1' }))
    const started = Date.now()
    expect(await client({ timeoutMs: 300 }).children.get('chd_1')).toEqual({ id: 'chd_1' })
    expect(calls('/v1/children/chd_1')).toHaveLength(2)
    expect(Date.now() - started).toBeGreaterThanOrEqual(300)
  })
})

describe('bounds', () => {
  it('stops after maxAttempts and throws the last problem with its fields', async () => {
    fallback = (req, res) =>
      req.path === '/oauth/token' ? tokens(1)(req, res) : problem(500, 'internal_error')(req, res)
    const error = await client({ retry: { maxAttempts: 3, baseDelayMs: 1 } })
      .children.get('chd_1')
      .catch((e: unknown) => e)
    expect(calls('/v1/children/chd_1')).toHaveLength(3)
    expect(error).toBeInstanceOf(ApiError)
    expect(error).toMatchObject({
      status: 500,
      code: 'internal_error',
      title: 'internal_error',
      detail: 'internal_error happened',
      requestId: 'req_internal_error',
    })
  })

  it('does not sleep past the time budget: a 429 asking for 30 s fails at once within a 2 s budget', async () => {
    script.push(problem(429, 'rate_limited', { 'Retry-After': '30' }))
    const started = Date.now()
    const error = await client({ retry: { maxElapsedMs: 2000 } })
      .children.get('chd_1')
      .catch((e: unknown) => e)
    expect(Date.now() - started).toBeLessThan(1000)
    expect(error).toMatchObject({ status: 429, code: 'rate_limited' })
    expect((error as ApiError).headers.get('retry-after')).toBe('30')
    expect(calls('/v1/children/chd_1')).toHaveLength(1)
  })

  it('waits out a short 429 and then succeeds', async () => {
    script.push(problem(429, 'rate_limited', { 'Retry-After': '1' }), json(200, { id: 'chd_1' }))
    const retries: number[] = []
    const started = Date.now()
    expect(await client({ onRetry: (e) => retries.push(e.delayMs) }).children.get('chd_1')).toEqual({ id: 'chd_1' })
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000)
    expect(retries).toHaveLength(1)
    expect(retries[0]).toBeGreaterThanOrEqual(1000)
    expect(retries[0]).toBeLessThan(1250)
  })

  it('leaves a client error to the caller, with the per-field errors', async () => {
    const errors = [{ path: 'startsAt', code: 'invalid_string', message: 'Not a date-time.' }]
    script.push(problem(400, 'validation_error', {}, { errors }))
    const error = await client()
      .appointments.create(body)
      .catch((e: unknown) => e)
    expect(error).toMatchObject({ status: 400, code: 'validation_error', errors })
    expect(calls('/v1/appointments')).toHaveLength(1)
  })

  it('reports a call that never got an answer as ApiConnectionError after its attempts', async () => {
    const dead = new TherapyCareClient({
      baseUrl: 'http://127.0.0.1:1',
      apiKey: 'key_x',
      retry: { maxAttempts: 2, baseDelayMs: 1 },
    })
    const error = await dead.children.get('chd_1').catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ApiConnectionError)
    expect(error).toMatchObject({ attempts: 2 })
    expect((error as Error).message).toMatch(/^GET \/v1\/children\/\{id\} got no answer after 2 attempts/)
  })

  it('stops at once, waits included, when the caller aborts', async () => {
    script.push(problem(503, 'dependency_unavailable', { 'Retry-After': '20' }))
    const controller = new AbortController()
    setTimeout(() => controller.abort(new Error('caller gave up')), 200)
    const started = Date.now()
    await expect(client().children.get('chd_1', { signal: controller.signal })).rejects.toThrow('caller gave up')
    expect(Date.now() - started).toBeLessThan(2000)
  })
})

describe('credentials', () => {
  it('renews once after a 401 (refresh grant) and gives up when the new token is refused too', async () => {
    fallback = (req, res) =>
      req.path === '/oauth/token'
        ? tokens(calls('/oauth/token').length)(req, res)
        : problem(401, 'invalid_token')(req, res)
    const error = await client()
      .children.get('chd_1')
      .catch((e: unknown) => e)
    expect(error).toMatchObject({ status: 401, code: 'invalid_token' })
    expect(calls('/v1/children/chd_1').map((c) => c.headers.authorization)).toEqual(['Bearer at_1', 'Bearer at_2'])
    expect(calls('/oauth/token').map((c) => JSON.parse(c.body))).toEqual([
      { grant_type: 'client_credentials', client_id: 'cli_1', client_secret: 'secret' },
      { grant_type: 'refresh_token', refresh_token: 'rt_1', client_id: 'cli_1', client_secret: 'secret' },
    ])
  })

  it('does not retry a 401 with an API key, which cannot be renewed', async () => {
    script.push(problem(401, 'invalid_token'))
    await expect(client({ clientId: undefined, apiKey: 'key_1' }).children.get('chd_1')).rejects.toMatchObject({
      status: 401,
    })
    expect(calls('/v1/children/chd_1')).toHaveLength(1)
    expect(calls('/v1/children/chd_1')[0]!.headers.authorization).toBe('Bearer key_1')
  })

  it('asks for one token for many concurrent calls', async () => {
    const api = client({ scope: ['children', 'bookings'] })
    await Promise.all(Array.from({ length: 8 }, (_, i) => api.children.get(`chd_${i}`)))
    expect(calls('/oauth/token')).toHaveLength(1)
    expect(JSON.parse(calls('/oauth/token')[0]!.body)).toMatchObject({ scope: 'children bookings' })
  })

  it('surfaces a refused client as the OAuth error, without calling the API', async () => {
    fallback = (req, res) =>
      req.path === '/oauth/token'
        ? json(401, { error: 'invalid_client', error_description: 'Client authentication failed.' })(req, res)
        : json(200, {})(req, res)
    const error = await client()
      .children.get('chd_1')
      .catch((e: unknown) => e)
    expect(error).toMatchObject({ status: 401, code: 'invalid_client', detail: 'Client authentication failed.' })
    expect(calls('/v1/children/chd_1')).toHaveLength(0)
  })
})
