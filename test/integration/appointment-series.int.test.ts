/**
 * Weekly appointment series over HTTP: occurrences in local time across a daylight-saving change, exceptions, the
 * all-or-nothing conflict rule and `skipConflicts`, the bound on length, skipping one occurrence, cancelling the rest,
 * lists, and tenant isolation.
 */
import { randomUUID } from 'node:crypto'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import {
  appointmentChangedSignal,
  appointmentWorkflowId,
} from '../../common/appointments/appointment-workflow-contract.ts'
import { eventually, startPlatform, type Platform } from '../support/platform.ts'

let platform: Platform
let token: string
let tenantId: string
let skewMs = 0

beforeAll(async () => {
  platform = await startPlatform({ clock: () => new Date(Date.now() + skewMs) })
  // The tenant's location is in Chicago: US daylight saving time starts on 14 March 2027.
  const client = await platform.newTenant(['children', 'providers', 'bookings'], 'America/Chicago')
  tenantId = client.tenantId
  token = await platform.token(client)
})

afterEach(() => {
  skewMs = 0
})

afterAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await platform?.stop()
})

const post = (path: string, body?: unknown, t = token) =>
  platform.http.post(path, { token: t, body, headers: { 'Idempotency-Key': randomUUID() } })
const get = (path: string, t = token) => platform.http.get(path, { token: t })

async function created(path: string, body: unknown): Promise<string> {
  const r = await post(path, body)
  if (r.status !== 201) throw new Error(`${path} answered ${r.status}: ${JSON.stringify(r.body)}`)
  return r.body.id as string
}
const newChild = () => created('/v1/children', { firstName: 'Ava', lastName: 'Lind', dateOfBirth: '2023-01-09' })
const newProvider = () => created('/v1/providers', { name: 'Ruth Ng', timeZone: 'America/Chicago' })

async function parties() {
  const [childId, providerId] = await Promise.all([newChild(), newProvider()])
  return { childId, providerId }
}

/** Tuesdays at 16:00 Chicago from 2 March 2027: the third occurrence is after the DST change. */
const weekly = (p: { childId: string; providerId: string }, extra: Record<string, unknown> = {}) => ({
  ...p,
  startsAt: '2027-03-02T16:00:00-06:00',
  durationMinutes: 45,
  recurrence: { frequency: 'WEEKLY', count: 4 },
  ...extra,
})

describe('POST /v1/appointment-series', () => {
  it('books one appointment per occurrence, at the same local time across the DST change', async () => {
    const p = await parties()
    const r = await post('/v1/appointment-series', weekly(p, { type: 'EARLY_INTERVENTION', notes: 'Home visit' }))
    expect(r.status, JSON.stringify(r.body)).toBe(201)
    const series = r.body
    expect(series.id).toMatch(/^ser_/)
    expect(r.headers.get('location')).toBe(`/v1/appointment-series/${series.id}`)
    expect(series).toMatchObject({
      ...p,
      type: 'EARLY_INTERVENTION',
      service: 'EARLY_INTERVENTION',
      timeZone: 'America/Chicago',
      startsAt: '2027-03-02T16:00:00-06:00',
      durationMinutes: 45,
      recurrence: { frequency: 'WEEKLY', interval: 1, byWeekday: ['TU'], count: 4, until: null },
      exceptions: [],
      skippedDates: [],
      cancelledFrom: null,
      notes: 'Home visit',
    })
    expect(
      series.occurrences.map((o: { date: string; startsAt: string; status: string }) => [o.date, o.startsAt, o.status])
    ).toEqual([
      ['2027-03-02', '2027-03-02T16:00:00-06:00', 'CONFIRMED'],
      ['2027-03-09', '2027-03-09T16:00:00-06:00', 'CONFIRMED'],
      ['2027-03-16', '2027-03-16T16:00:00-05:00', 'CONFIRMED'],
      ['2027-03-23', '2027-03-23T16:00:00-05:00', 'CONFIRMED'],
    ])

    // Each occurrence is an ordinary appointment with its workflow and its booking.created event.
    const third = series.occurrences[2]
    const appointment = await get(`/v1/appointments/${third.appointmentId}`)
    expect(appointment.body).toMatchObject({
      status: 'CONFIRMED',
      seriesId: series.id,
      occurrenceDate: '2027-03-16',
      startsAt: '2027-03-16T16:00:00-05:00',
      endsAt: '2027-03-16T16:45:00-05:00',
      notes: 'Home visit',
    })
    const listed = await get(`/v1/appointments?seriesId=${series.id}`)
    expect(listed.body.data.map((a: { id: string }) => a.id)).toEqual(
      series.occurrences.map((o: { appointmentId: string }) => o.appointmentId)
    )
    const events = await platform.api.deps.db.event.findMany({ where: { tenantId, type: 'booking.created' } })
    const mine = events.filter((e) =>
      series.occurrences.some(
        (o: { appointmentId: string }) => o.appointmentId === (e.data as { bookingId: string }).bookingId
      )
    )
    expect(mine).toHaveLength(4)
    const handle = platform.temporal.workflow.getHandle(appointmentWorkflowId(third.appointmentId))
    expect((await eventually(() => handle.describe().catch(() => undefined))).status.name).toBe('RUNNING')
  })

  it('skips exceptions (counted, as RFC 5545 does) and books several weekdays every other week', async () => {
    const p = await parties()
    const r = await post(
      '/v1/appointment-series',
      weekly(p, {
        recurrence: { frequency: 'WEEKLY', interval: 2, byWeekday: ['TU', 'TH'], until: '2027-03-31' },
        exceptions: ['2027-03-04'],
      })
    )
    expect(r.status, JSON.stringify(r.body)).toBe(201)
    expect(r.body.exceptions).toEqual(['2027-03-04'])
    expect(r.body.occurrences.map((o: { date: string }) => o.date)).toEqual([
      '2027-03-02',
      '2027-03-16',
      '2027-03-18',
      '2027-03-30',
    ])
  })

  it('refuses the whole series when an occurrence conflicts, listing every conflicting date', async () => {
    const p = await parties()
    const otherProvider = await newProvider()
    // The provider is taken on the second Tuesday; the child is taken (elsewhere) on the fourth.
    await created('/v1/appointments', {
      childId: await newChild(),
      providerId: p.providerId,
      startsAt: '2027-03-09T16:30:00-06:00',
    })
    await created('/v1/appointments', {
      childId: p.childId,
      providerId: otherProvider,
      startsAt: '2027-03-23T15:30:00-05:00',
    })

    const refused = await post('/v1/appointment-series', weekly(p))
    expect(refused.status).toBe(409)
    expect(refused.body.code).toBe('slot_unavailable')
    expect(refused.body.errors.map((e: { path: string; code: string }) => `${e.path}:${e.code}`)).toEqual([
      'occurrences[2027-03-09]:slot_unavailable',
      'occurrences[2027-03-23]:slot_unavailable',
    ])
    expect(refused.body.errors[1].message).toContain('child')
    // Nothing was booked: no series, no occurrence.
    expect(await platform.api.deps.db.appointmentSeries.count({ where: { childId: p.childId } })).toBe(0)
    expect(await platform.api.deps.db.appointment.count({ where: { providerId: p.providerId } })).toBe(1)

    const skipping = await post('/v1/appointment-series', weekly(p, { skipConflicts: true }))
    expect(skipping.status).toBe(201)
    expect(skipping.body.skippedDates).toEqual(['2027-03-09', '2027-03-23'])
    expect(skipping.body.occurrences.map((o: { date: string }) => o.date)).toEqual(['2027-03-02', '2027-03-16'])

    // A series with nothing bookable is refused even with skipConflicts.
    const none = await post(
      '/v1/appointment-series',
      weekly(p, { skipConflicts: true, recurrence: { frequency: 'WEEKLY', count: 1 } })
    )
    expect(none.status).toBe(409)
  })

  it('refuses rules that are too long or inconsistent with a 400 naming the field', async () => {
    const p = await parties()
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ recurrence: { frequency: 'WEEKLY', count: 53 } }, 'recurrence.count:too_big'],
      [{ recurrence: { frequency: 'WEEKLY', until: '2028-12-31' } }, 'recurrence:too_many_occurrences'],
      [{ recurrence: { frequency: 'WEEKLY', count: 2, until: '2027-04-01' } }, 'recurrence:count_or_until'],
      [
        { recurrence: { frequency: 'WEEKLY', count: 2, byWeekday: ['MO'] } },
        'recurrence.byWeekday:first_occurrence_excluded',
      ],
      [{ recurrence: { frequency: 'MONTHLY', count: 2 } }, 'recurrence.frequency:invalid_value'],
      [{ exceptions: ['2027-03-03'] }, 'exceptions[0]:not_an_occurrence'],
      [{ exceptions: ['2027-02-30'] }, 'exceptions.0:invalid_date'],
      [{ startsAt: '2020-03-03T16:00:00-06:00' }, 'startsAt:in_past'],
    ]
    for (const [extra, expected] of cases) {
      const r = await post('/v1/appointment-series', weekly(p, extra))
      expect(r.status, expected).toBe(400)
      expect(r.body.code).toBe('validation_error')
      expect(r.body.errors.map((e: { path: string; code: string }) => `${e.path}:${e.code}`)).toContain(expected)
    }
    const exactlyMax = await post(
      '/v1/appointment-series',
      weekly(p, { recurrence: { frequency: 'WEEKLY', count: 52 } })
    )
    expect(exactlyMax.status).toBe(201)
    expect(exactlyMax.body.occurrences).toHaveLength(52)
  })
})

describe('changing a series', () => {
  it('skips one occurrence: cancels its appointment with the reason, once', async () => {
    const p = await parties()
    const series = (await post('/v1/appointment-series', weekly(p))).body
    const second = series.occurrences[1]
    const r = await post(`/v1/appointment-series/${series.id}/exceptions`, {
      date: '2027-03-09',
      reason: 'FAMILY_REQUEST',
      note: 'Holiday',
    })
    expect(r.status).toBe(200)
    expect(r.body.exceptions).toEqual(['2027-03-09'])
    expect(r.body.occurrences[1]).toMatchObject({ date: '2027-03-09', status: 'CANCELLED' })
    const appointment = await get(`/v1/appointments/${second.appointmentId}`)
    expect(appointment.body.cancellation).toMatchObject({
      reason: 'FAMILY_REQUEST',
      note: 'Holiday',
      lateCancellation: false,
    })
    const events = await platform.api.deps.db.event.findMany({ where: { tenantId, type: 'booking.cancelled' } })
    expect(events.filter((e) => (e.data as { bookingId: string }).bookingId === second.appointmentId)).toHaveLength(1)

    const again = await post(`/v1/appointment-series/${series.id}/exceptions`, { date: '2027-03-09', reason: 'OTHER' })
    expect(again.status).toBe(200)
    expect(again.body.exceptions).toEqual(['2027-03-09'])
    const notADate = await post(`/v1/appointment-series/${series.id}/exceptions`, {
      date: '2027-03-10',
      reason: 'OTHER',
    })
    expect(notADate.status).toBe(400)
    expect(notADate.body.errors).toEqual([expect.objectContaining({ path: 'date', code: 'not_an_occurrence' })])
  })

  it('refuses to skip an occurrence that already took place', async () => {
    const p = await parties()
    const start = new Date(Date.now() + 3 * 60_000)
    start.setUTCSeconds(0, 0)
    const series = (
      await post('/v1/appointment-series', {
        ...p,
        startsAt: start.toISOString(),
        recurrence: { frequency: 'WEEKLY', count: 2 },
      })
    ).body
    skewMs = 5 * 60_000
    const first = series.occurrences[0]
    expect((await post(`/v1/appointments/${first.appointmentId}/complete`)).status).toBe(200)
    const r = await post(`/v1/appointment-series/${series.id}/exceptions`, { date: first.date, reason: 'OTHER' })
    expect(r.status).toBe(409)
    expect(r.body.code).toBe('invalid_state_transition')
    expect(r.body.detail).toContain('COMPLETED')
  })

  it('cancels the rest of a series from a date, leaving earlier occurrences alone', async () => {
    const p = await parties()
    const series = (await post('/v1/appointment-series', weekly(p))).body
    const r = await post(`/v1/appointment-series/${series.id}/cancel`, {
      from: '2027-03-16',
      reason: 'PROVIDER_UNAVAILABLE',
    })
    expect(r.status).toBe(200)
    expect(r.body.cancelledFrom).toBe('2027-03-16')
    expect(r.body.occurrences.map((o: { status: string }) => o.status)).toEqual([
      'CONFIRMED',
      'CONFIRMED',
      'CANCELLED',
      'CANCELLED',
    ])
    // A series cancellation signals without an update, so an occurrence's workflow still in its start delay
    // (BOOKING_WORKFLOW_START=deferred) reads the cancellation when it runs. Run it now, as the delay's end would.
    const appointmentId = series.occurrences[3].appointmentId
    const handle = platform.temporal.workflow.getHandle(appointmentWorkflowId(appointmentId))
    expect((await handle.describe()).executionTime!.getTime()).toBeGreaterThan(Date.now())
    await platform.temporal.workflow.signalWithStart('bookingWorkflow', {
      workflowId: handle.workflowId,
      taskQueue: platform.config.TEMPORAL_TASK_QUEUE,
      args: [{ tenantId, appointmentId }],
      signal: appointmentChangedSignal,
    })
    expect(await handle.result()).toEqual({ appointmentId, state: 'CANCELLED' })

    const past = await post(`/v1/appointment-series/${series.id}/cancel`, { from: '2020-01-01', reason: 'OTHER' })
    expect(past.status).toBe(400)
    expect(past.body.errors).toEqual([expect.objectContaining({ path: 'from', code: 'in_past' })])
    const all = await post(`/v1/appointment-series/${series.id}/cancel`, { reason: 'OTHER' })
    expect(all.body.occurrences.map((o: { status: string }) => o.status)).toEqual([
      'CANCELLED',
      'CANCELLED',
      'CANCELLED',
      'CANCELLED',
    ])
  })
})

describe('reading series', () => {
  it('lists with a cursor and filters, and hides other tenants’ series (404)', async () => {
    const p = await parties()
    const a = (await post('/v1/appointment-series', weekly(p))).body
    const b = (await post('/v1/appointment-series', weekly(p, { startsAt: '2027-03-02T10:00:00-06:00' }))).body
    const first = await get(`/v1/appointment-series?childId=${p.childId}&limit=1`)
    expect(first.status).toBe(200)
    expect(first.body.data.map((s: { id: string }) => s.id)).toEqual([b.id])
    const second = await get(`/v1/appointment-series?childId=${p.childId}&limit=1&cursor=${first.body.nextCursor}`)
    expect(second.body.data.map((s: { id: string }) => s.id)).toEqual([a.id])
    expect(second.body.nextCursor).toBeNull()
    expect((await get(`/v1/appointment-series/${a.id}`)).body).toEqual(a)

    const other = await platform.newTenant(['bookings'])
    const otherToken = await platform.token(other)
    for (const r of [
      await get(`/v1/appointment-series/${a.id}`, otherToken),
      await post(`/v1/appointment-series/${a.id}/cancel`, { reason: 'OTHER' }, otherToken),
      await post(`/v1/appointment-series/${a.id}/exceptions`, { date: '2027-03-09', reason: 'OTHER' }, otherToken),
    ]) {
      expect(r.status).toBe(404)
      expect(r.body.code).toBe('not_found')
    }
    expect((await get(`/v1/appointment-series?childId=${p.childId}`, otherToken)).body.data).toEqual([])
    const booking = await post(
      '/v1/appointment-series',
      weekly({ childId: p.childId, providerId: p.providerId }),
      otherToken
    )
    expect(booking.status).toBe(400)
    expect(booking.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(['childId', 'providerId'])
  })
})
