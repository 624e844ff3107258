/**
 * Providers over HTTP against the real API and PostgreSQL: create (minimal and full), read, merge-patch, list with
 * filters, sorting and cursor pages, the onboarding state machine with its `provider.approved` event, time off as a
 * sub-resource, and tenant isolation.
 */
import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runInUnitOfWork } from '../../infra/unit-of-work.ts'
import { startPlatform, type Platform } from '../support/platform.ts'
import { newId } from '../../domain/ids.ts'

let platform: Platform
let token: string
let tenantId: string
let locationId: string

beforeAll(async () => {
  platform = await startPlatform({ withWorker: false })
  const client = await platform.newTenant(['providers', 'children', 'bookings'])
  tenantId = client.tenantId
  locationId = client.locationId
  token = await platform.token(client)
})

afterAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await platform?.stop()
})

/** A fresh tenant and a token on it, for tests that need a roster of their own. */
async function newCentre(scopes = ['providers', 'bookings', 'children']) {
  const client = await platform.newTenant(scopes)
  return { ...client, token: await platform.token(client) }
}

const post = (path: string, body: unknown, as = token) =>
  platform.http.post(path, { token: as, body, headers: { 'Idempotency-Key': randomUUID() } })
const patch = (path: string, body: unknown, as = token) => platform.http.request('PATCH', path, { token: as, body })

const fullProvider = {
  name: 'Lucía Romero, CCC-SLP',
  email: 'lucia@example.org',
  timeZone: 'America/Chicago',
  disciplines: ['SPEECH_THERAPY', 'FEEDING_THERAPY'],
  languages: ['es-mx', 'en'],
  ageGroups: ['INFANT_TODDLER', 'PRESCHOOL'],
  telehealth: true,
  weeklyHours: {
    MONDAY: [
      { start: '13:00', end: '17:00' },
      { start: '08:00', end: '12:00' },
    ],
    FRIDAY: [{ start: '09:00', end: '15:00' }],
  },
  credentials: [
    { type: 'LICENSE', number: 'SLP-1', issuingCountry: 'US', issuingRegion: 'TX', expiresOn: '2028-01-31' },
    { type: 'LICENSE', number: 'SLP-2', issuingCountry: 'US', issuingRegion: 'OK', expiresOn: '2027-06-30' },
    { type: 'CERTIFICATION', name: 'ASHA CCC-SLP', number: 'A-77', issuingCountry: 'US', expiresOn: '2026-12-31' },
  ],
}

describe('create and read', () => {
  it('keeps the minimal create working: APPROVED, bookable, open schedule, the only location as primary', async () => {
    const created = await post('/v1/providers', { name: 'Dana Whitfield', timeZone: 'America/Chicago' })
    expect(created.status).toBe(201)
    expect(created.body).toMatchObject({
      name: 'Dana Whitfield',
      timeZone: 'America/Chicago',
      locationId,
      locationIds: [locationId],
      disciplines: [],
      languages: [],
      telehealth: false,
      weeklyHours: null,
      onboardingStatus: 'APPROVED',
      bookable: true,
      licenceExpiresOn: null,
    })
    expect(created.body.approvedAt).toMatch(/Z$/)
    expect(created.headers.get('location')).toBe(`/v1/providers/${created.body.id}`)
    const read = await platform.http.get(`/v1/providers/${created.body.id}`, { token })
    expect(read.body).toEqual(created.body)
  })

  it('stores every field: canonical language tags, sorted hours on all seven days, the earliest licence expiry', async () => {
    const created = await post('/v1/providers', fullProvider)
    expect(created.status).toBe(201)
    expect(created.body.languages).toEqual(['es-MX', 'en'])
    expect(created.body.weeklyHours.MONDAY).toEqual([
      { start: '08:00', end: '12:00' },
      { start: '13:00', end: '17:00' },
    ])
    expect(created.body.weeklyHours.SUNDAY).toEqual([])
    // The certification expires sooner, but only licences count.
    expect(created.body.licenceExpiresOn).toBe('2027-06-30')
    expect(created.body.credentials).toHaveLength(3)
  })

  it('refuses bad fields with per-field codes', async () => {
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [{ timeZone: 'Mars/Olympus' }, 'timeZone', 'invalid_time_zone'],
      [{ languages: ['en', 'not a tag'] }, 'languages.1', 'invalid_language'],
      [{ locationId: newId('location') }, 'locationId', 'not_found'],
      [{ disciplines: ['ASTROLOGY'] }, 'disciplines.0', 'invalid_value'],
      [{ weeklyHours: { MONDAY: [{ start: '10:00', end: '09:00' }] } }, 'weeklyHours.MONDAY.0.end', 'custom'],
      [
        {
          weeklyHours: {
            MONDAY: [
              { start: '09:00', end: '12:00' },
              { start: '11:00', end: '13:00' },
            ],
          },
        },
        'weeklyHours.MONDAY.1.start',
        'custom',
      ],
      [{ weeklyHours: { FUNDAY: [] } }, 'weeklyHours', 'unrecognized_keys'],
    ]
    for (const [override, path, code] of cases) {
      const response = await post('/v1/providers', { name: 'X', timeZone: 'America/Chicago', ...override })
      expect(response.status, JSON.stringify(override)).toBe(400)
      expect(response.body.code).toBe('validation_error')
      const found = response.body.errors.map((e: { path: string; code: string }) => `${e.path}:${e.code}`)
      expect(found, JSON.stringify(override)).toContain(`${path}:${code}`)
    }
  })

  it('hides another tenant’s provider (404, nothing disclosed)', async () => {
    const created = await post('/v1/providers', fullProvider)
    const other = await newCentre()
    for (const path of [`/v1/providers/${created.body.id}`, `/v1/providers/${created.body.id}/time-off`]) {
      const response = await platform.http.get(path, { token: other.token })
      expect(response.status).toBe(404)
      expect(response.body.code).toBe('not_found')
      expect(JSON.stringify(response.body)).not.toContain('Lucía')
    }
    expect((await patch(`/v1/providers/${created.body.id}`, { name: 'Taken' }, other.token)).status).toBe(404)
    expect((await post(`/v1/providers/${created.body.id}/approve`, undefined, other.token)).status).toBe(404)
  })
})

describe('PATCH (JSON merge patch)', () => {
  it('merges weekly hours per weekday, replaces arrays, removes with null, and keeps the primary location', async () => {
    const centre = await newCentre()
    const second = await post('/v1/locations', { name: 'Annex', timeZone: 'America/Chicago' }, centre.token)
    const created = await post('/v1/providers', { ...fullProvider, locationId: centre.locationId }, centre.token)
    const id = created.body.id
    const patched = await patch(
      `/v1/providers/${id}`,
      {
        email: null,
        languages: ['fr-CA'],
        locationIds: [second.body.id],
        weeklyHours: { MONDAY: null, TUESDAY: [{ start: '10:00', end: '11:00' }] },
      },
      centre.token
    )
    expect(patched.status).toBe(200)
    expect(patched.body.email).toBeNull()
    expect(patched.body.languages).toEqual(['fr-CA'])
    expect(patched.body.locationIds).toEqual([centre.locationId, second.body.id])
    expect(patched.body.weeklyHours.MONDAY).toEqual([])
    expect(patched.body.weeklyHours.TUESDAY).toEqual([{ start: '10:00', end: '11:00' }])
    expect(patched.body.weeklyHours.FRIDAY).toEqual([{ start: '09:00', end: '15:00' }])
    expect(patched.body.name).toBe(fullProvider.name)

    const open = await patch(`/v1/providers/${id}`, { weeklyHours: null, credentials: [] }, centre.token)
    expect(open.body.weeklyHours).toBeNull()
    expect(open.body.licenceExpiresOn).toBeNull()

    const moved = await patch(`/v1/providers/${id}`, { locationId: second.body.id, locationIds: [] }, centre.token)
    expect(moved.body.locationId).toBe(second.body.id)
    expect(moved.body.locationIds).toEqual([second.body.id])
  })

  it('validates the patched provider like a create, and does not let PATCH change the onboarding status', async () => {
    const created = await post('/v1/providers', fullProvider)
    const bad = await patch(`/v1/providers/${created.body.id}`, { timeZone: 'Nowhere/Else' })
    expect(bad.status).toBe(400)
    expect(bad.body.errors[0]).toMatchObject({ path: 'timeZone', code: 'invalid_time_zone' })
    const status = await patch(`/v1/providers/${created.body.id}`, { onboardingStatus: 'SUSPENDED' })
    expect(status.status).toBe(400)
    expect((await platform.http.get(`/v1/providers/${created.body.id}`, { token })).body.onboardingStatus).toBe(
      'APPROVED'
    )
    const typed = await platform.http.request('PATCH', `/v1/providers/${created.body.id}`, {
      token,
      raw: JSON.stringify({ telehealth: false }),
      headers: { 'Content-Type': 'application/merge-patch+json' },
    })
    expect(typed.status).toBe(200)
    expect(typed.body.telehealth).toBe(false)
  })
})

describe('list', () => {
  it('filters by discipline, location, language (with regional variants), status and telehealth, and pages', async () => {
    const centre = await newCentre()
    const annex = (await post('/v1/locations', { name: 'Annex', timeZone: 'America/Chicago' }, centre.token)).body.id
    const make = (body: Record<string, unknown>) =>
      post('/v1/providers', { timeZone: 'America/Chicago', locationId: centre.locationId, ...body }, centre.token).then(
        (r) => {
          expect(r.status).toBe(201)
          return r.body.id as string
        }
      )
    const a = await make({ name: 'A', disciplines: ['SPEECH_THERAPY'], languages: ['es-MX'], telehealth: true })
    const b = await make({ name: 'B', disciplines: ['OCCUPATIONAL_THERAPY'], languages: ['en'], locationIds: [annex] })
    const c = await make({ name: 'C', disciplines: ['SPEECH_THERAPY'], languages: ['es'], onboardingStatus: 'INVITED' })
    const d = await make({
      name: 'D',
      disciplines: ['PHYSICAL_THERAPY'],
      languages: ['en-GB'],
      ageGroups: ['SCHOOL_AGE'],
    })

    const ids = async (query: string) => {
      const response = await platform.http.get(`/v1/providers?${query}`, { token: centre.token })
      expect(response.status, JSON.stringify(response.body)).toBe(200)
      return response.body.data.map((p: { id: string }) => p.id)
    }
    expect(await ids('discipline=SPEECH_THERAPY')).toEqual([a, c])
    expect(await ids(`locationId=${annex}`)).toEqual([b])
    expect(await ids('language=es')).toEqual([a, c])
    expect(await ids('language=es-MX')).toEqual([a])
    expect(await ids('language=en')).toEqual([b, d])
    expect(await ids('onboardingStatus=INVITED')).toEqual([c])
    expect(await ids('telehealth=true')).toEqual([a])
    expect(await ids('ageGroup=SCHOOL_AGE')).toEqual([d])
    expect(await ids('discipline=SPEECH_THERAPY&onboardingStatus=APPROVED')).toEqual([a])
    expect(await ids('sort=-name')).toEqual([d, c, b, a])

    const first = await platform.http.get('/v1/providers?limit=3&sort=name', { token: centre.token })
    expect(first.body.data.map((p: { id: string }) => p.id)).toEqual([a, b, c])
    const second = await platform.http.get(`/v1/providers?limit=3&sort=name&cursor=${first.body.nextCursor}`, {
      token: centre.token,
    })
    expect(second.body.data.map((p: { id: string }) => p.id)).toEqual([d])
    expect(second.body.nextCursor).toBeNull()
    const mismatch = await platform.http.get(`/v1/providers?limit=3&sort=-name&cursor=${first.body.nextCursor}`, {
      token: centre.token,
    })
    expect(mismatch.status).toBe(400)
    expect(mismatch.body.errors[0].code).toBe('invalid_cursor')
  })
})

describe('onboarding', () => {
  it('moves INVITED → IN_REVIEW → APPROVED, records provider.approved in the same transaction, and refuses illegal moves', async () => {
    const created = await post('/v1/providers', {
      name: 'New hire',
      timeZone: 'Europe/London',
      onboardingStatus: 'INVITED',
    })
    const id = created.body.id
    expect(created.body).toMatchObject({ onboardingStatus: 'INVITED', bookable: false, approvedAt: null })

    const review = await post(`/v1/providers/${id}/submit-for-review`, undefined)
    expect(review.status).toBe(200)
    expect(review.body.onboardingStatus).toBe('IN_REVIEW')
    const again = await post(`/v1/providers/${id}/submit-for-review`, undefined)
    expect(again.status).toBe(409)
    expect(again.body.code).toBe('invalid_state_transition')

    const approved = await post(`/v1/providers/${id}/approve`, undefined)
    expect(approved.status).toBe(200)
    expect(approved.body).toMatchObject({ onboardingStatus: 'APPROVED', bookable: true })
    const twice = await post(`/v1/providers/${id}/approve`, undefined)
    expect(twice.status).toBe(409)
    expect(twice.body.code).toBe('invalid_state_transition')

    const events = await runInUnitOfWork(platform.api.deps.db, tenantId, (uow) =>
      uow.tx.event.findMany({ where: { tenantId, type: 'provider.approved' } })
    )
    const mine = events.filter((e) => (e.data as { providerId: string }).providerId === id)
    expect(mine).toHaveLength(1)
    expect(mine[0]!.data).toEqual({ providerId: id, approvedAt: approved.body.approvedAt })
  })

  it('suspends and re-approves; offboarding is final and refused while appointments are upcoming', async () => {
    const created = await post('/v1/providers', { name: 'Sam', timeZone: 'America/Chicago' })
    const id = created.body.id
    expect((await post(`/v1/providers/${id}/suspend`, undefined)).body.onboardingStatus).toBe('SUSPENDED')
    expect((await post(`/v1/providers/${id}/suspend`, undefined)).status).toBe(409)
    expect((await post(`/v1/providers/${id}/approve`, undefined)).body.onboardingStatus).toBe('APPROVED')

    const child = await post('/v1/children', { firstName: 'Maya', lastName: 'Okafor', dateOfBirth: '2023-04-18' })
    const startsAt = new Date(Date.now() + 3 * 86_400_000)
    startsAt.setUTCHours(15, 0, 0, 0)
    const booked = await post('/v1/appointments', {
      childId: child.body.id,
      providerId: id,
      startsAt: startsAt.toISOString(),
    })
    expect(booked.status).toBe(201)
    const refused = await post(`/v1/providers/${id}/offboard`, undefined)
    expect(refused.status).toBe(409)
    expect(refused.body.code).toBe('conflict')
    expect(refused.body.detail).toContain('1 upcoming')

    const other = await post('/v1/providers', { name: 'Leaving', timeZone: 'America/Chicago' })
    const offboarded = await post(`/v1/providers/${other.body.id}/offboard`, undefined)
    expect(offboarded.status).toBe(200)
    expect(offboarded.body).toMatchObject({ onboardingStatus: 'OFFBOARDED', bookable: false })
    expect(offboarded.body.offboardedAt).toMatch(/Z$/)
    for (const action of ['approve', 'suspend', 'offboard', 'submit-for-review']) {
      const response = await post(`/v1/providers/${other.body.id}/${action}`, undefined)
      expect(response.status, action).toBe(409)
      expect(response.body.code).toBe('invalid_state_transition')
    }
    // Never deleted: still readable.
    expect((await platform.http.get(`/v1/providers/${other.body.id}`, { token })).status).toBe(200)
  })
})

describe('onboarding is started by its own call (issue 22)', () => {
  it('creates an INVITED provider without an onboarding; POST …/onboarding starts it, as the description says', async () => {
    const invited = await post('/v1/providers', {
      name: 'Noor Haddad, OTR/L',
      timeZone: 'America/Chicago',
      onboardingStatus: 'INVITED',
    })
    expect(invited.status).toBe(201)
    const id = invited.body.id as string
    const none = await platform.http.get(`/v1/providers/${id}/onboarding`, { token })
    expect(none.status).toBe(404)

    const started = await post(`/v1/providers/${id}/onboarding`, {})
    expect(started.status).toBe(201)
    expect(started.body).toMatchObject({ step: 'PROFILE', status: 'IN_PROGRESS' })
    expect(started.body.workflowId).toContain(id)

    const doc = (await platform.http.get('/openapi.json')).body
    expect(doc.paths['/v1/providers'].post.description).toContain('POST /v1/providers/{id}/onboarding')
    expect(doc.components.schemas.ProviderCreate.properties.onboardingStatus.description).toContain('starts nothing')
  })
})

describe('time off', () => {
  it('creates, reads, lists by range, patches and deletes, shown in the provider zone', async () => {
    const provider = await post('/v1/providers', { name: 'Off', timeZone: 'Europe/London' })
    const base = `/v1/providers/${provider.body.id}/time-off`
    const created = await post(base, {
      startsAt: '2027-07-01T00:00:00+01:00',
      endsAt: '2027-07-15T00:00:00+01:00',
      reason: 'VACATION',
      note: 'Summer',
    })
    expect(created.status).toBe(201)
    expect(created.body).toMatchObject({
      providerId: provider.body.id,
      startsAt: '2027-07-01T00:00:00+01:00',
      endsAt: '2027-07-15T00:00:00+01:00',
      timeZone: 'Europe/London',
      reason: 'VACATION',
      note: 'Summer',
      conflictingAppointmentIds: [],
    })
    expect(created.body.id).toMatch(/^tof_/)
    expect(created.headers.get('location')).toBe(`${base}/${created.body.id}`)
    const winter = await post(base, {
      startsAt: '2027-12-24T00:00:00Z',
      endsAt: '2027-12-27T00:00:00Z',
      reason: 'HOLIDAY',
    })
    expect(winter.body.startsAt).toBe('2027-12-24T00:00:00+00:00')

    expect((await platform.http.get(`${base}/${created.body.id}`, { token })).body).toEqual(created.body)
    const all = await platform.http.get(base, { token })
    expect(all.body.data.map((t: { id: string }) => t.id)).toEqual([created.body.id, winter.body.id])
    const december = await platform.http.get(`${base}?from=${encodeURIComponent('2027-12-01T00:00:00Z')}`, { token })
    expect(december.body.data.map((t: { id: string }) => t.id)).toEqual([winter.body.id])
    const paged = await platform.http.get(`${base}?limit=1`, { token })
    expect(paged.body.data).toHaveLength(1)
    const rest = await platform.http.get(`${base}?limit=1&cursor=${paged.body.nextCursor}`, { token })
    expect(rest.body.data.map((t: { id: string }) => t.id)).toEqual([winter.body.id])

    const patched = await patch(`${base}/${created.body.id}`, { endsAt: '2027-07-20T00:00:00+01:00', note: null })
    expect(patched.status).toBe(200)
    expect(patched.body).toMatchObject({ endsAt: '2027-07-20T00:00:00+01:00', note: null, reason: 'VACATION' })
    const inverted = await patch(`${base}/${created.body.id}`, { startsAt: '2027-08-01T00:00:00+01:00' })
    expect(inverted.status).toBe(400)
    expect(inverted.body.errors[0]).toMatchObject({ path: 'endsAt', code: 'before_start' })

    const deleted = await platform.http.request('DELETE', `${base}/${created.body.id}`, { token })
    expect(deleted.status).toBe(204)
    expect((await platform.http.get(`${base}/${created.body.id}`, { token })).status).toBe(404)
    expect((await platform.http.request('DELETE', `${base}/${created.body.id}`, { token })).status).toBe(404)
  })

  it('names the appointments already booked inside new time off, without cancelling them', async () => {
    const provider = await post('/v1/providers', { name: 'Busy', timeZone: 'America/Chicago' })
    const child = await post('/v1/children', { firstName: 'Ada', lastName: 'L', dateOfBirth: '2022-01-01' })
    const booked = await post('/v1/appointments', {
      childId: child.body.id,
      providerId: provider.body.id,
      startsAt: '2027-02-10T10:00:00-06:00',
    })
    expect(booked.status, JSON.stringify(booked.body)).toBe(201)
    const off = await post(`/v1/providers/${provider.body.id}/time-off`, {
      startsAt: '2027-02-10T00:00:00-06:00',
      endsAt: '2027-02-11T00:00:00-06:00',
      reason: 'TRAINING',
    })
    expect(off.body.conflictingAppointmentIds).toEqual([booked.body.id])
    expect((await platform.http.get(`/v1/appointments/${booked.body.id}`, { token })).body.status).toBe('CONFIRMED')
  })

  it('refuses an empty range and a missing provider', async () => {
    const provider = await post('/v1/providers', { name: 'P', timeZone: 'America/Chicago' })
    const empty = await post(`/v1/providers/${provider.body.id}/time-off`, {
      startsAt: '2027-01-01T10:00:00Z',
      endsAt: '2027-01-01T10:00:00Z',
      reason: 'OTHER',
    })
    expect(empty.status).toBe(400)
    const missing = await post(`/v1/providers/${newId('provider')}/time-off`, {
      startsAt: '2027-01-01T10:00:00Z',
      endsAt: '2027-01-02T10:00:00Z',
      reason: 'OTHER',
    })
    expect(missing.status).toBe(404)
  })
})
