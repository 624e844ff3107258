/**
 * GET /v1/availability over HTTP against the real API and PostgreSQL: working hours in the provider's zone across
 * daylight-saving days, time off, appointments (a slot booked through POST /v1/appointments is gone on the next
 * call), buffers, minimum notice, open schedules, multi-provider filters, tenant isolation and validation. Booking's
 * own acceptance check (slotUnavailableReason) is exercised against the same database with the same facts.
 */
import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { slotUnavailableReason } from '../../domain/availability/assert-slot-bookable.ts'
import { runInUnitOfWork } from '../../infra/unit-of-work.ts'
import { startPlatform, type Platform } from '../support/platform.ts'

let platform: Platform

beforeAll(async () => {
  platform = await startPlatform({ withWorker: false })
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

/** A tenant of its own per test, so location policies set by one test never leak into another. */
async function newCentre(timeZone = 'America/Chicago'): Promise<Centre> {
  const client = await platform.newTenant(['providers', 'bookings', 'children'], timeZone)
  return { tenantId: client.tenantId, locationId: client.locationId, token: await platform.token(client) }
}

const post = (centre: Centre, path: string, body: unknown) =>
  platform.http.post(path, { token: centre.token, body, headers: { 'Idempotency-Key': randomUUID() } })

async function provider(centre: Centre, body: Record<string, unknown>): Promise<string> {
  const response = await post(centre, '/v1/providers', { name: 'Therapist', timeZone: 'America/Chicago', ...body })
  expect(response.status, JSON.stringify(response.body)).toBe(201)
  return response.body.id
}

interface Slot {
  startsAt: string
  endsAt: string
  timeZone: string
}

async function availability(centre: Centre, query: Record<string, string | number>) {
  const params = new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)]))
  return platform.http.get(`/v1/availability?${params}`, { token: centre.token })
}

/** The slots of one provider, as `startsAt` strings. */
async function starts(
  centre: Centre,
  providerId: string,
  from: string,
  to: string,
  durationMinutes: number,
  extra = {}
) {
  const response = await availability(centre, { providerId, from, to, durationMinutes, ...extra })
  expect(response.status, JSON.stringify(response.body)).toBe(200)
  expect(response.body.data).toHaveLength(1)
  return (response.body.data[0].slots as Slot[]).map((s) => s.startsAt)
}

describe('working hours in the provider zone', () => {
  it('offers 09:00 local on both sides of the spring-forward change, and two real hours on the short night (America/Chicago)', async () => {
    const centre = await newCentre()
    const id = await provider(centre, {
      weeklyHours: { SUNDAY: [{ start: '01:00', end: '04:00' }], MONDAY: [{ start: '09:00', end: '11:00' }] },
    })
    const response = await availability(centre, {
      providerId: id,
      from: '2027-03-07T00:00:00-06:00',
      to: '2027-03-16T00:00:00-05:00',
      durationMinutes: 60,
      stepMinutes: 60,
    })
    expect(response.status).toBe(200)
    const [entry] = response.body.data
    expect(entry).toMatchObject({
      providerId: id,
      timeZone: 'America/Chicago',
      bookable: true,
      locationId: centre.locationId,
    })
    expect(entry.slots).toEqual([
      { startsAt: '2027-03-07T01:00:00-06:00', endsAt: '2027-03-07T02:00:00-06:00', timeZone: 'America/Chicago' },
      { startsAt: '2027-03-07T02:00:00-06:00', endsAt: '2027-03-07T03:00:00-06:00', timeZone: 'America/Chicago' },
      { startsAt: '2027-03-07T03:00:00-06:00', endsAt: '2027-03-07T04:00:00-06:00', timeZone: 'America/Chicago' },
      { startsAt: '2027-03-08T09:00:00-06:00', endsAt: '2027-03-08T10:00:00-06:00', timeZone: 'America/Chicago' },
      { startsAt: '2027-03-08T10:00:00-06:00', endsAt: '2027-03-08T11:00:00-06:00', timeZone: 'America/Chicago' },
      // 2027-03-14: 02:00 does not exist; 01:00 CST to 04:00 CDT is two hours.
      { startsAt: '2027-03-14T01:00:00-06:00', endsAt: '2027-03-14T03:00:00-05:00', timeZone: 'America/Chicago' },
      { startsAt: '2027-03-14T03:00:00-05:00', endsAt: '2027-03-14T04:00:00-05:00', timeZone: 'America/Chicago' },
      { startsAt: '2027-03-15T09:00:00-05:00', endsAt: '2027-03-15T10:00:00-05:00', timeZone: 'America/Chicago' },
      { startsAt: '2027-03-15T10:00:00-05:00', endsAt: '2027-03-15T11:00:00-05:00', timeZone: 'America/Chicago' },
    ])
  })

  it('offers the repeated hour twice on the fall-back night (Europe/London 2027-10-31)', async () => {
    const centre = await newCentre('Europe/London')
    const id = await provider(centre, {
      timeZone: 'Europe/London',
      weeklyHours: { SUNDAY: [{ start: '00:00', end: '03:00' }] },
    })
    expect(
      await starts(centre, id, '2027-10-30T12:00:00+01:00', '2027-10-31T12:00:00+00:00', 60, { stepMinutes: 60 })
    ).toEqual([
      '2027-10-31T00:00:00+01:00',
      '2027-10-31T01:00:00+01:00',
      '2027-10-31T01:00:00+00:00',
      '2027-10-31T02:00:00+00:00',
    ])
  })

  it('shows slots in the provider zone even when the centre is elsewhere, with any offset accepted on input', async () => {
    const centre = await newCentre('America/New_York')
    const id = await provider(centre, {
      timeZone: 'America/Los_Angeles',
      weeklyHours: { TUESDAY: [{ start: '08:00', end: '09:00' }] },
    })
    expect(await starts(centre, id, '2027-01-05T00:00:00Z', '2027-01-06T12:00:00+09:00', 30)).toEqual([
      '2027-01-05T08:00:00-08:00',
      '2027-01-05T08:15:00-08:00',
      '2027-01-05T08:30:00-08:00',
    ])
  })
})

describe('what removes slots', () => {
  const day = ['2027-02-01T00:00:00-06:00', '2027-02-02T00:00:00-06:00'] as const
  const hours = { MONDAY: [{ start: '09:00', end: '13:00' }] }

  it('time off, until it is deleted', async () => {
    const centre = await newCentre()
    const id = await provider(centre, { weeklyHours: hours })
    const before = await starts(centre, id, ...day, 60, { stepMinutes: 60 })
    expect(before.map((s) => s.slice(11, 16))).toEqual(['09:00', '10:00', '11:00', '12:00'])
    const off = await post(centre, `/v1/providers/${id}/time-off`, {
      startsAt: '2027-02-01T10:30:00-06:00',
      endsAt: '2027-02-01T12:00:00-06:00',
      reason: 'TRAINING',
    })
    expect(off.status).toBe(201)
    expect((await starts(centre, id, ...day, 60, { stepMinutes: 60 })).map((s) => s.slice(11, 16))).toEqual([
      '09:00',
      '12:00',
    ])
    await platform.http.request('DELETE', `/v1/providers/${id}/time-off/${off.body.id}`, { token: centre.token })
    expect(await starts(centre, id, ...day, 60, { stepMinutes: 60 })).toEqual(before)
  })

  it('a slot booked through POST /v1/appointments is gone on the next call; the slots touching it stay', async () => {
    const centre = await newCentre()
    const id = await provider(centre, { weeklyHours: hours })
    const child = await post(centre, '/v1/children', {
      firstName: 'Maya',
      lastName: 'Okafor',
      dateOfBirth: '2023-04-18',
    })
    const response = await availability(centre, { providerId: id, from: day[0], to: day[1], durationMinutes: 45 })
    const offered: Slot[] = response.body.data[0].slots
    const chosen = offered[3]!
    expect(chosen.startsAt).toBe('2027-02-01T09:45:00-06:00')
    const booked = await post(centre, '/v1/appointments', {
      childId: child.body.id,
      providerId: id,
      startsAt: chosen.startsAt,
      endsAt: chosen.endsAt,
    })
    expect(booked.status, JSON.stringify(booked.body)).toBe(201)
    const after = (await availability(centre, { providerId: id, from: day[0], to: day[1], durationMinutes: 45 })).body
      .data[0].slots
    const afterStarts = after.map((s: Slot) => s.startsAt.slice(11, 16))
    // 45-minute slots on a 15-minute grid: those overlapping 09:45–10:30 go, the ones touching it stay.
    expect(afterStarts).toEqual(['09:00', '10:30', '10:45', '11:00', '11:15', '11:30', '11:45', '12:00', '12:15'])
  })

  it("the location's buffer around appointments, and booking refuses the same times (slotUnavailableReason)", async () => {
    const centre = await newCentre()
    const patched = await platform.http.request('PATCH', `/v1/locations/${centre.locationId}`, {
      token: centre.token,
      body: { bufferMinutes: 15 },
    })
    expect(patched.status).toBe(200)
    const id = await provider(centre, { weeklyHours: hours })
    const child = await post(centre, '/v1/children', { firstName: 'Ada', lastName: 'L', dateOfBirth: '2022-01-01' })
    const booked = await post(centre, '/v1/appointments', {
      childId: child.body.id,
      providerId: id,
      startsAt: '2027-02-01T10:00:00-06:00',
      endsAt: '2027-02-01T11:00:00-06:00',
    })
    expect(booked.status, JSON.stringify(booked.body)).toBe(201)
    const offered = await starts(centre, id, ...day, 60, { stepMinutes: 15 })
    expect(offered.map((s) => s.slice(11, 16))).toEqual(['11:15', '11:30', '11:45', '12:00'])

    const reason = (startsAt: string, endsAt: string) =>
      runInUnitOfWork(platform.api.deps.db, centre.tenantId, (uow) =>
        slotUnavailableReason(uow, { providerId: id, startsAt: new Date(startsAt), endsAt: new Date(endsAt) })
      )
    expect(await reason('2027-02-01T09:00:00-06:00', '2027-02-01T09:50:00-06:00')).toBe('buffer')
    expect(await reason('2027-02-01T10:30:00-06:00', '2027-02-01T11:30:00-06:00')).toBe('overlapping_appointment')
    expect(await reason('2027-02-01T11:15:00-06:00', '2027-02-01T12:15:00-06:00')).toBeNull()
    expect(await reason('2027-02-01T12:30:00-06:00', '2027-02-01T13:30:00-06:00')).toBe('outside_working_hours')
    // Every offered slot is accepted by the booking check.
    for (const startsAt of offered) {
      const start = new Date(startsAt)
      expect(await reason(startsAt, new Date(start.getTime() + 3_600_000).toISOString())).toBeNull()
    }
  })

  it("the location's minimum notice", async () => {
    const centre = await newCentre()
    await platform.http.request('PATCH', `/v1/locations/${centre.locationId}`, {
      token: centre.token,
      body: { minimumNoticeMinutes: 2880 },
    })
    const id = await provider(centre, {})
    const now = Date.now()
    const from = new Date(now).toISOString()
    const to = new Date(now + 4 * 86_400_000).toISOString()
    const slots = await starts(centre, id, from, to, 60)
    const first = Date.parse(slots[0]!)
    expect(first).toBeGreaterThanOrEqual(now + 2880 * 60_000)
    expect(first).toBeLessThan(now + 2880 * 60_000 + 15 * 60_000 + 5_000)
  })
})

describe('booking accepts what availability offers, and nothing else', () => {
  it('POST /v1/appointments refuses times outside the rules with 409 slot_unavailable naming the rule', async () => {
    const centre = await newCentre()
    await platform.http.request('PATCH', `/v1/locations/${centre.locationId}`, {
      token: centre.token,
      body: { minimumNoticeMinutes: 1440 },
    })
    const id = await provider(centre, { weeklyHours: { MONDAY: [{ start: '09:00', end: '13:00' }] } })
    const pending = await provider(centre, { onboardingStatus: 'INVITED' })
    const child = await post(centre, '/v1/children', {
      firstName: 'Maya',
      lastName: 'Okafor',
      dateOfBirth: '2023-04-18',
    })
    await post(centre, `/v1/providers/${id}/time-off`, {
      startsAt: '2027-02-08T00:00:00-06:00',
      endsAt: '2027-02-09T00:00:00-06:00',
      reason: 'VACATION',
    })
    const book = (providerId: string, startsAt: string, endsAt: string) =>
      post(centre, '/v1/appointments', { childId: child.body.id, providerId, startsAt, endsAt })
    const soon = new Date(Date.now() + 3_600_000)
    const refusals: Array<[string, string, string, string]> = [
      [id, '2027-02-01T14:00:00-06:00', '2027-02-01T15:00:00-06:00', 'outside_working_hours'],
      [id, '2027-02-02T10:00:00-06:00', '2027-02-02T11:00:00-06:00', 'outside_working_hours'],
      [id, '2027-02-08T10:00:00-06:00', '2027-02-08T11:00:00-06:00', 'time_off'],
      [pending, '2027-02-01T10:00:00-06:00', '2027-02-01T11:00:00-06:00', 'provider_not_bookable'],
      [id, soon.toISOString(), new Date(soon.getTime() + 3_600_000).toISOString(), 'minimum_notice'],
    ]
    for (const [providerId, startsAt, endsAt, reason] of refusals) {
      const refused = await book(providerId, startsAt, endsAt)
      expect(refused.status, `${startsAt} ${reason}`).toBe(409)
      expect(refused.body.code).toBe('slot_unavailable')
      expect(refused.body.detail).toContain(`(${reason})`)
    }
    const [offered] = (
      await availability(centre, {
        providerId: id,
        from: '2027-02-01T00:00:00-06:00',
        to: '2027-02-02T00:00:00-06:00',
        durationMinutes: 60,
      })
    ).body.data[0].slots as Slot[]
    const accepted = await book(id, offered!.startsAt, offered!.endsAt)
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(201)
  })
})

describe('open schedule and onboarding', () => {
  it('a provider without weekly hours is bookable round the clock', async () => {
    const centre = await newCentre()
    const id = await provider(centre, {})
    const slots = await starts(centre, id, '2027-01-05T00:00:00-06:00', '2027-01-06T00:00:00-06:00', 60, {
      stepMinutes: 60,
    })
    expect(slots).toHaveLength(24)
    expect(slots[0]).toBe('2027-01-05T00:00:00-06:00')
    expect(slots[23]).toBe('2027-01-05T23:00:00-06:00')
  })

  it("reports the server's time in Server-Timing: the handler's load, compute and json, and the whole request's total", async () => {
    const centre = await newCentre()
    const id = await provider(centre, {})
    const response = await availability(centre, {
      providerId: id,
      from: '2027-01-05T00:00:00-06:00',
      to: '2027-01-06T00:00:00-06:00',
      durationMinutes: 60,
    })
    expect(response.status).toBe(200)
    const metrics = Object.fromEntries(
      (response.headers.get('Server-Timing') ?? '').split(',').map((m) => {
        const [name, dur] = m.trim().split(';dur=')
        return [name, Number(dur)]
      })
    )
    expect(Object.keys(metrics).sort()).toEqual(['compute', 'json', 'load', 'total'])
    for (const ms of Object.values(metrics)) expect(ms).toBeGreaterThanOrEqual(0)
    // The total wraps the handler, so it is at least the handler's parts.
    expect(metrics.total).toBeGreaterThanOrEqual(metrics.load! + metrics.compute! + metrics.json!)
  })

  it('a provider who is not APPROVED has no slots until approved', async () => {
    const centre = await newCentre()
    const id = await provider(centre, { onboardingStatus: 'IN_REVIEW' })
    const query = {
      providerId: id,
      from: '2027-01-05T00:00:00-06:00',
      to: '2027-01-06T00:00:00-06:00',
      durationMinutes: 60,
    }
    const pending = await availability(centre, query)
    expect(pending.body.data[0]).toMatchObject({ providerId: id, bookable: false, slots: [] })
    await post(centre, `/v1/providers/${id}/approve`, undefined)
    const approved = await availability(centre, query)
    expect(approved.body.data[0].bookable).toBe(true)
    expect(approved.body.data[0].slots.length).toBeGreaterThan(0)
  })
})

describe('several providers', () => {
  it('filters by discipline, language and location; only APPROVED providers; pages by provider', async () => {
    const centre = await newCentre()
    const annex = (
      await post(centre, '/v1/locations', { name: 'Annex', timeZone: 'America/Chicago', bufferMinutes: 30 })
    ).body.id
    const main = { locationId: centre.locationId }
    const slp = await provider(centre, { ...main, disciplines: ['SPEECH_THERAPY'], languages: ['es-MX'] })
    const ot = await provider(centre, {
      ...main,
      disciplines: ['OCCUPATIONAL_THERAPY'],
      languages: ['en'],
      locationIds: [annex],
    })
    const slp2 = await provider(centre, {
      ...main,
      disciplines: ['SPEECH_THERAPY'],
      languages: ['en'],
      locationIds: [annex],
    })
    await provider(centre, { ...main, disciplines: ['SPEECH_THERAPY'], languages: ['es'], onboardingStatus: 'INVITED' })
    const range = { from: '2027-01-05T09:00:00-06:00', to: '2027-01-05T10:00:00-06:00', durationMinutes: 60 }
    const ids = async (query: Record<string, string | number>) => {
      const response = await availability(centre, { ...range, ...query })
      expect(response.status, JSON.stringify(response.body)).toBe(200)
      return response.body.data.map((p: { providerId: string }) => p.providerId)
    }
    expect(await ids({ discipline: 'SPEECH_THERAPY' })).toEqual([slp, slp2])
    expect(await ids({ language: 'es' })).toEqual([slp])
    expect(await ids({ locationId: annex })).toEqual([ot, slp2])
    expect(await ids({ discipline: 'SPEECH_THERAPY', language: 'en', locationId: annex })).toEqual([slp2])
    expect(await ids({ providerIds: `${slp2},${slp}` })).toEqual([slp, slp2])

    const byLocation = await availability(centre, { ...range, locationId: annex })
    expect(byLocation.body.data.every((p: { locationId: string }) => p.locationId === annex)).toBe(true)

    const first = await availability(centre, { ...range, limit: 2 })
    expect(first.body.data.map((p: { providerId: string }) => p.providerId)).toEqual([slp, ot])
    const second = await availability(centre, { ...range, limit: 2, cursor: first.body.nextCursor })
    expect(second.body.data.map((p: { providerId: string }) => p.providerId)).toEqual([slp2])
    expect(second.body.nextCursor).toBeNull()
  })

  it("never shows another tenant's providers: 404 by id, absent from filters", async () => {
    const owner = await newCentre()
    const stranger = await newCentre()
    const id = await provider(owner, { disciplines: ['PHYSICAL_THERAPY'] })
    const range = { from: '2027-01-05T09:00:00-06:00', to: '2027-01-05T10:00:00-06:00', durationMinutes: 60 }
    const byId = await availability(stranger, { ...range, providerId: id })
    expect(byId.status).toBe(404)
    expect(byId.body.code).toBe('not_found')
    const byIds = await availability(stranger, { ...range, providerIds: id })
    expect(byIds.status).toBe(404)
    const filtered = await availability(stranger, { ...range, discipline: 'PHYSICAL_THERAPY' })
    expect(filtered.body.data).toEqual([])
  })
})

describe('validation', () => {
  it('refuses ranges over 31 days, inverted ranges, bad durations and contradictory selections', async () => {
    const centre = await newCentre()
    const id = await provider(centre, {})
    const cases: Array<[Record<string, string | number>, string, string]> = [
      [
        { providerId: id, from: '2027-01-01T00:00:00Z', to: '2027-02-01T00:00:01Z', durationMinutes: 60 },
        'to',
        'range_too_long',
      ],
      [
        { providerId: id, from: '2027-01-02T00:00:00Z', to: '2027-01-01T00:00:00Z', durationMinutes: 60 },
        'to',
        'before_start',
      ],
      [
        { providerId: id, from: '2027-01-01T00:00:00Z', to: '2027-01-02T00:00:00Z', durationMinutes: 2 },
        'durationMinutes',
        'too_small',
      ],
      [
        { providerId: id, from: '2027-01-01T00:00:00', to: '2027-01-02T00:00:00Z', durationMinutes: 60 },
        'from',
        'invalid_format',
      ],
      [
        {
          providerId: id,
          discipline: 'SPEECH_THERAPY',
          from: '2027-01-01T00:00:00Z',
          to: '2027-01-02T00:00:00Z',
          durationMinutes: 60,
        },
        'discipline',
        'custom',
      ],
      // A coerced number: absent reads as "not a number".
      [{ from: '2027-01-01T00:00:00Z', to: '2027-01-02T00:00:00Z' }, 'durationMinutes', 'invalid_type'],
    ]
    for (const [query, path, code] of cases) {
      const response = await availability(centre, query)
      expect(response.status, JSON.stringify(query)).toBe(400)
      expect(response.body.code).toBe('validation_error')
      expect(response.body.errors.map((e: { path: string; code: string }) => `${e.path}:${e.code}`)).toContain(
        `${path}:${code}`
      )
    }
    const exactly31 = await availability(centre, {
      providerId: id,
      from: '2027-01-01T00:00:00Z',
      to: '2027-02-01T00:00:00Z',
      durationMinutes: 60,
    })
    expect(exactly31.status).toBe(200)
  })
})
