/**
 * The price list over HTTP against the real API and database: create, read, list, merge-patch and archive prices;
 * currency and key rules; and priceForService's precedence (location + type, location, tenant + type, tenant) with
 * its "not priced" answer in the location's currency, as the booking event uses it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { priceForService } from '../../domain/pricing/price-for-service.ts'
import { runInUnitOfWork } from '../../infra/unit-of-work.ts'
import { startPlatform, type Platform } from '../support/platform.ts'
import { walkPages } from '../support/walk-pages.ts'

let platform: Platform

beforeAll(async () => {
  platform = await startPlatform({ withWorker: false })
})

afterAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await platform?.stop()
})

/** A tenant of its own (one USD location), so lists and prices hold exactly what the test made. */
async function freshTenant(scopes = ['orders', 'providers']) {
  const client = await platform.newTenant(scopes)
  return { ...client, token: await platform.token(client) }
}

type Tenant = Awaited<ReturnType<typeof freshTenant>>

const createPrice = (t: Tenant, body: Record<string, unknown>) =>
  platform.http.post('/v1/prices', { token: t.token, body })
const patchPrice = (t: Tenant, id: string, body: unknown) =>
  platform.http.request('PATCH', `/v1/prices/${id}`, {
    token: t.token,
    body,
    headers: { 'Content-Type': 'application/merge-patch+json' },
  })

async function priceId(t: Tenant, body: Record<string, unknown>): Promise<string> {
  const response = await createPrice(t, { unit: 'PER_SESSION', currency: 'USD', ...body })
  expect(response.status, JSON.stringify(response.body)).toBe(201)
  return response.body.id
}

const lookup = (t: Tenant, query: { locationId?: string; service: string; appointmentType?: string }) =>
  runInUnitOfWork(platform.api.deps.db, t.tenantId, (uow) =>
    priceForService(uow, { locationId: query.locationId ?? t.locationId, ...query })
  )

describe('price list CRUD', () => {
  it('creates a price and reads it back with a Location header', async () => {
    const t = await freshTenant()
    const response = await createPrice(t, {
      service: 'SPEECH_THERAPY',
      appointmentType: 'THERAPY_SESSION',
      locationId: t.locationId,
      description: 'Speech therapy, 45 minutes',
      amount: 12_500,
      currency: 'USD',
      unit: 'PER_SESSION',
    })
    expect(response.status).toBe(201)
    expect(response.body).toMatchObject({
      service: 'SPEECH_THERAPY',
      appointmentType: 'THERAPY_SESSION',
      locationId: t.locationId,
      description: 'Speech therapy, 45 minutes',
      amount: 12_500,
      currency: 'USD',
      unit: 'PER_SESSION',
      active: true,
      archivedAt: null,
    })
    expect(response.body.id).toMatch(/^prc_/)
    expect(response.body.createdAt).toMatch(/Z$/)
    expect(response.headers.get('location')).toBe(`/v1/prices/${response.body.id}`)
    const read = await platform.http.get(`/v1/prices/${response.body.id}`, { token: t.token })
    expect(read.status).toBe(200)
    expect(read.body).toEqual(response.body)
  })

  it('patches amount, unit and description (null removes it); key fields are not writable', async () => {
    const t = await freshTenant()
    const id = await priceId(t, { service: 'OCCUPATIONAL_THERAPY', amount: 9_000, description: 'OT' })
    const patched = await patchPrice(t, id, { amount: 2_500, unit: 'PER_15_MINUTES', description: null })
    expect(patched.status).toBe(200)
    expect(patched.body).toMatchObject({
      id,
      amount: 2_500,
      unit: 'PER_15_MINUTES',
      description: null,
      service: 'OCCUPATIONAL_THERAPY',
    })
    const keyChange = await patchPrice(t, id, { service: 'PSYCHOLOGY' })
    expect(keyChange.status).toBe(400)
    expect(keyChange.body.code).toBe('validation_error')
    expect((await platform.http.get(`/v1/prices/${id}`, { token: t.token })).body.amount).toBe(2_500)
  })

  it('archives a price for good: still readable, no longer listed by default, never patched again', async () => {
    const t = await freshTenant()
    const id = await priceId(t, { service: 'PHYSICAL_THERAPY', amount: 10_000 })
    const archived = await platform.http.post(`/v1/prices/${id}/archive`, { token: t.token })
    expect(archived.status).toBe(200)
    expect(archived.body).toMatchObject({ id, active: false })
    expect(archived.body.archivedAt).toMatch(/Z$/)

    expect((await platform.http.get(`/v1/prices/${id}`, { token: t.token })).status).toBe(200)
    const listed = await platform.http.get('/v1/prices', { token: t.token })
    expect(listed.body.data.map((p: { id: string }) => p.id)).not.toContain(id)
    const archivedList = await platform.http.get('/v1/prices?archived=true', { token: t.token })
    expect(archivedList.body.data.map((p: { id: string }) => p.id)).toEqual([id])

    const patch = await patchPrice(t, id, { amount: 1 })
    expect(patch.status).toBe(409)
    expect(patch.body.code).toBe('invalid_state_transition')
    const again = await platform.http.post(`/v1/prices/${id}/archive`, { token: t.token })
    expect(again.status).toBe(409)
    expect(again.body.code).toBe('invalid_state_transition')
  })

  it('lists with filters and cursor pages that neither skip nor repeat', async () => {
    const t = await freshTenant()
    const ids = [
      await priceId(t, { service: 'SPEECH_THERAPY', amount: 300 }),
      await priceId(t, { service: 'SPEECH_THERAPY', appointmentType: 'EVALUATION', amount: 100 }),
      await priceId(t, { service: 'FEEDING_THERAPY', amount: 200 }),
      await priceId(t, { service: 'PSYCHOLOGY', amount: 400, active: false }),
      await priceId(t, { service: 'PSYCHOLOGY', amount: 500, currency: 'EUR' }),
    ]
    const { items, pages } = await walkPages<{ id: string }>(platform.http, t.token, '/v1/prices?limit=2')
    expect(items.map((p) => p.id)).toEqual(ids)
    expect(pages).toBe(3)
    const byAmount = await walkPages<{ amount: number }>(platform.http, t.token, '/v1/prices?limit=2&sort=-amount')
    expect(byAmount.items.map((p) => p.amount)).toEqual([500, 400, 300, 200, 100])

    const speech = await platform.http.get('/v1/prices?service=SPEECH_THERAPY', { token: t.token })
    expect(speech.body.data.map((p: { id: string }) => p.id)).toEqual(ids.slice(0, 2))
    const inactive = await platform.http.get('/v1/prices?active=false', { token: t.token })
    expect(inactive.body.data.map((p: { id: string }) => p.id)).toEqual([ids[3]])
    const euros = await platform.http.get('/v1/prices?currency=EUR', { token: t.token })
    expect(euros.body.data.map((p: { id: string }) => p.id)).toEqual([ids[4]])
    const typed = await platform.http.get('/v1/prices?appointmentType=EVALUATION', { token: t.token })
    expect(typed.body.data.map((p: { id: string }) => p.id)).toEqual([ids[1]])
  })
})

describe('price rules', () => {
  it('validates amounts and currencies: integer minor units, ISO 4217 codes only', async () => {
    const t = await freshTenant()
    const base = { service: 'SPEECH_THERAPY', unit: 'PER_SESSION', currency: 'USD', amount: 100 }
    for (const [body, path, code] of [
      [{ ...base, amount: 12.5 }, 'amount', undefined],
      [{ ...base, amount: -1 }, 'amount', undefined],
      [{ ...base, amount: '100' }, 'amount', undefined],
      [{ ...base, currency: 'usd' }, 'currency', undefined],
      [{ ...base, currency: 'UDS' }, 'currency', 'unknown_currency'],
      [{ ...base, service: 'ASTROLOGY' }, 'service', undefined],
    ] as const) {
      const response = await createPrice(t, body)
      expect(response.status, JSON.stringify(body)).toBe(400)
      expect(response.body.code).toBe('validation_error')
      expect(response.body.errors[0].path).toBe(path)
      if (code) expect(response.body.errors[0].code).toBe(code)
    }
  })

  it("keeps a location's prices in its currency", async () => {
    const t = await freshTenant()
    const response = await createPrice(t, {
      service: 'SPEECH_THERAPY',
      locationId: t.locationId,
      amount: 100,
      currency: 'EUR',
      unit: 'PER_SESSION',
    })
    expect(response.status).toBe(400)
    expect(response.body.errors[0]).toMatchObject({ path: 'currency', code: 'currency_mismatch' })
  })

  it('allows one active price per service, location and appointment type', async () => {
    const t = await freshTenant()
    const first = await priceId(t, { service: 'SPEECH_THERAPY', locationId: t.locationId, amount: 100 })
    const clash = await createPrice(t, {
      service: 'SPEECH_THERAPY',
      locationId: t.locationId,
      amount: 200,
      currency: 'USD',
      unit: 'PER_HOUR',
    })
    expect(clash.status).toBe(409)
    expect(clash.body.code).toBe('conflict')
    expect(clash.body.detail).toContain(first)

    // Another key is fine: tenant-wide, or for one appointment type; an inactive duplicate is fine too.
    await priceId(t, { service: 'SPEECH_THERAPY', amount: 150 })
    await priceId(t, {
      service: 'SPEECH_THERAPY',
      locationId: t.locationId,
      appointmentType: 'EVALUATION',
      amount: 300,
    })
    const spare = await priceId(t, { service: 'SPEECH_THERAPY', locationId: t.locationId, amount: 250, active: false })
    const activate = await patchPrice(t, spare, { active: true })
    expect(activate.status).toBe(409)
    expect(activate.body.code).toBe('conflict')

    // Deactivating the first frees the key; archiving keeps it free.
    expect((await patchPrice(t, first, { active: false })).status).toBe(200)
    expect((await patchPrice(t, spare, { active: true })).body.active).toBe(true)
  })

  it('needs the orders scope to write and orders.read to read', async () => {
    const readerClient = await platform.newTenant(['orders.read'])
    const reader = await platform.token(readerClient)
    const write = await platform.http.post('/v1/prices', {
      token: reader,
      body: { service: 'SPEECH_THERAPY', amount: 1, currency: 'USD', unit: 'PER_SESSION' },
    })
    expect(write.status).toBe(403)
    expect(write.body.code).toBe('insufficient_scope')
    expect((await platform.http.get('/v1/prices', { token: reader })).status).toBe(200)
    expect((await platform.http.get('/v1/prices')).status).toBe(401)
  })

  it("never shows another tenant's prices", async () => {
    const a = await freshTenant()
    const b = await freshTenant()
    const id = await priceId(a, { service: 'SPEECH_THERAPY', amount: 100 })
    const hidden = await platform.http.get(`/v1/prices/${id}`, { token: b.token })
    expect(hidden.status).toBe(404)
    expect(hidden.body.code).toBe('not_found')
    expect((await patchPrice(b, id, { amount: 1 })).status).toBe(404)
    expect((await platform.http.post(`/v1/prices/${id}/archive`, { token: b.token })).status).toBe(404)
    expect((await platform.http.get('/v1/prices', { token: b.token })).body.data).toEqual([])
    expect((await platform.http.get(`/v1/prices/${id}`, { token: a.token })).body.amount).toBe(100)
  })
})

describe('priceForService', () => {
  it('answers the most specific active price: location + type, location, tenant + type, tenant', async () => {
    const t = await freshTenant()
    const service = 'SPEECH_THERAPY'
    expect(await lookup(t, { service, appointmentType: 'EVALUATION' })).toEqual({
      amount: 0,
      currency: 'USD',
      priceId: null,
    })

    const tenantWide = await priceId(t, { service, amount: 5_000 })
    expect(await lookup(t, { service, appointmentType: 'EVALUATION' })).toEqual({
      amount: 5_000,
      currency: 'USD',
      priceId: tenantWide,
    })

    const tenantTyped = await priceId(t, { service, appointmentType: 'EVALUATION', amount: 6_000 })
    expect((await lookup(t, { service, appointmentType: 'EVALUATION' })).priceId).toBe(tenantTyped)
    expect((await lookup(t, { service, appointmentType: 'THERAPY_SESSION' })).priceId).toBe(tenantWide)
    expect((await lookup(t, { service })).priceId).toBe(tenantWide)

    const located = await priceId(t, { service, locationId: t.locationId, amount: 7_000 })
    // A location's own price outranks a tenant-wide price even for the tenant-wide price's appointment type.
    expect((await lookup(t, { service, appointmentType: 'EVALUATION' })).priceId).toBe(located)
    expect((await lookup(t, { service, appointmentType: 'THERAPY_SESSION' })).priceId).toBe(located)

    const locatedTyped = await priceId(t, {
      service,
      locationId: t.locationId,
      appointmentType: 'EVALUATION',
      amount: 8_000,
    })
    expect(await lookup(t, { service, appointmentType: 'EVALUATION' })).toEqual({
      amount: 8_000,
      currency: 'USD',
      priceId: locatedTyped,
    })
    expect((await lookup(t, { service, appointmentType: 'THERAPY_SESSION' })).priceId).toBe(located)
    // An unknown appointment type matches only type-independent prices.
    expect((await lookup(t, { service, appointmentType: 'NOT_A_TYPE' })).priceId).toBe(located)

    // Inactive and archived prices drop out, and the next most specific one answers.
    expect((await patchPrice(t, locatedTyped, { active: false })).status).toBe(200)
    expect((await lookup(t, { service, appointmentType: 'EVALUATION' })).priceId).toBe(located)
    expect((await platform.http.post(`/v1/prices/${located}/archive`, { token: t.token })).status).toBe(200)
    expect((await lookup(t, { service, appointmentType: 'EVALUATION' })).priceId).toBe(tenantTyped)

    // Another service is not priced by these.
    expect(await lookup(t, { service: 'PSYCHOLOGY' })).toEqual({ amount: 0, currency: 'USD', priceId: null })
  })

  it("uses only prices in the location's currency, and answers 0 in that currency when none is configured", async () => {
    const t = await freshTenant()
    await priceId(t, { service: 'FEEDING_THERAPY', amount: 9_900, currency: 'EUR' })
    expect(await lookup(t, { service: 'FEEDING_THERAPY' })).toEqual({ amount: 0, currency: 'USD', priceId: null })

    // A yen location: its currency column is what an unpriced service answers in, and what its prices are in.
    const yen = await platform.http.post('/v1/locations', {
      token: t.token,
      body: { name: 'Tokyo centre', timeZone: 'Asia/Tokyo', currency: 'JPY' },
    })
    expect(yen.status, JSON.stringify(yen.body)).toBe(201)
    const tokyo = yen.body.id as string
    expect(await lookup(t, { locationId: tokyo, service: 'FEEDING_THERAPY' })).toEqual({
      amount: 0,
      currency: 'JPY',
      priceId: null,
    })
    const jpy = await priceId(t, { service: 'FEEDING_THERAPY', locationId: tokyo, amount: 8_800, currency: 'JPY' })
    expect(await lookup(t, { locationId: tokyo, service: 'FEEDING_THERAPY' })).toEqual({
      amount: 8_800,
      currency: 'JPY',
      priceId: jpy,
    })
    // The USD location is unaffected by the Tokyo price.
    expect((await lookup(t, { service: 'FEEDING_THERAPY' })).priceId).toBeNull()
  })

  it("never reads another tenant's prices or locations", async () => {
    const a = await freshTenant()
    const b = await freshTenant()
    await priceId(a, { service: 'SPEECH_THERAPY', amount: 4_200 })
    expect((await lookup(b, { service: 'SPEECH_THERAPY' })).priceId).toBeNull()
    await expect(lookup(b, { locationId: a.locationId, service: 'SPEECH_THERAPY' })).rejects.toMatchObject({
      code: 'not_found',
    })
  })
})
