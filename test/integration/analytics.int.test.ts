/**
 * Analytics over HTTP against the real API and database, on known data checked figure by figure against counts made
 * independently in the test: day boundaries in the zone asked for, across the spring-forward (23-hour) and fall-back
 * (25-hour) days of America/Chicago; appointments by status and the rates; utilisation against available hours laid
 * out from weekly hours minus time off; new children; assessment completion; revenue and outstanding balances per
 * currency; the per-location breakdown adding up exactly to the totals; one location's answer equal to its entry;
 * tenant isolation.
 *
 * History cannot be created through the API (it stamps "now"), so the test builds its past: records whose times it
 * must choose are written directly (appointments, children, assessments) or created through the API and then moved
 * back in time (orders' opening, a refund's date). Every expected figure comes from that known list, with boundaries
 * written out by hand from the zone's published offsets (CST −06:00, CDT −05:00).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { AppointmentStatus } from '../../generated/prisma/enums.ts'
import { newId } from '../../domain/ids.ts'
import { analyticsCentres, MINUTE, type Centre } from '../support/analytics-centres.ts'
import { startPlatform, type Platform } from '../support/platform.ts'

let platform: Platform

beforeAll(async () => {
  platform = await startPlatform({ withWorker: false })
})

afterAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await platform?.stop()
})

const { newCentre, send, ok, inTenant } = analyticsCentres(() => platform)

const multi = (t: Centre, query: string) => ok(t, 'GET', `/v1/analytics/multi-location?${query}`, undefined, 200)

type Metrics = Record<string, any> // eslint-disable-line @typescript-eslint/no-explicit-any -- answers are checked field by field

/** Every additive figure of an answer, flattened: money by currency, counts and minutes. */
function additive(m: Metrics): Record<string, number> {
  const out: Record<string, number> = {}
  for (const [k, v] of Object.entries(m.appointments)) out[`appointments.${k}`] = v as number
  out.bookedMinutes = m.utilisation.bookedMinutes
  out.availableMinutes = m.utilisation.availableMinutes
  out.providers = m.utilisation.providers
  out.newChildren = m.newChildren
  out.due = m.assessments.due
  out.completed = m.assessments.completed
  out.completedInRange = m.assessments.completedInRange
  for (const r of m.revenue) for (const k of ['collected', 'refunded', 'net']) out[`revenue.${r.currency}.${k}`] = r[k]
  for (const o of m.outstanding) for (const k of ['amount', 'orders']) out[`outstanding.${o.currency}.${k}`] = o[k]
  return out
}

/** The breakdown adds up exactly to the totals, figure by figure; rates are recomputed from the totals. */
function expectBreakdownSums(answer: { totals: Metrics; locations: Array<{ metrics: Metrics }> }) {
  const sum: Record<string, number> = {}
  for (const entry of answer.locations)
    for (const [k, v] of Object.entries(additive(entry.metrics))) sum[k] = (sum[k] ?? 0) + v
  const totals = additive(answer.totals)
  for (const k of new Set([...Object.keys(sum), ...Object.keys(totals)])) expect(sum[k] ?? 0, k).toBe(totals[k] ?? 0)
  const a = answer.totals.appointments
  expect(answer.totals.cancellationRate).toBe(a.total ? Math.round((a.cancelled / a.total) * 10_000) / 10_000 : null)
}

interface SeedAppointment {
  provider: string
  location: string
  startsAt: string
  minutes: number
  status: AppointmentStatus
  late?: boolean
}

describe('analytics', () => {
  it('agrees with the raw records to the unit, with day boundaries in the zone across daylight-saving days', async () => {
    const t = await newCentre()
    const l1 = t.locationId
    const l2 = (await ok(t, 'POST', '/v1/locations', { name: 'Uptown', timeZone: 'America/Chicago' })).id
    const l3 = (await ok(t, 'POST', '/v1/locations', { name: 'Mountain', timeZone: 'America/Denver', currency: 'EUR' }))
      .id
    const provider = async (body: Record<string, unknown>) =>
      (await ok(t, 'POST', '/v1/providers', { name: 'Therapist', timeZone: 'America/Chicago', ...body })).id as string
    const p1 = await provider({
      locationId: l1,
      weeklyHours: { SUNDAY: [{ start: '01:00', end: '04:00' }], MONDAY: [{ start: '09:00', end: '17:00' }] },
    })
    const p2 = await provider({ locationId: l2, weeklyHours: { SUNDAY: [{ start: '10:00', end: '12:00' }] } })
    const p3 = await provider({ locationId: l3 }) // open schedule: no capacity to measure against
    const p4 = await provider({
      locationId: l3,
      timeZone: 'America/Denver',
      weeklyHours: { SUNDAY: [{ start: '00:00', end: '24:00' }] },
    })
    await ok(t, 'POST', `/v1/providers/${p4}/suspend`, undefined, 200) // not bookable: no capacity
    await ok(t, 'POST', `/v1/providers/${p2}/time-off`, {
      startsAt: '2026-03-08T10:30:00-05:00',
      endsAt: '2026-03-08T11:00:00-05:00',
      reason: 'PERSONAL',
    })
    // Approved since January, as far as this history goes.
    await inTenant(t, (uow) =>
      uow.tx.provider.updateMany({
        where: { tenantId: t.tenantId },
        data: { approvedAt: new Date('2026-01-01T00:00:00Z') },
      })
    )

    // Children: four written at chosen instants around the spring-forward day's boundaries (06:00Z and 05:00Z).
    const kids = [
      { location: l1, createdAt: '2026-03-08T06:00:00.000Z' },
      { location: l2, createdAt: '2026-03-09T04:59:59.999Z' },
      { location: null, createdAt: '2026-03-09T05:00:00.000Z' },
      { location: null, createdAt: '2026-03-08T12:00:00.000Z' },
      { location: l3, createdAt: '2026-03-08T05:59:59.999Z' },
    ].map((k) => ({ ...k, id: newId('child') }))
    await inTenant(t, (uow) =>
      uow.tx.child.createMany({
        data: kids.map((k) => ({
          id: k.id,
          tenantId: t.tenantId,
          locationId: k.location,
          firstName: 'Kid',
          lastName: 'Known',
          dateOfBirth: new Date('2023-01-01'),
          createdAt: new Date(k.createdAt),
        })),
      })
    )

    const appointments: SeedAppointment[] = [
      // Spring forward, Chicago 2026-03-08 = [06:00Z, 05:00Z next day): 23 hours.
      { provider: p1, location: l1, startsAt: '2026-03-08T07:00:00Z', minutes: 60, status: 'COMPLETED' },
      { provider: p1, location: l2, startsAt: '2026-03-08T08:30:00Z', minutes: 60, status: 'NO_SHOW' },
      { provider: p2, location: l2, startsAt: '2026-03-08T15:00:00Z', minutes: 30, status: 'CANCELLED', late: true },
      { provider: p2, location: l2, startsAt: '2026-03-08T16:00:00Z', minutes: 60, status: 'CONFIRMED' },
      { provider: p1, location: l1, startsAt: '2026-03-08T05:30:00Z', minutes: 60, status: 'COMPLETED' }, // the day before, 30 min into it
      { provider: p1, location: l1, startsAt: '2026-03-09T04:30:00Z', minutes: 60, status: 'COMPLETED' }, // 23:30 CDT, 30 min in
      { provider: p1, location: l1, startsAt: '2026-03-09T05:00:00Z', minutes: 30, status: 'CONFIRMED' }, // next day
      { provider: p3, location: l3, startsAt: '2026-03-08T18:00:00Z', minutes: 60, status: 'COMPLETED' },
      { provider: p4, location: l3, startsAt: '2026-03-08T20:00:00Z', minutes: 60, status: 'CANCELLED', late: false },
      // Fall back, Chicago 2026-11-01 = [05:00Z, 06:00Z next day): 25 hours, 01:30 twice.
      { provider: p1, location: l1, startsAt: '2026-11-01T06:30:00Z', minutes: 60, status: 'COMPLETED' },
      { provider: p1, location: l1, startsAt: '2026-11-01T07:30:00Z', minutes: 60, status: 'COMPLETED' },
      { provider: p1, location: l1, startsAt: '2026-11-02T05:30:00Z', minutes: 30, status: 'NO_SHOW' },
      { provider: p2, location: l2, startsAt: '2026-11-01T04:30:00Z', minutes: 60, status: 'COMPLETED' },
      { provider: p2, location: l2, startsAt: '2026-11-02T06:00:00Z', minutes: 30, status: 'CONFIRMED' },
    ]
    await inTenant(t, (uow) =>
      uow.tx.appointment.createMany({
        data: appointments.map((a, i) => {
          const startsAt = new Date(a.startsAt)
          return {
            id: newId('appointment'),
            tenantId: t.tenantId,
            locationId: a.location,
            childId: kids[i % kids.length]!.id,
            providerId: a.provider,
            type: 'THERAPY_SESSION',
            status: a.status,
            startsAt,
            endsAt: new Date(startsAt.getTime() + a.minutes * MINUTE),
            timeZone: 'America/Chicago',
            service: 'SPEECH_THERAPY',
            lateCancellation: a.status === 'CANCELLED' ? (a.late ?? false) : null,
            cancelledAt: a.status === 'CANCELLED' ? startsAt : null,
            cancellationReason: a.status === 'CANCELLED' ? 'OTHER' : null,
          }
        }),
      })
    )

    // Assessments due on the day (calendar dates), one cancelled, one completed that day though due earlier.
    const assessments = [
      { child: kids[0]!.id, dueDate: '2026-03-08', status: 'COMPLETED' as const, completedAt: '2026-03-08T20:00:00Z' },
      { child: kids[1]!.id, dueDate: '2026-03-08', status: 'SCHEDULED' as const },
      { child: kids[1]!.id, dueDate: '2026-03-08', status: 'CANCELLED' as const },
      { child: kids[3]!.id, dueDate: '2026-03-01', status: 'COMPLETED' as const, completedAt: '2026-03-08T07:00:00Z' },
      { child: kids[0]!.id, dueDate: '2026-03-09', status: 'DUE' as const },
    ]
    await inTenant(t, (uow) =>
      uow.tx.assessment.createMany({
        data: assessments.map((a) => ({
          id: newId('assessment'),
          tenantId: t.tenantId,
          childId: a.child,
          instrument: 'PLS-5',
          status: a.status,
          dueDate: new Date(a.dueDate),
          completedAt: a.completedAt ? new Date(a.completedAt) : null,
        })),
      })
    )

    // Money through the API, then moved back in time: opened orders, received payments, a refund.
    const order = async (locationId: string, currency: string, total: number, openedAt: string) => {
      const id = (
        await ok(t, 'POST', '/v1/orders', {
          status: 'OPEN',
          locationId,
          currency,
          lines: [{ kind: 'PRODUCT', description: 'x', unitAmount: total }],
        })
      ).id
      await inTenant(t, (uow) => uow.tx.order.update({ where: { id }, data: { openedAt: new Date(openedAt) } }))
      return id as string
    }
    const pay = async (orderId: string, amount: number, currency: string, receivedAt: string) =>
      (await ok(t, 'POST', '/v1/payments', { orderId, amount, currency, method: 'CASH', receivedAt })).id as string
    const oa = await order(l1, 'USD', 10_000, '2026-03-01T00:00:00Z')
    const first = await pay(oa, 6_000, 'USD', '2026-03-08T12:00:00Z')
    await pay(oa, 4_000, 'USD', '2026-03-09T06:00:00Z') // after the day (00:00 CST... 01:00 CDT)
    const refund = (
      await ok(t, 'POST', `/v1/payments/${first}/refunds`, { amount: 1_000, reason: 'REQUESTED_BY_CLIENT' })
    ).id
    await inTenant(t, (uow) =>
      uow.tx.refund.update({ where: { id: refund }, data: { createdAt: new Date('2026-03-08T20:00:00Z') } })
    )
    await order(l2, 'USD', 5_000, '2026-03-08T10:00:00Z')
    await pay(await order(l3, 'EUR', 7_000, '2026-03-02T00:00:00Z'), 7_000, 'EUR', '2026-03-08T18:00:00Z')
    await order(l1, 'USD', 3_000, '2026-03-10T00:00:00Z') // opened after the day

    // ---- The spring-forward day in Chicago.
    const day = await multi(t, 'from=2026-03-08&to=2026-03-08&timeZone=America/Chicago')
    expect(day.range).toMatchObject({
      startsAt: '2026-03-08T00:00:00-06:00',
      endsAt: '2026-03-09T00:00:00-05:00',
      balancesAsOf: '2026-03-09T05:00:00.000Z',
    })
    const start = Date.parse('2026-03-08T06:00:00Z')
    const end = Date.parse('2026-03-09T05:00:00Z')
    expect(end - start).toBe(23 * 60 * MINUTE)

    // Independent counts from the known list.
    const inDay = (iso: string) => Date.parse(iso) >= start && Date.parse(iso) < end
    const count = (location: string, status?: AppointmentStatus) =>
      appointments.filter((a) => a.location === location && inDay(a.startsAt) && (!status || a.status === status))
        .length
    const bookedMinutes = (providers: string[]) =>
      appointments
        .filter((a) => providers.includes(a.provider) && a.status !== 'CANCELLED')
        .reduce((sum, a) => {
          const s = Date.parse(a.startsAt)
          return sum + Math.max(0, Math.min(s + a.minutes * MINUTE, end) - Math.max(s, start)) / MINUTE
        }, 0)
    const entry = (id: string | null) => day.locations.find((l: { locationId: string | null }) => l.locationId === id)
    expect(day.locations.map((l: { locationId: string | null }) => l.locationId)).toEqual([l1, l3, l2, null]) // by name, unassigned last
    for (const location of [l1, l2, l3]) {
      expect(entry(location).metrics.appointments).toEqual({
        total: count(location),
        confirmed: count(location, 'CONFIRMED'),
        completed: count(location, 'COMPLETED'),
        cancelled: count(location, 'CANCELLED'),
        lateCancelled: appointments.filter((a) => a.location === location && inDay(a.startsAt) && a.late).length,
        noShow: count(location, 'NO_SHOW'),
      })
    }
    expect(day.totals.appointments).toMatchObject({
      total: 7,
      completed: 3,
      noShow: 1,
      cancelled: 2,
      confirmed: 1,
      lateCancelled: 1,
    })
    expect(day.totals.cancellationRate).toBe(0.2857) // 2 / 7
    expect(day.totals.noShowRate).toBe(0.25) // 1 / (3 + 1)
    // The raw table agrees too, counted by the database without analytics' SQL.
    const raw = await inTenant(t, (uow) =>
      uow.tx.appointment.count({
        where: { tenantId: t.tenantId, startsAt: { gte: new Date(start), lt: new Date(end) } },
      })
    )
    expect(day.totals.appointments.total).toBe(raw)

    // Available: P1 Sunday 01:00 CST to 04:00 CDT is two real hours; P2 10:00-12:00 CDT minus 30 minutes off.
    expect(entry(l1).metrics.utilisation).toEqual({
      bookedMinutes: bookedMinutes([p1]),
      availableMinutes: 120,
      ratio: 1.5,
      providers: 1,
    })
    expect(bookedMinutes([p1])).toBe(180)
    expect(entry(l2).metrics.utilisation).toEqual({
      bookedMinutes: bookedMinutes([p2]),
      availableMinutes: 90,
      ratio: 0.6667,
      providers: 1,
    })
    expect(entry(l3).metrics.utilisation).toEqual({ bookedMinutes: 0, availableMinutes: 0, ratio: null, providers: 0 })

    expect(entry(l1).metrics.newChildren).toBe(kids.filter((k) => k.location === l1 && inDay(k.createdAt)).length)
    expect(entry(l2).metrics.newChildren).toBe(1)
    expect(entry(l3).metrics.newChildren).toBe(0)
    expect(entry(null).metrics.newChildren).toBe(1)
    expect(day.totals.newChildren).toBe(kids.filter((k) => inDay(k.createdAt)).length)
    expect(entry(l1).metrics.assessments).toEqual({ due: 1, completed: 1, completionRate: 1, completedInRange: 1 })
    expect(entry(l2).metrics.assessments).toEqual({ due: 1, completed: 0, completionRate: 0, completedInRange: 0 })
    expect(entry(null).metrics.assessments).toEqual({ due: 0, completed: 0, completionRate: null, completedInRange: 1 })

    expect(entry(l1).metrics.revenue).toEqual([{ currency: 'USD', collected: 6_000, refunded: 1_000, net: 5_000 }])
    expect(entry(l3).metrics.revenue).toEqual([{ currency: 'EUR', collected: 7_000, refunded: 0, net: 7_000 }])
    expect(entry(l1).metrics.outstanding).toEqual([{ currency: 'USD', amount: 4_000, orders: 1 }])
    expect(entry(l2).metrics.outstanding).toEqual([{ currency: 'USD', amount: 5_000, orders: 1 }])
    expect(day.totals.revenue).toEqual([
      { currency: 'EUR', collected: 7_000, refunded: 0, net: 7_000 },
      { currency: 'USD', collected: 6_000, refunded: 1_000, net: 5_000 },
    ])
    expectBreakdownSums(day)

    // The same calendar day in UTC is another set of hours: the 23:30 CST appointment is in, the 23:30 CDT one out.
    const utc = await multi(t, 'from=2026-03-08&to=2026-03-08&timeZone=UTC')
    const utcDay = (iso: string) => iso.startsWith('2026-03-08')
    expect(utc.totals.appointments.total).toBe(appointments.filter((a) => utcDay(a.startsAt)).length)
    expect(utc.totals.newChildren).toBe(kids.filter((k) => utcDay(k.createdAt)).length)
    const utcEntry = (id: string | null) =>
      utc.locations.find((l: { locationId: string | null }) => l.locationId === id)
    // 05:59 UTC on the 8th is still the 7th in Chicago; 04:59 UTC on the 9th is still the 8th there.
    expect([utcEntry(l3).metrics.newChildren, entry(l3).metrics.newChildren]).toEqual([1, 0])
    expect([utcEntry(l2).metrics.newChildren, entry(l2).metrics.newChildren]).toEqual([0, 1])
    expectBreakdownSums(utc)

    // ---- The fall-back day: 25 hours; P1's 01:00-04:00 is four real hours.
    const fall = await multi(t, 'from=2026-11-01&to=2026-11-01&timeZone=America/Chicago')
    expect(fall.range).toMatchObject({ startsAt: '2026-11-01T00:00:00-05:00', endsAt: '2026-11-02T00:00:00-06:00' })
    const fallEntry = (id: string) => fall.locations.find((l: { locationId: string | null }) => l.locationId === id)
    expect(fallEntry(l1).metrics.appointments).toMatchObject({ total: 3, completed: 2, noShow: 1 })
    expect(fallEntry(l1).metrics.utilisation).toEqual({
      bookedMinutes: 150,
      availableMinutes: 240,
      ratio: 0.625,
      providers: 1,
    })
    expect(fallEntry(l2).metrics.appointments.total).toBe(0)
    expect(fallEntry(l2).metrics.utilisation).toEqual({
      bookedMinutes: 30,
      availableMinutes: 120,
      ratio: 0.25,
      providers: 1,
    })
    expectBreakdownSums(fall)

    // One location's own answer is its entry of the multi-location answer; default zone: the location's.
    const one = await ok(t, 'GET', `/v1/analytics/locations/${l2}?from=2026-03-08&to=2026-03-08`, undefined, 200)
    expect(one.location).toEqual({ id: l2, name: 'Uptown', timeZone: 'America/Chicago' })
    expect(one.metrics).toEqual(entry(l2).metrics)
    // A subset of locations: totals over those only, no unassigned entry.
    const subset = await multi(t, `from=2026-03-08&to=2026-03-08&timeZone=America/Chicago&locationIds=${l2},${l1}`)
    expect(subset.locations.map((l: { locationId: string }) => l.locationId)).toEqual([l1, l2])
    expect(subset.totals.appointments.total).toBe(count(l1) + count(l2))
    expectBreakdownSums(subset)
    // A month: both the day's figures and everything else in March.
    const march = await multi(t, 'from=2026-03-01&to=2026-03-31&timeZone=America/Chicago')
    const inMarch = (iso: string) =>
      Date.parse(iso) >= Date.parse('2026-03-01T06:00:00Z') && Date.parse(iso) < Date.parse('2026-04-01T05:00:00Z')
    expect(march.totals.appointments.total).toBe(appointments.filter((a) => inMarch(a.startsAt)).length)
    expect(march.totals.assessments).toMatchObject({ due: 4, completed: 2, completedInRange: 2 })
    expectBreakdownSums(march)
  })

  it('validates ranges and never shows another tenant', async () => {
    const t = await newCentre()
    const other = await newCentre()
    await ok(other, 'POST', '/v1/children', { firstName: 'Ana', lastName: 'Diaz', dateOfBirth: '2022-01-01' })
    const today = new Date().toISOString().slice(0, 10)
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10)
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10)

    const mine = await multi(t, `from=${yesterday}&to=${tomorrow}&timeZone=UTC`)
    expect(mine.totals.newChildren).toBe(0)
    expect(mine.locations).toHaveLength(1)
    const theirs = await multi(other, `from=${yesterday}&to=${tomorrow}&timeZone=UTC`)
    expect(theirs.totals.newChildren).toBe(1)
    expect((await send(t, 'GET', `/v1/analytics/locations/${other.locationId}?from=${today}&to=${today}`)).status).toBe(
      404
    )
    const foreign = await send(
      t,
      'GET',
      `/v1/analytics/multi-location?from=${today}&to=${today}&timeZone=UTC&locationIds=${other.locationId}`
    )
    expect(foreign.status).toBe(400)
    expect(foreign.body.errors).toEqual([expect.objectContaining({ path: 'locationIds', code: 'not_found' })])

    const long = await send(t, 'GET', '/v1/analytics/multi-location?from=2025-01-01&to=2026-01-02&timeZone=UTC')
    expect(long.status).toBe(400)
    expect(long.body.errors).toEqual([expect.objectContaining({ path: 'to', code: 'range_too_long' })])
    const bad = await send(t, 'GET', '/v1/analytics/multi-location?from=2026-02-30&to=2026-01-01&timeZone=Mars/Olympus')
    expect(bad.status).toBe(400)
    expect(bad.body.errors.map((e: { path: string; code: string }) => `${e.path}:${e.code}`).sort()).toEqual([
      'from:invalid_date',
      'timeZone:invalid_time_zone',
    ])
    expect((await send(t, 'GET', '/v1/analytics/multi-location?from=2026-01-01&to=2026-01-01')).status).toBe(400)
  })
})
