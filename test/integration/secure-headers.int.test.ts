/**
 * Health data is neither cached nor sniffed (issue 54; security review finding 13), through the real API: every /v1
 * and /v0 answer, success or problem (404, 401), carries `Cache-Control: no-store`; every answer carries
 * `X-Content-Type-Options: nosniff`; `Strict-Transport-Security` only when the platform is served over https (its
 * PUBLIC_URL). Routes keep their own headers: the reference page's CSP, the public caching of problem-type pages.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startApi, type RunningApi } from '../../api/start-api.ts'
import { loadConfig } from '../../infra/config.ts'
import { createLogger } from '../../infra/logger.ts'
import { httpClient, type HttpResponse } from '../support/http.ts'
import { startPlatform, testEnv, type Platform } from '../support/platform.ts'

let platform: Platform
let token: string
/** A second API on the same database, configured as served over https. */
let overHttps: RunningApi

const HSTS = 'max-age=63072000; includeSubDomains'

function expectNotStoredOrSniffed(response: HttpResponse, what: string) {
  expect(response.headers.get('cache-control'), what).toBe('no-store')
  expect(response.headers.get('x-content-type-options'), what).toBe('nosniff')
}

beforeAll(async () => {
  platform = await startPlatform({ withWorker: false })
  token = await platform.token(await platform.newTenant(['children']))
  const config = loadConfig(testEnv({ PUBLIC_URL: 'https://api.example.com' }))
  overHttps = await startApi(config, createLogger(config.LOG_LEVEL, 'api'))
})

afterAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await overHttps?.stop()
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await platform?.stop()
})

describe('the versioned API', () => {
  // A balancer or client reusing a connection the moment the API closes it gets a reset (a 502 to its caller): the
  // API keeps idle connections longer than a balancer's usual 60 s, and says so in the Keep-Alive header clients read.
  it('keeps an idle connection open longer than a load balancer does, and says so', async () => {
    const read = await platform.http.get('/v1/children', { token })
    expect(read.headers.get('keep-alive')).toBe('timeout=65')
  })

  it('answers a read, a 404 problem and a 401 problem with no-store and nosniff', async () => {
    const read = await platform.http.get('/v1/children', { token })
    expect(read.status).toBe(200)
    expectNotStoredOrSniffed(read, 'GET /v1/children')

    const missing = await platform.http.get('/v1/children/chd_0000000000000000000000000000000a', { token })
    expect(missing.status).toBe(404)
    expect(missing.headers.get('content-type')).toMatch(/^application\/problem\+json/)
    expectNotStoredOrSniffed(missing, '404')

    const anonymous = await platform.http.get('/v1/children')
    expect(anonymous.status).toBe(401)
    expectNotStoredOrSniffed(anonymous, '401')

    const unknownRoute = await platform.http.get('/v1/no-such-thing', { token })
    expect(unknownRoute.status).toBe(404)
    expectNotStoredOrSniffed(unknownRoute, 'unknown /v1 route')
  })

  it('answers /v0 with no-store too', async () => {
    const v0 = await platform.http.get('/v0/children/chd_0000000000000000000000000000000a', { token })
    expect(v0.status).toBeGreaterThanOrEqual(400)
    expectNotStoredOrSniffed(v0, '/v0')
  })

  it('sends no HSTS when the platform is served over plain http (PUBLIC_URL http://localhost)', async () => {
    expect((await platform.http.get('/v1/children', { token })).headers.get('strict-transport-security')).toBeNull()
    expect((await platform.http.get('/health')).headers.get('strict-transport-security')).toBeNull()
  })
})

describe('the other routes', () => {
  it('carry nosniff and keep their own caching and CSP', async () => {
    const health = await platform.http.get('/health')
    expectNotStoredOrSniffed(health, '/health')

    const docs = await platform.http.get('/docs')
    expect(docs.headers.get('x-content-type-options')).toBe('nosniff')
    expect(docs.headers.get('content-security-policy')).toContain("default-src 'none'")

    const problemType = await platform.http.get('/errors/not_found', { headers: { Accept: 'application/json' } })
    expect(problemType.status).toBe(200)
    expect(problemType.headers.get('cache-control')).toBe('public, max-age=86400')
    expect(problemType.headers.get('x-content-type-options')).toBe('nosniff')

    const jwks = await platform.http.get('/.well-known/jwks.json')
    expect(jwks.headers.get('cache-control')).toBe('public, max-age=300')
    expect(jwks.headers.get('x-content-type-options')).toBe('nosniff')

    const tokenError = await platform.http.post('/oauth/token', { body: { grant_type: 'client_credentials' } })
    expect(tokenError.status).toBe(401)
    expect(tokenError.headers.get('cache-control')).toBe('no-store')
    expect(tokenError.headers.get('x-content-type-options')).toBe('nosniff')
  })
})

describe('served over https', () => {
  it('sends HSTS on every answer, the versioned API and the rest', async () => {
    const http = httpClient(overHttps.url)
    for (const [path, status] of [
      ['/v1/children', 401],
      ['/health', 200],
      ['/v1/no-such-thing', 401],
    ] as const) {
      const response = await http.get(path)
      expect(response.status, path).toBe(status)
      expect(response.headers.get('strict-transport-security'), path).toBe(HSTS)
      expect(response.headers.get('x-content-type-options'), path).toBe('nosniff')
    }
  })
})
