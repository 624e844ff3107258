/**
 * /v0 over HTTP against the real API, on both sides of its sunset (the API's clock is injected): /v0/children/{id}
 * and /v0/payments are aliases of their /v1 successors with Deprecation, Sunset and Link headers before
 * 2026-12-01T00:00:00Z, 410 `version_sunset` from then.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { startPlatform, type Platform } from '../support/platform.ts'

const JUST_BEFORE = new Date('2026-11-30T23:59:59Z')
const SUNSET = new Date('2026-12-01T00:00:00Z')

let now = JUST_BEFORE
let platform: Platform
let token: string
let childId: string
let moneyToken: string
const paymentIds: string[] = []

beforeAll(async () => {
  platform = await startPlatform({ withWorker: false, clock: () => now })
  const client = await platform.newTenant(['children'])
  // Issued at 23:59:59, valid for 15 minutes: the same token is good on both sides of the sunset.
  token = await platform.token(client)
  const child = await platform.http.post('/v1/children', {
    token,
    body: { firstName: 'Maya', lastName: 'Okafor', dateOfBirth: '2023-04-18' },
  })
  expect(child.status).toBe(201)
  childId = child.body.id

  const money = await platform.newTenant(['orders', 'payments'])
  moneyToken = await platform.token(money)
  const order = await platform.http.post('/v1/orders', {
    token: moneyToken,
    body: { status: 'OPEN', lines: [{ kind: 'SESSION', description: 'Session', unitAmount: 10_000 }] },
  })
  expect(order.status).toBe(201)
  for (const amount of [4_000, 6_000]) {
    const payment = await platform.http.post('/v1/payments', {
      token: moneyToken,
      body: { orderId: order.body.id, amount, currency: 'USD', method: 'CASH' },
    })
    expect(payment.status).toBe(201)
    paymentIds.push(payment.body.id)
  }
})

beforeEach(() => {
  now = JUST_BEFORE
})

afterAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await platform?.stop()
})

describe('before the sunset', () => {
  it('answers GET /v0/children/{id} exactly as /v1 does, with Deprecation, Sunset and Link headers', async () => {
    const v0 = await platform.http.get(`/v0/children/${childId}`, { token })
    const v1 = await platform.http.get(`/v1/children/${childId}`, { token })
    expect(v0.status).toBe(200)
    expect(v0.body).toEqual(v1.body)
    expect(v0.body).toMatchObject({ id: childId, firstName: 'Maya', dateOfBirth: '2023-04-18' })

    expect(v0.headers.get('deprecation')).toBe('@1735689600')
    expect(v0.headers.get('sunset')).toBe('Tue, 01 Dec 2026 00:00:00 GMT')
    const link = v0.headers.get('link')
    expect(link).toContain(`</v1/children/${childId}>; rel="successor-version"`)
    expect(link).toContain('<http://localhost:3000/openapi.json>; rel="deprecation"')
    expect(v0.headers.get('x-api-version')).toBe('2.3.0')

    // The successor itself is not deprecated.
    expect(v1.headers.get('deprecation')).toBeNull()
    expect(v1.headers.get('sunset')).toBeNull()
  })

  it("keeps /v1's rules: another tenant's child is 404, no token 401, a token without the scope 403", async () => {
    const other = await platform.newTenant(['children.read'])
    const hidden = await platform.http.get(`/v0/children/${childId}`, { token: await platform.token(other) })
    expect(hidden.status).toBe(404)
    expect(hidden.body).toMatchObject({ code: 'not_found', instance: `/v0/children/${childId}` })
    expect(JSON.stringify(hidden.body)).not.toContain('Maya')
    expect(hidden.headers.get('sunset')).toBe('Tue, 01 Dec 2026 00:00:00 GMT')

    const anonymous = await platform.http.get(`/v0/children/${childId}`)
    expect(anonymous.status).toBe(401)
    expect(anonymous.body.code).toBe('invalid_token')
    expect(anonymous.headers.get('www-authenticate')).toMatch(/^Bearer/)

    const providersOnly = await platform.newTenant(['providers'])
    const forbidden = await platform.http.get(`/v0/children/${childId}`, { token: await platform.token(providersOnly) })
    expect(forbidden.status).toBe(403)
    expect(forbidden.body.code).toBe('insufficient_scope')
  })

  it('answers GET /v0/payments exactly as /v1/payments does, query included, with the deprecation headers', async () => {
    const v0 = await platform.http.get('/v0/payments', { token: moneyToken })
    const v1 = await platform.http.get('/v1/payments', { token: moneyToken })
    expect(v0.status).toBe(200)
    expect(v0.body).toEqual(v1.body)
    expect(v0.body.data.map((p: { id: string }) => p.id)).toEqual([...paymentIds].reverse())

    const page = await platform.http.get('/v0/payments?limit=1&sort=amount', { token: moneyToken })
    expect(page.body.data.map((p: { amount: number }) => p.amount)).toEqual([4_000])
    const next = await platform.http.get(`/v0/payments?limit=1&sort=amount&cursor=${page.body.nextCursor}`, {
      token: moneyToken,
    })
    expect(next.body).toEqual(
      (
        await platform.http.get(`/v1/payments?limit=1&sort=amount&cursor=${page.body.nextCursor}`, {
          token: moneyToken,
        })
      ).body
    )
    expect(next.body.data.map((p: { amount: number }) => p.amount)).toEqual([6_000])

    expect(v0.headers.get('deprecation')).toBe('@1735689600')
    expect(v0.headers.get('sunset')).toBe('Tue, 01 Dec 2026 00:00:00 GMT')
    expect(v0.headers.get('link')).toContain('</v1/payments>; rel="successor-version"')
    expect(v1.headers.get('deprecation')).toBeNull()
  })

  it("keeps /v1/payments' rules: only the caller's tenant, 401 without a token, 403 without the scope", async () => {
    const other = await platform.token(await platform.newTenant(['payments.read']))
    const theirs = await platform.http.get('/v0/payments', { token: other })
    expect(theirs.status).toBe(200)
    expect(theirs.body.data).toEqual([])
    expect((await platform.http.get('/v0/payments')).status).toBe(401)
    const forbidden = await platform.http.get('/v0/payments', { token })
    expect(forbidden.status).toBe(403)
    expect(forbidden.body.code).toBe('insufficient_scope')
    expect(forbidden.headers.get('sunset')).toBe('Tue, 01 Dec 2026 00:00:00 GMT')
  })
})

describe('from the sunset', () => {
  it('serves the last millisecond before it', async () => {
    now = new Date(SUNSET.getTime() - 1)
    expect((await platform.http.get(`/v0/children/${childId}`, { token })).status).toBe(200)
  })

  it('answers 410 version_sunset naming /v1/children/{id}, while /v1 answers as before', async () => {
    now = SUNSET
    const gone = await platform.http.get(`/v0/children/${childId}`, { token })
    expect(gone.status).toBe(410)
    expect(gone.headers.get('content-type')).toMatch(/^application\/problem\+json/)
    expect(gone.body).toMatchObject({
      type: 'http://localhost:3000/errors/version_sunset',
      status: 410,
      code: 'version_sunset',
      instance: `/v0/children/${childId}`,
    })
    expect(gone.body.detail).toContain(`/v1/children/${childId}`)
    expect(gone.body.detail).toContain('2026-12-01T00:00:00.000Z')
    expect(gone.body.requestId).toBe(gone.headers.get('x-request-id'))
    expect(gone.headers.get('link')).toBe(`</v1/children/${childId}>; rel="successor-version"`)
    expect(JSON.stringify(gone.body)).not.toContain('Maya')

    const current = await platform.http.get(`/v1/children/${childId}`, { token })
    expect(current.status).toBe(200)
    expect(current.body.id).toBe(childId)
  })

  it('answers 410 version_sunset for /v0/payments naming /v1/payments, which still answers', async () => {
    now = SUNSET
    const gone = await platform.http.get('/v0/payments?limit=1', { token: moneyToken })
    expect(gone.status).toBe(410)
    expect(gone.body).toMatchObject({ code: 'version_sunset', status: 410, instance: '/v0/payments' })
    expect(gone.body.detail).toContain('/v1/payments')
    expect(gone.body.data).toBeUndefined()
    expect(gone.headers.get('link')).toBe('</v1/payments>; rel="successor-version"')
    // Gone whatever the scope: the sunset is checked before the scope.
    expect((await platform.http.get('/v0/payments', { token })).status).toBe(410)
    const current = await platform.http.get('/v1/payments', { token: moneyToken })
    expect(current.status).toBe(200)
    expect(current.body.data).toHaveLength(2)
  })

  it('is gone for every authenticated caller, whatever the id or scope; without a token it is still 401', async () => {
    now = new Date('2027-03-01T00:00:00Z')
    const later = await platform.token(await platform.newTenant(['providers']))
    const unknown = await platform.http.get('/v0/children/chd_does_not_exist', { token: later })
    expect(unknown.status).toBe(410)
    expect(unknown.body.detail).toContain('/v1/children/chd_does_not_exist')

    const anonymous = await platform.http.get(`/v0/children/${childId}`)
    expect(anonymous.status).toBe(401)
  })
})

describe('OpenAPI description', () => {
  it('documents /v0/children/{id} as deprecated: headers, 410 and the scope of its successor', async () => {
    const { body: document } = await platform.http.get('/openapi.json')
    const v0 = document.paths['/v0/children/{id}'].get
    const v1 = document.paths['/v1/children/{id}'].get
    expect(v0.deprecated).toBe(true)
    expect(v1.deprecated).toBeUndefined()
    expect(v0.security).toEqual(v1.security)
    expect(Object.keys(v0.responses).sort()).toEqual([...Object.keys(v1.responses), '410'].sort())
    expect(Object.keys(v0.responses['200'].headers)).toEqual(expect.arrayContaining(['Deprecation', 'Sunset', 'Link']))
    expect(v0.responses['200'].content).toEqual(v1.responses['200'].content)
    expect(v0.description).toContain('/v1/children/{id}')
  })

  it('documents /v0/payments as a deprecated alias of GET /v1/payments, with its query parameters', async () => {
    const { body: document } = await platform.http.get('/openapi.json')
    const v0 = document.paths['/v0/payments'].get
    const v1 = document.paths['/v1/payments'].get
    expect(v0.deprecated).toBe(true)
    expect(v0.security).toEqual(v1.security)
    expect(v0.parameters).toEqual(v1.parameters)
    expect(Object.keys(v0.responses).sort()).toEqual([...Object.keys(v1.responses), '410'].sort())
    expect(Object.keys(v0.responses['200'].headers)).toEqual(expect.arrayContaining(['Deprecation', 'Sunset', 'Link']))
    expect(v0.description).toContain('/v1/payments')
    expect(Object.keys(document.paths['/v0/payments'])).toEqual(['get'])
  })
})
