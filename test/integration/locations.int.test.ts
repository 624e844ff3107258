/**
 * Locations over HTTP against the real API and PostgreSQL: create with policies and address, read, merge-patch,
 * list with filters and pages, delete only when nothing points at the location, tenant isolation.
 */
import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startPlatform, type Platform } from '../support/platform.ts'

let platform: Platform

beforeAll(async () => {
  platform = await startPlatform({ withWorker: false })
})

afterAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await platform?.stop()
})

async function newCentre(scopes = ['providers', 'children']) {
  const client = await platform.newTenant(scopes)
  return { ...client, token: await platform.token(client) }
}

const post = (token: string, path: string, body: unknown) =>
  platform.http.post(path, { token, body, headers: { 'Idempotency-Key': randomUUID() } })
const patch = (token: string, path: string, body: unknown) => platform.http.request('PATCH', path, { token, body })

describe('/v1/locations', () => {
  it('creates with defaults or given policies and an address, and reads it back', async () => {
    const { token } = await newCentre()
    const plain = await post(token, '/v1/locations', { name: 'Annex', timeZone: 'America/Denver' })
    expect(plain.status).toBe(201)
    expect(plain.body).toMatchObject({
      name: 'Annex',
      timeZone: 'America/Denver',
      currency: 'USD',
      bufferMinutes: 0,
      minimumNoticeMinutes: 0,
      lateCancellationHours: 24,
      reminderOffsetsMinutes: [2880, 120],
      noteDueHours: 48,
      city: null,
      country: null,
    })
    expect(plain.body.id).toMatch(/^loc_/)
    expect(plain.headers.get('location')).toBe(`/v1/locations/${plain.body.id}`)

    const full = await post(token, '/v1/locations', {
      name: 'Riverside',
      timeZone: 'Europe/London',
      currency: 'GBP',
      bufferMinutes: 10,
      minimumNoticeMinutes: 1440,
      lateCancellationHours: 48,
      reminderOffsetsMinutes: [1440],
      noteDueHours: 24,
      addressLine1: '1 River Way',
      city: 'London',
      region: 'GB-LND',
      postalCode: 'E1 1AA',
      country: 'GB',
    })
    expect(full.status).toBe(201)
    expect(full.body).toMatchObject({
      currency: 'GBP',
      bufferMinutes: 10,
      minimumNoticeMinutes: 1440,
      country: 'GB',
      city: 'London',
    })
    const read = await platform.http.get(`/v1/locations/${full.body.id}`, { token })
    expect(read.body).toEqual(full.body)
  })

  it('refuses bad values with per-field errors', async () => {
    const { token } = await newCentre()
    const zone = await post(token, '/v1/locations', { name: 'X', timeZone: 'Atlantis/Deep' })
    expect(zone.status).toBe(400)
    expect(zone.body.errors[0]).toMatchObject({ path: 'timeZone', code: 'invalid_time_zone' })
    const values = await post(token, '/v1/locations', {
      name: 'X',
      timeZone: 'UTC',
      bufferMinutes: -5,
      currency: 'dollars',
      country: 'USA',
    })
    expect(values.status).toBe(400)
    expect(values.body.errors.map((e: { path: string }) => e.path).sort()).toEqual([
      'bufferMinutes',
      'country',
      'currency',
    ])
  })

  it('merge-patches policies and address; null removes an address field; policies cannot be removed', async () => {
    const { token } = await newCentre()
    const created = await post(token, '/v1/locations', {
      name: 'Main',
      timeZone: 'America/Chicago',
      city: 'Austin',
      region: 'US-TX',
    })
    const id = created.body.id
    const patched = await patch(token, `/v1/locations/${id}`, {
      bufferMinutes: 15,
      minimumNoticeMinutes: 120,
      city: null,
    })
    expect(patched.status).toBe(200)
    expect(patched.body).toMatchObject({
      bufferMinutes: 15,
      minimumNoticeMinutes: 120,
      city: null,
      region: 'US-TX',
      name: 'Main',
    })
    expect(Date.parse(patched.body.updatedAt)).toBeGreaterThanOrEqual(Date.parse(created.body.updatedAt))
    const removePolicy = await patch(token, `/v1/locations/${id}`, { bufferMinutes: null })
    expect(removePolicy.status).toBe(400)
    const badZone = await patch(token, `/v1/locations/${id}`, { timeZone: 'Nope/Nope' })
    expect(badZone.status).toBe(400)
    expect((await platform.http.get(`/v1/locations/${id}`, { token })).body.bufferMinutes).toBe(15)
  })

  it('lists with filters, sort and cursor pages', async () => {
    const { token, locationId } = await newCentre()
    const b = (await post(token, '/v1/locations', { name: 'B site', timeZone: 'UTC', country: 'GB' })).body.id
    const a = (await post(token, '/v1/locations', { name: 'A site', timeZone: 'UTC', country: 'US', region: 'US-TX' }))
      .body.id
    const ids = async (query: string) =>
      (await platform.http.get(`/v1/locations?${query}`, { token })).body.data.map((l: { id: string }) => l.id)
    expect(await ids('')).toEqual([locationId, b, a])
    expect(await ids('country=GB')).toEqual([b])
    expect(await ids('region=US-TX')).toEqual([a])
    expect(await ids('sort=name&limit=2')).toEqual([a, b])
    const first = await platform.http.get('/v1/locations?sort=name&limit=2', { token })
    const next = await platform.http.get(`/v1/locations?sort=name&limit=2&cursor=${first.body.nextCursor}`, { token })
    expect(next.body.data.map((l: { id: string }) => l.id)).toEqual([locationId])
    expect(next.body.nextCursor).toBeNull()
  })

  it('deletes an empty location; one with providers or children is kept (409 conflict)', async () => {
    const { token } = await newCentre()
    const empty = (await post(token, '/v1/locations', { name: 'Pop-up', timeZone: 'UTC' })).body.id
    const deleted = await platform.http.request('DELETE', `/v1/locations/${empty}`, { token })
    expect(deleted.status).toBe(204)
    expect((await platform.http.get(`/v1/locations/${empty}`, { token })).status).toBe(404)

    const staffed = (await post(token, '/v1/locations', { name: 'Staffed', timeZone: 'UTC' })).body.id
    const provider = await post(token, '/v1/providers', { name: 'P', timeZone: 'UTC', locationId: staffed })
    expect(provider.status).toBe(201)
    const refused = await platform.http.request('DELETE', `/v1/locations/${staffed}`, { token })
    expect(refused.status).toBe(409)
    expect(refused.body.code).toBe('conflict')
    expect(refused.body.detail).toContain('1 provider')

    const school = (await post(token, '/v1/locations', { name: 'School', timeZone: 'UTC' })).body.id
    const child = await post(token, '/v1/children', {
      firstName: 'Maya',
      lastName: 'O',
      dateOfBirth: '2023-04-18',
      locationId: school,
    })
    expect(child.status).toBe(201)
    const kept = await platform.http.request('DELETE', `/v1/locations/${school}`, { token })
    expect(kept.status).toBe(409)
    expect(kept.body.detail).toContain('child')
    expect((await platform.http.get(`/v1/locations/${school}`, { token })).status).toBe(200)
  })

  it("hides another tenant's location (404) and answers scope errors", async () => {
    const owner = await newCentre()
    const other = await newCentre()
    for (const request of [
      () => platform.http.get(`/v1/locations/${owner.locationId}`, { token: other.token }),
      () => patch(other.token, `/v1/locations/${owner.locationId}`, { name: 'Mine now' }),
      () => platform.http.request('DELETE', `/v1/locations/${owner.locationId}`, { token: other.token }),
    ]) {
      const response = await request()
      expect(response.status).toBe(404)
      expect(response.body.code).toBe('not_found')
    }
    expect(
      (await platform.http.get('/v1/locations', { token: other.token })).body.data.map((l: { id: string }) => l.id)
    ).toEqual([other.locationId])
    const readOnly = await platform.newTenant(['providers.read'])
    const readToken = await platform.token(readOnly)
    expect((await platform.http.get('/v1/locations', { token: readToken })).status).toBe(200)
    const write = await post(readToken, '/v1/locations', { name: 'X', timeZone: 'UTC' })
    expect(write.status).toBe(403)
    expect(write.body.code).toBe('insufficient_scope')
  })
})

describe('locationId once a tenant has a second location (issue 22)', () => {
  it('is optional with one location, then required on creates, and the error lists the locations', async () => {
    const { token } = await newCentre(['providers', 'children', 'clients'])
    const child = { firstName: 'Ada', lastName: 'Byron', dateOfBirth: '2021-03-04' }
    expect((await post(token, '/v1/children', child)).status).toBe(201)

    const [first] = (await platform.http.get('/v1/locations', { token })).body.data
    const second = await post(token, '/v1/locations', { name: 'North Annex', timeZone: 'America/Denver' })
    expect(second.status).toBe(201)

    for (const [path, body] of [
      ['/v1/children', child],
      ['/v1/providers', { name: 'Dr Ray', timeZone: 'America/Denver' }],
      ['/v1/clients', { firstName: 'Mae', lastName: 'Byron' }],
    ] as const) {
      const refused = await post(token, path, body)
      expect(refused.status, path).toBe(400)
      expect(refused.body.code).toBe('validation_error')
      const entry = refused.body.errors.find((e: { path: string }) => e.path === 'locationId')
      expect(entry).toMatchObject({ code: 'required' })
      expect(entry.message).toContain(`${first.id} (${first.name})`)
      expect(entry.message).toContain(`${second.body.id} (North Annex)`)
    }
    expect((await post(token, '/v1/children', { ...child, locationId: second.body.id })).status).toBe(201)
  })

  it('is documented on the create operations and their locationId fields', async () => {
    const doc = (await platform.http.get('/openapi.json')).body
    for (const path of ['/v1/children', '/v1/providers', '/v1/clients', '/v1/orders', '/v1/custom-field-definitions']) {
      expect(doc.paths[path].post.description, path).toContain('two or more')
    }
    for (const schema of ['ChildCreate', 'ClientCreate', 'OrderCreate', 'CustomFieldDefinitionCreate']) {
      expect(doc.components.schemas[schema].properties.locationId.description, schema).toContain('two or more')
    }
  })
})
