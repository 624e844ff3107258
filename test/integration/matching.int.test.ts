/**
 * POST /v1/therapists/match over HTTP against the real API and database: a roster of known providers (disciplines,
 * languages, age groups, locations, telehealth, working hours, matching profiles) ranked for a known child, with the
 * score of each checked factor by factor; non-bookable and unsuitable providers left out and counted by reason;
 * slots that are the availability engine's (offered by GET /v1/availability, bookable, gone once booked); the same
 * answer twice; ties broken by id; continuity of care; validation and tenant isolation.
 */
import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startPlatform, type Platform } from '../support/platform.ts'

let platform: Platform

beforeAll(async () => {
  // With a worker: completing or cancelling an appointment is an update its booking workflow must accept.
  platform = await startPlatform()
})

afterAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await platform?.stop()
})

interface Centre {
  tenantId: string
  locationId: string
  token: string
}

async function newCentre(): Promise<Centre> {
  const client = await platform.newTenant(['providers', 'bookings', 'children', 'matching'], 'UTC')
  return { tenantId: client.tenantId, locationId: client.locationId, token: await platform.token(client) }
}

const send = (centre: Centre, method: string, path: string, body?: unknown) =>
  platform.http.request(method, path, { token: centre.token, body, headers: { 'Idempotency-Key': randomUUID() } })

async function created(centre: Centre, path: string, body: unknown): Promise<string> {
  const response = await send(centre, 'POST', path, body)
  expect(response.status, `${path}: ${JSON.stringify(response.body)}`).toBe(201)
  return response.body.id
}

const weekdays = (start: string, end: string) =>
  Object.fromEntries(['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY'].map((d) => [d, [{ start, end }]]))

async function provider(
  centre: Centre,
  body: Record<string, unknown>,
  profile?: Record<string, unknown>
): Promise<string> {
  const id = await created(centre, '/v1/providers', {
    name: 'Therapist',
    timeZone: 'UTC',
    locationId: centre.locationId,
    disciplines: ['SPEECH_THERAPY'],
    ...body,
  })
  if (profile) {
    const patched = await send(centre, 'PATCH', `/v1/therapists/${id}/match-profile`, profile)
    expect(patched.status, JSON.stringify(patched.body)).toBe(200)
  }
  return id
}

/** Midnight UTC of the first Monday at least two days ahead: a window whose first day is a working day. */
function nextMonday(): Date {
  const d = new Date(Date.now() + 2 * 86_400_000)
  d.setUTCHours(0, 0, 0, 0)
  while (d.getUTCDay() !== 1) d.setUTCDate(d.getUTCDate() + 1)
  return d
}

/** A date of birth `months` months before today (UTC). */
function bornMonthsAgo(months: number): string {
  const d = new Date()
  d.setUTCDate(1)
  d.setUTCMonth(d.getUTCMonth() - months)
  return d.toISOString().slice(0, 10)
}

const match = (centre: Centre, body: Record<string, unknown>) => send(centre, 'POST', '/v1/therapists/match', body)

type Reason = { factor: string; applicable: boolean; value: number; points: number; detail: string }
const reason = (entry: { reasons: Reason[] }, factor: string) => entry.reasons.find((r) => r.factor === factor)!

describe('POST /v1/therapists/match', () => {
  it('ranks suitable providers by an explained score, leaves out the rest by reason, and offers bookable slots', async () => {
    const centre = await newCentre()
    const otherLocation = await created(centre, '/v1/locations', { name: 'North clinic', timeZone: 'UTC' })
    const afternoons = weekdays('15:00', '18:00')
    const mornings = weekdays('09:00', '12:00')

    const bilingual = await provider(
      centre,
      {
        name: 'Bilingual SLP',
        languages: ['es-MX', 'en'],
        ageGroups: ['INFANT_TODDLER', 'PRESCHOOL'],
        weeklyHours: afternoons,
      },
      { specialties: ['F80'], payers: ['MEDICAID'] }
    )
    const telehealth = await provider(
      centre,
      {
        name: 'Telehealth SLP',
        languages: ['es'],
        telehealth: true,
        locationId: otherLocation,
        weeklyHours: afternoons,
      },
      { payers: ['AETNA'] }
    )
    const morning = await provider(centre, { name: 'Morning SLP', languages: ['en'], weeklyHours: mornings })
    // Left out, one reason each (two for NOT_BOOKABLE).
    await provider(centre, { name: 'OT', disciplines: ['OCCUPATIONAL_THERAPY'], weeklyHours: afternoons })
    await provider(centre, { name: 'Invited', onboardingStatus: 'INVITED', weeklyHours: afternoons })
    const offboarded = await provider(centre, { name: 'Gone', weeklyHours: afternoons })
    expect((await send(centre, 'POST', `/v1/providers/${offboarded}/offboard`)).status).toBe(200)
    await provider(centre, { name: 'School age only', ageGroups: ['SCHOOL_AGE'], weeklyHours: afternoons })
    const northOnly = await provider(centre, {
      name: 'North, in person only',
      locationId: otherLocation,
      weeklyHours: afternoons,
    })
    await provider(centre, { name: 'Full caseload', weeklyHours: afternoons }, { acceptingNewClients: false })

    const childId = await created(centre, '/v1/children', {
      firstName: 'Lucía',
      lastName: 'Ramos',
      dateOfBirth: bornMonthsAgo(30),
      locationId: centre.locationId,
      languages: ['es'],
      diagnoses: [{ code: 'F80.1', system: 'ICD_10_CM' }],
    })
    const monday = nextMonday()
    const request = {
      childId,
      discipline: 'SPEECH_THERAPY',
      payer: 'MEDICAID',
      preferredTimes: {
        timeZone: 'UTC',
        windows: [{ weekdays: ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY'], start: '15:00', end: '18:00' }],
      },
      search: { from: monday.toISOString(), days: 14, durationMinutes: 60, slotsPerProvider: 3 },
    }
    const response = await match(centre, request)
    expect(response.status, JSON.stringify(response.body)).toBe(200)
    const body = response.body

    expect(body.data.map((m: { providerId: string }) => m.providerId)).toEqual([bilingual, telehealth, morning])
    expect(body.considered).toBe(9)
    expect(body.excluded).toEqual({
      NOT_BOOKABLE: 2,
      DISCIPLINE: 1,
      AGE_GROUP: 1,
      SETTING: 1,
      NOT_ACCEPTING_NEW_CLIENTS: 1,
    })
    expect(body.needs).toMatchObject({
      discipline: 'SPEECH_THERAPY',
      ageGroup: 'INFANT_TODDLER',
      languages: ['es'],
      conditionCount: 1,
      payer: 'MEDICAID',
      mode: 'ANY',
      locationId: centre.locationId,
    })
    // Diagnoses are matched, never echoed.
    expect(JSON.stringify(body)).not.toContain('F80.1')

    // Scores by hand: applicable weight 95 (no preferred providers named). Bilingual: 20+20+20+15+10+5+0 = 90.
    const [first, second, third] = body.data
    expect(first).toMatchObject({ rank: 1, score: 94.7, mode: 'IN_PERSON', locationId: centre.locationId })
    expect(reason(first, 'language')).toMatchObject({ value: 1, points: 20, detail: 'Speaks es-MX' })
    expect(reason(first, 'specialty')).toMatchObject({ value: 1, points: 20 })
    expect(reason(first, 'payer')).toMatchObject({ value: 1, points: 15, detail: 'Accepts MEDICAID' })
    expect(reason(first, 'ageGroup')).toMatchObject({ value: 1, points: 10 })
    expect(reason(first, 'availability')).toMatchObject({ value: 1, points: 20 })
    expect(reason(first, 'soonestSlot')).toMatchObject({ value: 1, points: 5 })
    expect(reason(first, 'continuity')).toMatchObject({ applicable: true, value: 0, points: 0 })
    expect(reason(first, 'preferred')).toMatchObject({ applicable: false, points: 0 })
    // Telehealth: language 20, availability 20, age not stated 5, soonest 5 = 50 of 95.
    expect(second).toMatchObject({ rank: 2, score: 52.6, mode: 'TELEHEALTH', locationId: otherLocation })
    expect(reason(second, 'payer')).toMatchObject({ value: 0, detail: 'Does not accept MEDICAID' })
    expect(reason(second, 'ageGroup')).toMatchObject({ value: 0.5, points: 5 })
    // Morning: payer not stated 7.5, age not stated 5, nothing in the preferred times = 12.5 of 95.
    expect(third).toMatchObject({ rank: 3, score: 13.2 })
    expect(reason(third, 'availability')).toMatchObject({ value: 0, points: 0 })
    expect(third.nextSlots.every((s: { inPreferredTimes: boolean }) => !s.inPreferredTimes)).toBe(true)
    for (const entry of body.data) {
      const earned = entry.reasons.reduce((sum: number, r: Reason) => sum + r.points, 0)
      const possible = entry.reasons
        .filter((r: Reason) => r.applicable)
        .reduce((sum: number, r: { weight: number }) => sum + r.weight, 0)
      expect(entry.score).toBe(Math.round((earned * 1000) / possible) / 10)
    }

    // The slots are the availability engine's: Monday 15:00, 16:00, 17:00 for the bilingual SLP.
    const day = monday.toISOString().slice(0, 10)
    expect(first.nextSlots.map((s: { startsAt: string }) => s.startsAt)).toEqual([
      `${day}T15:00:00+00:00`,
      `${day}T16:00:00+00:00`,
      `${day}T17:00:00+00:00`,
    ])
    const offered = await platform.http.get(
      `/v1/availability?providerId=${bilingual}&from=${encodeURIComponent(monday.toISOString())}&to=${encodeURIComponent(new Date(monday.getTime() + 86_400_000).toISOString())}&durationMinutes=60&stepMinutes=15`,
      { token: centre.token }
    )
    const offeredStarts = offered.body.data[0].slots.map((s: { startsAt: string }) => s.startsAt)
    for (const slot of first.nextSlots) expect(offeredStarts).toContain(slot.startsAt)

    // Booking the first slot takes it: the next answer starts later.
    await created(centre, '/v1/appointments', {
      childId,
      providerId: bilingual,
      startsAt: first.nextSlots[0].startsAt,
      durationMinutes: 60,
    })
    const after = await match(centre, request)
    expect(after.body.data[0].providerId).toBe(bilingual)
    expect(after.body.data[0].nextSlots[0].startsAt).toBe(`${day}T16:00:00+00:00`)

    // Asking in person at the other location: only who works there, in person (the Spanish speaker first).
    const north = await match(centre, { ...request, setting: { mode: 'IN_PERSON', locationId: otherLocation } })
    expect(north.status).toBe(200)
    expect(north.body.data.map((m: { providerId: string; mode: string }) => [m.providerId, m.mode])).toEqual([
      [telehealth, 'IN_PERSON'],
      [northOnly, 'IN_PERSON'],
    ])
    // Bilingual, morning, school age and full caseload work only at the first location (checked before age and intake).
    expect(north.body.excluded).toEqual({ NOT_BOOKABLE: 2, DISCIPLINE: 1, SETTING: 4 })
  })

  it('answers the same request the same way, breaks ties by provider id, and rewards continuity of care', async () => {
    const centre = await newCentre()
    const hours = weekdays('09:00', '17:00')
    const twins = [
      await provider(centre, { name: 'Twin A', weeklyHours: hours }),
      await provider(centre, { name: 'Twin B', weeklyHours: hours }),
    ]
    // Open schedule (bookable now) and not taking new clients: matched only once they have seen the child.
    const familiar = await provider(centre, { name: 'Familiar' }, { acceptingNewClients: false })
    const childId = await created(centre, '/v1/children', {
      firstName: 'Sam',
      lastName: 'Lee',
      dateOfBirth: bornMonthsAgo(50),
    })
    const request = { childId, discipline: 'SPEECH_THERAPY', search: { from: nextMonday().toISOString(), days: 7 } }

    const before = await match(centre, request)
    expect(before.body.data.map((m: { providerId: string }) => m.providerId)).toEqual([...twins].sort())
    expect(before.body.excluded).toEqual({ NOT_ACCEPTING_NEW_CLIENTS: 1 })
    const again = await match(centre, request)
    expect(again.body).toEqual(before.body)

    const appointment = await created(centre, '/v1/appointments', {
      childId,
      providerId: familiar,
      startsAt: new Date(Date.now() - 2 * 60_000).toISOString(),
      durationMinutes: 30,
    })
    expect((await send(centre, 'POST', `/v1/appointments/${appointment}/complete`)).status).toBe(200)
    const after = await match(centre, request)
    expect(after.body.data[0].providerId).toBe(familiar)
    expect(reason(after.body.data[0], 'continuity')).toMatchObject({
      value: 1,
      points: 5,
      detail: 'Has seen the child before',
    })
    expect(after.body.excluded).toEqual({})

    const limited = await match(centre, { ...request, limit: 1 })
    expect(limited.body.data).toHaveLength(1)
    expect(limited.body.data[0]).toEqual(after.body.data[0])
  })

  it('refuses unknown references with field errors and never sees another tenant', async () => {
    const centre = await newCentre()
    const other = await newCentre()
    await provider(other, { name: 'Elsewhere' })
    const otherChild = await created(other, '/v1/children', {
      firstName: 'Ana',
      lastName: 'Diaz',
      dateOfBirth: bornMonthsAgo(40),
    })

    const foreign = await match(centre, { childId: otherChild, discipline: 'SPEECH_THERAPY' })
    expect(foreign.status).toBe(400)
    expect(foreign.body).toMatchObject({ code: 'validation_error', errors: [{ path: 'childId', code: 'not_found' }] })
    const empty = await match(centre, { discipline: 'SPEECH_THERAPY', languages: ['es'] })
    expect(empty.status).toBe(200)
    expect(empty.body).toMatchObject({ considered: 0, data: [] })

    const bad = await match(centre, {
      discipline: 'SPEECH_THERAPY',
      setting: { mode: 'IN_PERSON' },
      preferredTimes: { timeZone: 'Mars/Olympus', windows: [{ weekdays: ['MONDAY'], start: '09:00', end: '10:00' }] },
    })
    expect(bad.status).toBe(400)
    expect(bad.body.errors).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ path: 'setting.locationId', code: 'required' }),
        expect.objectContaining({ path: 'preferredTimes.timeZone', code: 'invalid_time_zone' }),
      ])
    )
    const notADiscipline = await match(centre, { discipline: 'ASTROLOGY' })
    expect(notADiscipline.status).toBe(400)
    expect(notADiscipline.body.code).toBe('validation_error')

    const profileOfOther = await platform.http.get(
      `/v1/therapists/${await provider(other, { name: 'X' })}/match-profile`,
      { token: centre.token }
    )
    expect(profileOfOther.status).toBe(404)
    expect(profileOfOther.body.code).toBe('not_found')
  })
})
