/**
 * The analytics roll-ups (docs/analytics.md, "Roll-ups") against the records they summarise: appointments and money
 * spread over several months are written, then changed in every way that moves a figure (status change, cancel with
 * a late flag, a reschedule into another month, a change of location and of provider, a longer session, a delete, a
 * bulk update, an update that changes nothing counted; payments received in another month, a refund moved and
 * deleted). After each step:
 *
 * - the roll-up tables equal a GROUP BY over the records, row for row (zero rows aside);
 * - the multi-location answer, over ranges whose whole months come from the roll-ups and whose edges come from the
 *   records (zones with whole-, half- and quarter-hour offsets), equals counts made in this test from the records
 *   read back, figure by figure, and the whole answer equals the one computed counting every record.
 *
 * Also: concurrent writers never lose a count (on PostgreSQL each writer has its own connection), a payment's month
 * row is not held while its transaction is open, and one tenant's roll-up rows are invisible and untouchable to
 * another (row-level security).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { AppointmentStatus } from '../../generated/prisma/enums.ts'
import { resolveRange } from '../../domain/analytics/analytics-range.ts'
import { multiLocationAnalytics } from '../../domain/analytics/analytics-service.ts'
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

const { newCentre, ok, inTenant } = analyticsCentres(() => platform)

/** The roll-up rows that differ from a GROUP BY over the records (either side; rows netted to zero ignored). */
async function rollupDrift(t: Centre) {
  return inTenant(t, async ({ tx }) => ({
    appointments: await tx.$queryRaw<unknown[]>`
      WITH truth AS (
        SELECT date_trunc('month', starts_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS month, location_id, provider_id,
               status::text AS status, count(*)::int AS n, (count(*) FILTER (WHERE late_cancellation))::int AS late,
               sum(extract(epoch FROM ends_at - starts_at) * 1000)::bigint AS ms
        FROM appointments GROUP BY 1, 2, 3, 4
      ), rolled AS (
        SELECT month, location_id, provider_id, status::text AS status, appointments AS n, late_cancelled AS late, duration_ms AS ms
        FROM analytics_appointment_months WHERE appointments <> 0 OR late_cancelled <> 0 OR duration_ms <> 0
      )
      (SELECT 'missing' AS side, * FROM truth EXCEPT SELECT 'missing', * FROM rolled)
      UNION ALL
      (SELECT 'extra' AS side, * FROM rolled EXCEPT SELECT 'extra', * FROM truth)`,
    money: await tx.$queryRaw<unknown[]>`
      WITH truth AS (
        SELECT month, location_id, currency, sum(collected)::bigint AS collected, sum(refunded)::bigint AS refunded FROM (
          SELECT date_trunc('month', received_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS month, location_id, currency,
                 amount AS collected, 0 AS refunded
          FROM payments WHERE status = 'SUCCEEDED' AND received_at IS NOT NULL
          UNION ALL
          SELECT date_trunc('month', r.created_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', p.location_id, r.currency, 0, r.amount
          FROM refunds r JOIN payments p ON p.id = r.payment_id
        ) d GROUP BY 1, 2, 3
      ), rolled AS (
        SELECT month, location_id, currency, collected, refunded FROM analytics_money_months WHERE collected <> 0 OR refunded <> 0
      )
      (SELECT 'missing' AS side, * FROM truth EXCEPT SELECT 'missing', * FROM rolled)
      UNION ALL
      (SELECT 'extra' AS side, * FROM rolled EXCEPT SELECT 'extra', * FROM truth)`,
  }))
}

interface Expected {
  total: number
  byStatus: Record<string, number>
  late: number
  bookedMinutes: number
  byLocation: Map<string, number>
  collected: number
  refunded: number
}

/**
 * The figures of a range counted here from the records read back (plain rows, no aggregate in the database):
 * appointments starting in it, booked time of non-cancelled appointments of providers with weekly hours clipped to
 * it, money received and refunded in it.
 */
async function expected(
  t: Centre,
  from: string,
  to: string,
  timeZone: string,
  capacityProviders: Set<string>
): Promise<Expected> {
  const { start, end } = resolveRange(from, to, timeZone)
  const [s, e] = [start.getTime(), end.getTime()]
  const { appointments, payments, refunds } = await inTenant(t, async ({ tx }) => ({
    appointments: await tx.appointment.findMany({
      select: {
        locationId: true,
        providerId: true,
        status: true,
        startsAt: true,
        endsAt: true,
        lateCancellation: true,
      },
    }),
    payments: await tx.payment.findMany({ select: { amount: true, status: true, receivedAt: true } }),
    refunds: await tx.refund.findMany({ select: { amount: true, createdAt: true } }),
  }))
  const out: Expected = {
    total: 0,
    byStatus: {},
    late: 0,
    bookedMinutes: 0,
    byLocation: new Map(),
    collected: 0,
    refunded: 0,
  }
  const inRange = (d: Date) => d.getTime() >= s && d.getTime() < e
  for (const a of appointments) {
    if (inRange(a.startsAt)) {
      out.total += 1
      out.byStatus[a.status] = (out.byStatus[a.status] ?? 0) + 1
      if (a.lateCancellation) out.late += 1
      out.byLocation.set(a.locationId, (out.byLocation.get(a.locationId) ?? 0) + 1)
    }
    if (a.status !== 'CANCELLED' && capacityProviders.has(a.providerId)) {
      out.bookedMinutes += Math.max(0, Math.min(a.endsAt.getTime(), e) - Math.max(a.startsAt.getTime(), s)) / MINUTE
    }
  }
  for (const p of payments)
    if (p.status === 'SUCCEEDED' && p.receivedAt && inRange(p.receivedAt)) out.collected += p.amount
  for (const r of refunds) if (inRange(r.createdAt)) out.refunded += r.amount
  return out
}

/** Ranges whose whole UTC months come from the roll-ups and edges from the records, in zones of every offset kind. */
const RANGES: Array<[string, string, string]> = [
  ['2026-01-01', '2026-06-30', 'UTC'], // whole months only, edges empty
  ['2026-01-15', '2026-05-20', 'America/Chicago'],
  ['2026-01-31', '2026-04-01', 'Asia/Kathmandu'], // +05:45
  ['2025-12-31', '2026-12-30', 'Australia/Eucla'], // +08:45
  ['2026-02-01', '2026-02-28', 'Asia/Kolkata'], // +05:30, no whole month
  ['2026-03-01', '2026-03-31', 'Pacific/Kiritimati'], // +14:00
]

async function expectAnswersMatch(t: Centre, capacityProviders: Set<string>, step: string) {
  expect(await rollupDrift(t), `${step}: roll-ups equal the records`).toEqual({ appointments: [], money: [] })
  for (const [from, to, timeZone] of RANGES) {
    const label = `${step}: ${from}..${to} ${timeZone}`
    const want = await expected(t, from, to, timeZone, capacityProviders)
    const got = await ok(
      t,
      'GET',
      `/v1/analytics/multi-location?${new URLSearchParams({ from, to, timeZone })}`,
      undefined,
      200
    )
    const a = got.totals.appointments
    expect(a.total, label).toBe(want.total)
    expect({ confirmed: a.confirmed, completed: a.completed, cancelled: a.cancelled, noShow: a.noShow }, label).toEqual(
      {
        confirmed: want.byStatus.CONFIRMED ?? 0,
        completed: want.byStatus.COMPLETED ?? 0,
        cancelled: want.byStatus.CANCELLED ?? 0,
        noShow: want.byStatus.NO_SHOW ?? 0,
      }
    )
    expect(a.lateCancelled, label).toBe(want.late)
    expect(got.totals.utilisation.bookedMinutes, label).toBe(want.bookedMinutes)
    for (const entry of got.locations as Array<{
      locationId: string | null
      metrics: { appointments: { total: number } }
    }>) {
      if (entry.locationId)
        expect(entry.metrics.appointments.total, `${label} ${entry.locationId}`).toBe(
          want.byLocation.get(entry.locationId) ?? 0
        )
    }
    // And the whole answer equals the one counting every record (no roll-ups), figure for figure.
    const now = new Date()
    const [rolled, counted] = await Promise.all(
      [true, false].map((rollups) =>
        inTenant(t, (uow) => multiLocationAnalytics(uow, { from, to, timeZone }, now, { rollups }))
      )
    )
    expect(rolled, label).toEqual(counted)
    const usd = (got.totals.revenue as Array<{ currency: string; collected: number; refunded: number }>).find(
      (r) => r.currency === 'USD'
    )
    expect({ collected: usd?.collected ?? 0, refunded: usd?.refunded ?? 0 }, label).toEqual({
      collected: want.collected,
      refunded: want.refunded,
    })
  }
}

describe('analytics roll-ups', () => {
  it('stay equal to the records through inserts, status changes, moves across months and locations, and deletes', async () => {
    const t = await newCentre()
    const l1 = t.locationId
    const l2 = (await ok(t, 'POST', '/v1/locations', { name: 'Uptown', timeZone: 'America/Chicago' })).id as string
    const hours = { MONDAY: [{ start: '08:00', end: '18:00' }], TUESDAY: [{ start: '08:00', end: '18:00' }] }
    const p1 = (
      await ok(t, 'POST', '/v1/providers', {
        name: 'A',
        timeZone: 'America/Chicago',
        locationId: l1,
        weeklyHours: hours,
      })
    ).id as string
    const p2 = (
      await ok(t, 'POST', '/v1/providers', {
        name: 'B',
        timeZone: 'America/Chicago',
        locationId: l2,
        weeklyHours: hours,
      })
    ).id as string
    const p3 = (await ok(t, 'POST', '/v1/providers', { name: 'C', timeZone: 'America/Chicago', locationId: l2 }))
      .id as string // open schedule
    await inTenant(t, (uow) => uow.tx.provider.updateMany({ data: { approvedAt: new Date('2025-01-01T00:00:00Z') } }))
    const capacity = new Set([p1, p2])
    const child = (
      await ok(t, 'POST', '/v1/children', {
        firstName: 'Kid',
        lastName: 'Known',
        dateOfBirth: '2023-01-01',
        locationId: l1,
      })
    ).id as string

    // About 120 appointments from December 2025 to July 2026 at awkward instants: month boundaries, the last minutes
    // of a month running into the next, 15-minute offsets that fall inside half- and quarter-hour zones' days.
    const statuses: AppointmentStatus[] = ['COMPLETED', 'CONFIRMED', 'CANCELLED', 'NO_SHOW']
    const seed = Array.from({ length: 120 }, (_, i) => {
      const startsAt = new Date(
        Date.UTC(2025, 11, 1) + i * 1.9 * 86_400_000 + (i % 8) * 15 * MINUTE - (i % 5 === 0 ? 30 * MINUTE : 0)
      )
      const status = statuses[i % 4]!
      return {
        id: newId('appointment'),
        tenantId: t.tenantId,
        locationId: i % 3 === 0 ? l2 : l1,
        childId: child,
        providerId: [p1, p2, p3][i % 3]!,
        type: 'THERAPY_SESSION' as const,
        status,
        startsAt,
        endsAt: new Date(startsAt.getTime() + (30 + (i % 4) * 30) * MINUTE),
        timeZone: 'America/Chicago',
        service: 'SPEECH_THERAPY',
        lateCancellation: status === 'CANCELLED' ? i % 8 === 2 : null,
        cancelledAt: status === 'CANCELLED' ? startsAt : null,
        cancellationReason: status === 'CANCELLED' ? ('OTHER' as const) : null,
      }
    })
    // One starting in the last minutes of January, running into February; one at the first instant of March.
    seed.push({
      ...seed[1]!,
      id: newId('appointment'),
      status: 'COMPLETED',
      startsAt: new Date('2026-01-31T23:30:00Z'),
      endsAt: new Date('2026-02-01T00:30:00Z'),
    })
    seed.push({
      ...seed[1]!,
      id: newId('appointment'),
      status: 'COMPLETED',
      startsAt: new Date('2026-03-01T00:00:00Z'),
      endsAt: new Date('2026-03-01T01:00:00Z'),
    })
    await inTenant(t, (uow) => uow.tx.appointment.createMany({ data: seed }))

    // Money through the API, received in several months, one refund moved back in time.
    const order = async (locationId: string, total: number) =>
      (
        await ok(t, 'POST', '/v1/orders', {
          status: 'OPEN',
          locationId,
          currency: 'USD',
          lines: [{ kind: 'PRODUCT', description: 'x', unitAmount: total }],
        })
      ).id as string
    const pay = async (orderId: string, amount: number, receivedAt: string) =>
      (await ok(t, 'POST', '/v1/payments', { orderId, amount, currency: 'USD', method: 'CASH', receivedAt }))
        .id as string
    const o1 = await order(l1, 50_000)
    const first = await pay(o1, 10_000, '2026-01-31T23:59:59.999Z')
    await pay(o1, 7_000, '2026-02-01T00:00:00.000Z')
    await pay(await order(l2, 9_000), 9_000, '2026-04-10T12:00:00Z')
    const refund = (
      await ok(t, 'POST', `/v1/payments/${first}/refunds`, { amount: 2_500, reason: 'REQUESTED_BY_CLIENT' })
    ).id as string
    await inTenant(t, (uow) =>
      uow.tx.refund.update({ where: { id: refund }, data: { createdAt: new Date('2026-03-15T10:00:00Z') } })
    )

    await expectAnswersMatch(t, capacity, 'seeded')

    const [a, b, c, d, e] = seed.slice(8, 13).map((s) => s.id)
    await inTenant(t, async ({ tx }) => {
      // Status change, and a cancellation inside the late window.
      await tx.appointment.update({ where: { id: a! }, data: { status: 'NO_SHOW' } })
      await tx.appointment.update({
        where: { id: b! },
        data: { status: 'CANCELLED', lateCancellation: true, cancelledAt: new Date(), cancellationReason: 'OTHER' },
      })
      // Rescheduled into another month and made longer; another moved to the other location and provider.
      await tx.appointment.update({
        where: { id: c! },
        data: { startsAt: new Date('2026-05-31T23:45:00Z'), endsAt: new Date('2026-06-01T01:15:00Z') },
      })
      await tx.appointment.update({ where: { id: d! }, data: { locationId: l2, providerId: p2 } })
      await tx.appointment.delete({ where: { id: e! } })
      // A note changes nothing counted; a bulk update moves many rows at once.
      await tx.appointment.updateMany({ where: { id: a! }, data: { cancellationNote: 'nothing counted changes' } })
      await tx.appointment.updateMany({
        where: { status: 'CONFIRMED', startsAt: { lt: new Date('2026-03-01T00:00:00Z') } },
        data: { status: 'COMPLETED' },
      })
    })
    await expectAnswersMatch(t, capacity, 'changed')

    // Money changes: a payment moved to another month, a refund taken back.
    await inTenant(t, async ({ tx }) => {
      await tx.payment.update({ where: { id: first }, data: { receivedAt: new Date('2026-05-02T08:00:00Z') } })
      await tx.refund.delete({ where: { id: refund } })
      await tx.appointment.deleteMany({ where: { providerId: p3 } })
    })
    await expectAnswersMatch(t, capacity, 'money changed')
  })

  it('lose no count under concurrent writers', async () => {
    const t = await newCentre()
    const provider = (
      await ok(t, 'POST', '/v1/providers', { name: 'A', timeZone: 'America/Chicago', locationId: t.locationId })
    ).id as string
    const child = (
      await ok(t, 'POST', '/v1/children', { firstName: 'Kid', lastName: 'Known', dateOfBirth: '2023-01-01' })
    ).id as string
    // Twelve transactions at once, all adding to the same roll-up row (same month, location, provider, status).
    await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        inTenant(t, ({ tx }) => {
          const startsAt = new Date(Date.UTC(2026, 3, 1 + i, 15))
          return tx.appointment.create({
            data: {
              id: newId('appointment'),
              tenantId: t.tenantId,
              locationId: t.locationId,
              childId: child,
              providerId: provider,
              type: 'THERAPY_SESSION',
              status: 'COMPLETED',
              startsAt,
              endsAt: new Date(startsAt.getTime() + 45 * MINUTE),
              timeZone: 'America/Chicago',
              service: 'SPEECH_THERAPY',
            },
          })
        })
      )
    )
    const rows = await inTenant(
      t,
      ({ tx }) =>
        tx.$queryRaw<
          Array<{ n: number; ms: number }>
        >`SELECT appointments AS n, duration_ms::float8 AS ms FROM analytics_appointment_months`
    )
    expect(rows).toEqual([{ n: 12, ms: 12 * 45 * MINUTE }])
  })

  it("hold no payment's month row while the payment's transaction is still open", async () => {
    // Two payments of one location in one month add to one roll-up row. Written with the payment's row, that row stayed
    // locked until the transaction ended, so the location's payments ran one at a time (issue 56); added at commit,
    // the second payment does not wait for the first transaction to end.
    const t = await newCentre()
    const orderOf = async () =>
      (
        await ok(t, 'POST', '/v1/orders', {
          status: 'OPEN',
          locationId: t.locationId,
          currency: 'USD',
          lines: [{ kind: 'PRODUCT', description: 'x', unitAmount: 5_000 }],
        })
      ).id as string
    const [first, second] = [await orderOf(), await orderOf()]
    const payment = (orderId: string, amount: number) => ({
      id: newId('payment'),
      tenantId: t.tenantId,
      orderId,
      locationId: t.locationId,
      amount,
      currency: 'USD',
      status: 'SUCCEEDED' as const,
      method: 'CASH' as const,
      processor: 'manual',
      receivedAt: new Date('2026-02-11T10:00:00Z'),
    })
    let release: () => void = () => undefined
    const released = new Promise<void>((resolve) => (release = resolve))
    let inserted: () => void = () => undefined
    const insertedFirst = new Promise<void>((resolve) => (inserted = resolve))
    const open = inTenant(t, async ({ tx }) => {
      await tx.payment.create({ data: payment(first, 1_000) })
      inserted()
      await released
    })
    await insertedFirst
    const waited = new Promise<'waited'>((resolve) => setTimeout(() => resolve('waited'), 10_000))
    const outcome = await Promise.race([
      inTenant(t, ({ tx }) => tx.payment.create({ data: payment(second, 2_000) })).then(() => 'committed' as const),
      waited,
    ])
    release()
    await open
    expect(outcome).toBe('committed')
    const rows = await inTenant(
      t,
      ({ tx }) => tx.$queryRaw<Array<{ collected: number }>>`SELECT collected::float8 FROM analytics_money_months`
    )
    expect(rows).toEqual([{ collected: 3_000 }])
  })

  it("keep one tenant's roll-up rows invisible and untouchable to another", async () => {
    const mine = await newCentre()
    const theirs = await newCentre()
    const provider = (
      await ok(theirs, 'POST', '/v1/providers', {
        name: 'A',
        timeZone: 'America/Chicago',
        locationId: theirs.locationId,
      })
    ).id
    const child = (
      await ok(theirs, 'POST', '/v1/children', { firstName: 'Kid', lastName: 'Known', dateOfBirth: '2023-01-01' })
    ).id
    const startsAt = new Date('2026-02-10T15:00:00Z')
    await inTenant(theirs, ({ tx }) =>
      tx.appointment.create({
        data: {
          id: newId('appointment'),
          tenantId: theirs.tenantId,
          locationId: theirs.locationId,
          childId: child,
          providerId: provider,
          type: 'THERAPY_SESSION',
          status: 'COMPLETED',
          startsAt,
          endsAt: new Date(startsAt.getTime() + 60 * MINUTE),
          timeZone: 'America/Chicago',
          service: 'SPEECH_THERAPY',
        },
      })
    )
    await pay(theirs)
    const count = (t: Centre) =>
      inTenant(t, async ({ tx }) => ({
        appointments: (
          await tx.$queryRaw<Array<{ n: number }>>`SELECT count(*)::int AS n FROM analytics_appointment_months`
        )[0]!.n,
        money: (await tx.$queryRaw<Array<{ n: number }>>`SELECT count(*)::int AS n FROM analytics_money_months`)[0]!.n,
      }))
    expect(await count(theirs)).toEqual({ appointments: 1, money: 1 })
    expect(await count(mine)).toEqual({ appointments: 0, money: 0 })
    // Even naming the other tenant: nothing to update or delete, and no row can be written in its name.
    const touched = await inTenant(mine, async ({ tx }) => ({
      updated:
        await tx.$executeRaw`UPDATE analytics_appointment_months SET appointments = 999 WHERE tenant_id = ${theirs.tenantId}`,
      deleted: await tx.$executeRaw`DELETE FROM analytics_money_months WHERE tenant_id = ${theirs.tenantId}`,
    }))
    expect(touched).toEqual({ updated: 0, deleted: 0 })
    await expect(
      inTenant(
        mine,
        ({ tx }) =>
          tx.$executeRaw`INSERT INTO analytics_appointment_months (tenant_id, month, location_id, provider_id, status, appointments, late_cancelled, duration_ms)
                       VALUES (${theirs.tenantId}, now(), ${theirs.locationId}, ${provider}, 'COMPLETED', 5, 0, 0)`
      )
    ).rejects.toThrow(/row-level security|policy/i)
    expect(await count(theirs)).toEqual({ appointments: 1, money: 1 })
    const [row] = await inTenant(
      theirs,
      ({ tx }) => tx.$queryRaw<Array<{ n: number }>>`SELECT appointments AS n FROM analytics_appointment_months`
    )
    expect(row!.n).toBe(1)
  })
})

/** One succeeded payment for the centre's first location. */
async function pay(t: Centre) {
  const orderId = (
    await ok(t, 'POST', '/v1/orders', {
      status: 'OPEN',
      locationId: t.locationId,
      currency: 'USD',
      lines: [{ kind: 'PRODUCT', description: 'x', unitAmount: 1_000 }],
    })
  ).id
  await ok(t, 'POST', '/v1/payments', {
    orderId,
    amount: 1_000,
    currency: 'USD',
    method: 'CASH',
    receivedAt: '2026-02-11T10:00:00Z',
  })
}
