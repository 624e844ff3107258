/**
 * Custom fields over HTTP: definitions per location (create, read, list, merge patch, archive) and the validation of
 * clients' `custom_fields` against them, including how definitions evolve without breaking stored records.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { newId } from '../../domain/ids.ts'
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

interface Tenant {
  tenantId: string
  locationId: string
  token: string
}

/** A tenant of its own per test: definitions are per location, so tests must not share one. */
async function freshTenant(scopes = ['clients']): Promise<Tenant> {
  const client = await platform.newTenant(scopes)
  return { tenantId: client.tenantId, locationId: client.locationId, token: await platform.token(client) }
}

const define = (t: Tenant, body: Record<string, unknown>) =>
  platform.http.post('/v1/custom-field-definitions', { token: t.token, body })
const patchDefinition = (t: Tenant, id: string, body: unknown) =>
  platform.http.request('PATCH', `/v1/custom-field-definitions/${id}`, { token: t.token, body })
const archiveDefinition = (t: Tenant, id: string) =>
  platform.http.request('DELETE', `/v1/custom-field-definitions/${id}`, { token: t.token })
const createClient = (t: Tenant, custom_fields?: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  platform.http.post('/v1/clients', {
    token: t.token,
    body: { firstName: 'Amara', lastName: 'Okafor', custom_fields, ...extra },
  })
const patchClient = (t: Tenant, id: string, body: unknown) =>
  platform.http.request('PATCH', `/v1/clients/${id}`, { token: t.token, body })

const errorCodes = (body: { errors?: Array<{ path: string; code: string }> }) =>
  (body.errors ?? []).map((e) => `${e.path}:${e.code}`).sort()

/** The five field types a centre might define. */
async function defineAllTypes(t: Tenant) {
  const ids: Record<string, string> = {}
  for (const [position, body] of [
    { key: 'school', label: 'School', type: 'TEXT' },
    { key: 'siblings', label: 'Siblings', type: 'NUMBER' },
    { key: 'intake_date', label: 'Intake date', type: 'DATE' },
    { key: 'photo_consent', label: 'Photo consent', type: 'BOOLEAN' },
    { key: 'referral', label: 'Referral source', type: 'SELECT', options: ['Physician', 'School', 'Self'] },
  ].entries()) {
    const response = await define(t, { ...body, position })
    expect(response.status, JSON.stringify(response.body)).toBe(201)
    ids[body.key] = response.body.id
  }
  return ids
}

describe('custom field definitions', () => {
  it('creates, reads and lists definitions in every sort, walking all pages', async () => {
    const t = await freshTenant()
    const created = await define(t, {
      key: 'referral',
      label: 'Referral source',
      type: 'SELECT',
      options: ['Physician', 'Self'],
      required: true,
    })
    expect(created.status).toBe(201)
    expect(created.body).toMatchObject({
      locationId: t.locationId,
      key: 'referral',
      label: 'Referral source',
      description: null,
      type: 'SELECT',
      required: true,
      options: ['Physician', 'Self'],
      position: 0,
      archivedAt: null,
    })
    expect(created.body.id).toMatch(/^cfd_/)
    expect(created.headers.get('location')).toBe(`/v1/custom-field-definitions/${created.body.id}`)
    expect(
      (await platform.http.get(`/v1/custom-field-definitions/${created.body.id}`, { token: t.token })).body
    ).toEqual(created.body)

    await define(t, { key: 'school', label: 'School', type: 'TEXT', position: 2 })
    await define(t, { key: 'allergies', label: 'Allergies', type: 'TEXT', position: 1 })
    await define(t, { key: 'born_abroad', label: 'Born abroad', type: 'BOOLEAN', position: 1 })
    const keys = async (sort: string) =>
      (
        await walkPages<{ key: string }>(platform.http, t.token, `/v1/custom-field-definitions?limit=1&sort=${sort}`)
      ).items.map((d) => d.key)
    // Position ties break by id, i.e. creation order.
    expect(await keys('position')).toEqual(['referral', 'allergies', 'born_abroad', 'school'])
    expect(await keys('-position')).toEqual(['school', 'born_abroad', 'allergies', 'referral'])
    expect(await keys('key')).toEqual(['allergies', 'born_abroad', 'referral', 'school'])
    expect(await keys('-key')).toEqual(['school', 'referral', 'born_abroad', 'allergies'])
    expect(await keys('createdAt')).toEqual(['referral', 'school', 'allergies', 'born_abroad'])
    expect(await keys('-createdAt')).toEqual(['born_abroad', 'allergies', 'school', 'referral'])
  })

  it('refuses bad definitions with per-field errors, and a reused key (even archived) with 409', async () => {
    const t = await freshTenant()
    const bad = await define(t, { key: 'Has Spaces', label: '', type: 'COLOUR' })
    expect(bad.status).toBe(400)
    expect(errorCodes(bad.body)).toEqual(['key:invalid_format', 'label:too_small', 'type:invalid_value'])
    expect(errorCodes((await define(t, { key: 'a', label: 'A', type: 'SELECT' })).body)).toEqual(['options:required'])
    expect(errorCodes((await define(t, { key: 'a', label: 'A', type: 'TEXT', options: ['x'] })).body)).toEqual([
      'options:not_allowed',
    ])
    expect(errorCodes((await define(t, { key: 'a', label: 'A', type: 'SELECT', options: ['x', 'x'] })).body)).toEqual([
      'options:duplicate',
    ])

    const first = await define(t, { key: 'school', label: 'School', type: 'TEXT' })
    const again = await define(t, { key: 'school', label: 'School (again)', type: 'NUMBER' })
    expect(again.status).toBe(409)
    expect(again.body.code).toBe('conflict')
    await archiveDefinition(t, first.body.id)
    expect((await define(t, { key: 'school', label: 'School', type: 'TEXT' })).status).toBe(409)
  })

  it('changes label, required, options and position by merge patch, but never key or type', async () => {
    const t = await freshTenant()
    const created = await define(t, {
      key: 'referral',
      label: 'Referral',
      type: 'SELECT',
      options: ['A', 'B'],
      description: 'How they found us',
    })
    const id = created.body.id
    const patched = await patchDefinition(t, id, {
      label: 'Referral source',
      description: null,
      required: true,
      options: ['A', 'B', 'C'],
      position: 5,
    })
    expect(patched.status).toBe(200)
    expect(patched.body).toMatchObject({
      key: 'referral',
      type: 'SELECT',
      label: 'Referral source',
      description: null,
      required: true,
      options: ['A', 'B', 'C'],
      position: 5,
    })

    const immutable = await patchDefinition(t, id, { key: 'source', type: 'TEXT' })
    expect(immutable.status).toBe(400)
    expect(errorCodes(immutable.body)).toEqual(['key:immutable', 'type:immutable'])
    // Sending the same key and type is fine: a client may PATCH back what it read.
    expect((await patchDefinition(t, id, { key: 'referral', type: 'SELECT', label: 'Source' })).status).toBe(200)
    expect(errorCodes((await patchDefinition(t, id, { options: null })).body)).toEqual(['options:required'])
    expect(errorCodes((await patchDefinition(t, id, { label: null })).body)).toEqual(['label:invalid_type'])
  })

  it('archives a definition: readable, listed only with archived=true, repeatable', async () => {
    const t = await freshTenant()
    const created = await define(t, { key: 'school', label: 'School', type: 'TEXT' })
    const archived = await archiveDefinition(t, created.body.id)
    expect(archived.status).toBe(200)
    expect(archived.body.archivedAt).toMatch(/Z$/)
    expect((await platform.http.get('/v1/custom-field-definitions', { token: t.token })).body.data).toEqual([])
    expect(
      (await platform.http.get('/v1/custom-field-definitions?archived=true', { token: t.token })).body.data
    ).toEqual([archived.body])
    expect((await archiveDefinition(t, created.body.id)).body).toEqual(archived.body)
  })

  it("keeps definitions per location and per tenant: another tenant's are 404 and never listed or applied", async () => {
    const t = await freshTenant()
    const other = await freshTenant()
    const secondLocation = newId('location')
    await platform.api.deps.db.location.create({
      data: { id: secondLocation, tenantId: t.tenantId, name: 'North', timeZone: 'America/Chicago' },
    })
    const here = await define(t, { key: 'school', label: 'School', type: 'TEXT', locationId: t.locationId })
    const there = await define(t, { key: 'school', label: 'School', type: 'NUMBER', locationId: secondLocation })
    expect(there.status).toBe(201)
    const listed = async (query: string) =>
      (await platform.http.get(`/v1/custom-field-definitions?${query}`, { token: t.token })).body.data.map(
        (d: { id: string }) => d.id
      )
    expect(await listed(`locationId=${secondLocation}`)).toEqual([there.body.id])
    expect(await listed(`locationId=${t.locationId}`)).toEqual([here.body.id])

    for (const response of [
      await platform.http.get(`/v1/custom-field-definitions/${here.body.id}`, { token: other.token }),
      await patchDefinition(other, here.body.id, { label: 'Mine now' }),
      await archiveDefinition(other, here.body.id),
    ]) {
      expect(response.status).toBe(404)
      expect(response.body.code).toBe('not_found')
    }
    expect((await platform.http.get('/v1/custom-field-definitions', { token: other.token })).body.data).toEqual([])
    // The other tenant's client cannot use this tenant's field.
    const refused = await createClient(other, { school: 'Lincoln' })
    expect(errorCodes(refused.body)).toEqual(['custom_fields.school:unknown_field'])
    expect(
      (
        await platform.http.post('/v1/custom-field-definitions', {
          token: t.token,
          body: { key: 'x', label: 'X', type: 'TEXT', locationId: other.locationId },
        })
      ).body.errors[0]
    ).toMatchObject({ path: 'locationId', code: 'not_found' })
  })

  it('needs the clients scope to write definitions and clients.read to read them', async () => {
    const t = await freshTenant(['clients.read'])
    expect((await define(t, { key: 'a', label: 'A', type: 'TEXT' })).status).toBe(403)
    expect((await platform.http.get('/v1/custom-field-definitions', { token: t.token })).status).toBe(200)
  })
})

describe('custom_fields on clients', () => {
  it('accepts a value of every type and answers custom_fields in snake_case', async () => {
    const t = await freshTenant()
    await defineAllTypes(t)
    const values = {
      school: 'Lincoln Elementary',
      siblings: 2,
      intake_date: '2026-01-12',
      photo_consent: false,
      referral: 'School',
    }
    const created = await createClient(t, values)
    expect(created.status).toBe(201)
    expect(created.body.custom_fields).toEqual(values)
    expect(created.body).not.toHaveProperty('customFields')
    expect((await platform.http.get(`/v1/clients/${created.body.id}`, { token: t.token })).body.custom_fields).toEqual(
      values
    )
  })

  it('refuses values of the wrong type, bad dates, unknown options and unknown keys, one error per field', async () => {
    const t = await freshTenant()
    await defineAllTypes(t)
    const response = await createClient(t, {
      school: 7,
      siblings: 'two',
      intake_date: '2026-02-30',
      photo_consent: 'yes',
      referral: 'Friend',
      shoe_size: 31,
    })
    expect(response.status).toBe(400)
    expect(response.body.code).toBe('validation_error')
    expect(errorCodes(response.body)).toEqual([
      'custom_fields.intake_date:invalid_date',
      'custom_fields.photo_consent:invalid_type',
      'custom_fields.referral:invalid_option',
      'custom_fields.school:invalid_type',
      'custom_fields.shoe_size:unknown_field',
      'custom_fields.siblings:invalid_type',
    ])
    const referral = response.body.errors.find((e: { path: string }) => e.path === 'custom_fields.referral')
    expect(referral.message).toContain('Physician, School, Self')
    // Objects and arrays are not values of any field type.
    const nested = await createClient(t, { school: { name: 'Lincoln' } })
    expect(nested.status).toBe(400)
    expect(nested.body.errors[0].path).toBe('custom_fields.school')
    expect(await platform.api.deps.db.client.count({ where: { tenantId: t.tenantId } })).toBe(0)
  })

  it('requires required fields on create, and a custom_fields patch cannot empty them', async () => {
    const t = await freshTenant()
    await define(t, { key: 'consent_on_file', label: 'Consent on file', type: 'BOOLEAN', required: true })
    const missing = await createClient(t, {})
    expect(missing.status).toBe(400)
    expect(missing.body.errors).toEqual([
      { path: 'custom_fields.consent_on_file', code: 'required', message: '"Consent on file" is required.' },
    ])
    expect((await createClient(t)).status).toBe(400)
    const created = await createClient(t, { consent_on_file: true })
    expect(created.status).toBe(201)
    const emptied = await patchClient(t, created.body.id, { custom_fields: { consent_on_file: null } })
    expect(errorCodes(emptied.body)).toEqual(['custom_fields.consent_on_file:required'])
  })

  it('merges a custom_fields patch key by key: null removes, other values stay', async () => {
    const t = await freshTenant()
    await defineAllTypes(t)
    const created = await createClient(t, { school: 'Lincoln', siblings: 2 })
    const patched = await patchClient(t, created.body.id, {
      custom_fields: { siblings: null, referral: 'Self' },
      phone: '+13125550100',
    })
    expect(patched.status).toBe(200)
    expect(patched.body.custom_fields).toEqual({ school: 'Lincoln', referral: 'Self' })
    expect(patched.body.phone).toBe('+13125550100')
    const bad = await patchClient(t, created.body.id, {
      custom_fields: { siblings: 'many', shoe_size: 31 },
      phone: null,
    })
    expect(errorCodes(bad.body)).toEqual([
      'custom_fields.shoe_size:unknown_field',
      'custom_fields.siblings:invalid_type',
    ])
    // Nothing of a refused patch is applied.
    expect((await platform.http.get(`/v1/clients/${created.body.id}`, { token: t.token })).body).toEqual(patched.body)
  })

  it('evolves without breaking stored records: a new required field, a removed option, an archived field', async () => {
    const t = await freshTenant()
    const ids = await defineAllTypes(t)
    const old = await createClient(t, { school: 'Lincoln', referral: 'School' })
    expect(old.status).toBe(201)

    // Later the centre makes a new field required and drops the "School" option.
    await define(t, { key: 'consent_on_file', label: 'Consent on file', type: 'BOOLEAN', required: true })
    await patchDefinition(t, ids.referral!, { options: ['Physician', 'Self', 'Hospital'] })

    // The old record is still readable as stored, and edits that leave custom fields alone still succeed.
    expect((await platform.http.get(`/v1/clients/${old.body.id}`, { token: t.token })).body.custom_fields).toEqual({
      school: 'Lincoln',
      referral: 'School',
    })
    const phone = await patchClient(t, old.body.id, { phone: '+13125550100' })
    expect(phone.status).toBe(200)
    expect(phone.body.custom_fields).toEqual({ school: 'Lincoln', referral: 'School' })

    // Editing custom fields brings the record up to today's definitions: the required field must be filled, and the
    // removed option cannot be written again, while the untouched stale value stays.
    const edit = await patchClient(t, old.body.id, { custom_fields: { siblings: 1 } })
    expect(errorCodes(edit.body)).toEqual(['custom_fields.consent_on_file:required'])
    const filled = await patchClient(t, old.body.id, { custom_fields: { siblings: 1, consent_on_file: true } })
    expect(filled.status).toBe(200)
    expect(filled.body.custom_fields).toEqual({
      school: 'Lincoln',
      referral: 'School',
      siblings: 1,
      consent_on_file: true,
    })
    expect(errorCodes((await patchClient(t, old.body.id, { custom_fields: { referral: 'School' } })).body)).toEqual([
      'custom_fields.referral:invalid_option',
    ])
    expect(
      (await patchClient(t, old.body.id, { custom_fields: { referral: 'Hospital' } })).body.custom_fields.referral
    ).toBe('Hospital')

    // An archived field keeps its values readable, accepts no new ones, and its value can be removed.
    await archiveDefinition(t, ids.school!)
    expect((await platform.http.get(`/v1/clients/${old.body.id}`, { token: t.token })).body.custom_fields.school).toBe(
      'Lincoln'
    )
    expect(errorCodes((await patchClient(t, old.body.id, { custom_fields: { school: 'Other' } })).body)).toEqual([
      'custom_fields.school:archived_field',
    ])
    expect(errorCodes((await createClient(t, { school: 'New', consent_on_file: true })).body)).toEqual([
      'custom_fields.school:archived_field',
    ])
    const removed = await patchClient(t, old.body.id, { custom_fields: { school: null } })
    expect(removed.status).toBe(200)
    expect(removed.body.custom_fields).not.toHaveProperty('school')

    // Making the required field optional again relaxes creates.
    const consent = (
      await platform.http.get('/v1/custom-field-definitions?sort=key', { token: t.token })
    ).body.data.find((d: { key: string }) => d.key === 'consent_on_file')
    await patchDefinition(t, consent.id, { required: false })
    expect((await createClient(t, {})).status).toBe(201)
  })

  it("checks every value against the new location's definitions when a client moves", async () => {
    const t = await freshTenant()
    const north = newId('location')
    await platform.api.deps.db.location.create({
      data: { id: north, tenantId: t.tenantId, name: 'North', timeZone: 'America/Chicago' },
    })
    await define(t, { key: 'school', label: 'School', type: 'TEXT', locationId: t.locationId })
    await define(t, { key: 'siblings', label: 'Siblings', type: 'NUMBER', locationId: t.locationId })
    await define(t, { key: 'school', label: 'School year', type: 'NUMBER', locationId: north })
    const created = await createClient(t, { school: 'Lincoln', siblings: 2 }, { locationId: t.locationId })
    expect(created.status).toBe(201)

    const moved = await patchClient(t, created.body.id, { locationId: north })
    expect(errorCodes(moved.body)).toEqual([
      'custom_fields.school:invalid_type',
      'custom_fields.siblings:unknown_field',
    ])
    const fixed = await patchClient(t, created.body.id, {
      locationId: north,
      custom_fields: { school: 3, siblings: null },
    })
    expect(fixed.status).toBe(200)
    expect(fixed.body).toMatchObject({ locationId: north, custom_fields: { school: 3 } })
  })
})
