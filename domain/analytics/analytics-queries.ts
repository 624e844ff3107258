/**
 * @module The aggregates behind analytics, computed in the database (GROUP BY location; one row per location and
 * status or currency comes back, never the records themselves). Every statement filters by tenant on top of
 * row-level security, and by location when the request names some.
 *
 * Attribution: appointments to their location; booked time (for utilisation) to the provider's primary location,
 * where the provider's capacity is counted; children and assessments to the child's location (none: unassigned);
 * payments and refunds to the payment's location; outstanding balances to the order's location.
 */
import { Prisma } from '../../generated/prisma/client.ts'
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import { MAX_DURATION_MINUTES } from '../appointments/appointment-rules.ts'
import type { AnalyticsRange } from './analytics-range.ts'
import { CAPACITY_STATUSES } from './capacity.ts'
import { wholeMonths } from './rollup-months.ts'

/** The unassigned bucket's key (children without a location, and what hangs off them). */
export const UNASSIGNED = ''

const key = (locationId: string | null) => locationId ?? UNASSIGNED
/**
 * No rolled-up months: everything from the records. `rollups = false` below is the benchmark's same-run comparison
 * and the tests' reference answer, never the API's.
 */
const noMonths = (r: AnalyticsRange) => ({ start: r.start.getTime(), end: r.start.getTime() })
const inLocations = (column: Prisma.Sql, ids?: string[]) =>
  ids ? Prisma.sql`AND ${column} = ANY(${ids}::text[])` : Prisma.empty

export interface AppointmentRow {
  location: string
  providerLocation: string
  status: string
  count: number
  late: number
  bookedMs: number
}

/**
 * Appointments starting in the range by location and status, and booked milliseconds inside the range (cancelled
 * ones excluded) of providers with weekly hours, by the provider's primary location.
 *
 * The whole UTC months of the range whose appointments cannot run past its end are read from the roll-up
 * `analytics_appointment_months` (kept by triggers, one row per month, location, provider and status: about 10,000
 * rows a year at 200,000 appointments); the rest (from the longest appointment before the start to the first of
 * those months, and from the last of them to the end) from the appointments themselves, clipped at the range's ends
 * as before. Aggregated per (location, provider, status) before joining the few providers: carrying provider columns
 * through every row cost twice as much (measured, docs/analytics.md).
 */
export async function appointmentAggregates(
  { tx, tenantId }: UnitOfWork,
  r: AnalyticsRange,
  ids?: string[],
  rollups = true
): Promise<AppointmentRow[]> {
  // Appointments starting before the range can run into it; none lasts longer than the longest allowed.
  const longest = MAX_DURATION_MINUTES * 60_000
  const earliest = new Date(r.start.getTime() - longest)
  // Rolled-up months: starting in the range, and ending early enough that no appointment in them reaches its end.
  const months = rollups ? wholeMonths(r.start.getTime(), r.end.getTime() - longest) : noMonths(r)
  const monthsFrom = new Date(months.start)
  const monthsTo = new Date(months.end)
  const only = ids
    ? Prisma.sql`AND (agg.location_id = ANY(${ids}::text[]) OR p.location_id = ANY(${ids}::text[]))`
    : Prisma.empty
  const rows = await tx.$queryRaw<
    Array<{
      location_id: string
      provider_location_id: string
      status: string
      n: number
      late: number
      booked_ms: number
    }>
  >`
    WITH agg AS (
      SELECT a.location_id, a.provider_id, a.status,
             count(*) FILTER (WHERE a.starts_at >= ${r.start}) AS n,
             count(*) FILTER (WHERE a.starts_at >= ${r.start} AND a.late_cancellation) AS late,
             COALESCE(extract(epoch FROM sum(LEAST(a.ends_at, ${r.end}) - GREATEST(a.starts_at, ${r.start}))
               FILTER (WHERE a.status <> 'CANCELLED' AND a.ends_at > ${r.start})) * 1000, 0) AS booked_ms
      FROM appointments a
      WHERE a.tenant_id = ${tenantId}
        AND ((a.starts_at >= ${earliest} AND a.starts_at < ${monthsFrom}) OR (a.starts_at >= ${monthsTo} AND a.starts_at < ${r.end}))
      GROUP BY 1, 2, 3
      UNION ALL
      SELECT m.location_id, m.provider_id, m.status, sum(m.appointments), sum(m.late_cancelled),
             COALESCE(sum(m.duration_ms) FILTER (WHERE m.status <> 'CANCELLED'), 0)
      FROM analytics_appointment_months m
      WHERE m.tenant_id = ${tenantId} AND m.month >= ${monthsFrom} AND m.month < ${monthsTo}
      GROUP BY 1, 2, 3
    )
    SELECT agg.location_id, p.location_id AS provider_location_id, agg.status::text AS status,
           sum(agg.n)::int AS n, sum(agg.late)::int AS late,
           COALESCE(sum(agg.booked_ms) FILTER (
             WHERE p.weekly_hours IS NOT NULL AND p.onboarding_status::text IN (${Prisma.join(CAPACITY_STATUSES)})
           ), 0)::float8 AS booked_ms
    FROM agg
    JOIN providers p ON p.id = agg.provider_id AND p.tenant_id = ${tenantId}
    WHERE true ${only}
    GROUP BY 1, 2, 3
    HAVING sum(agg.n) <> 0 OR sum(agg.booked_ms) <> 0`
  return rows.map((row) => ({
    location: row.location_id,
    providerLocation: row.provider_location_id,
    status: row.status,
    count: row.n,
    late: row.late,
    bookedMs: row.booked_ms,
  }))
}

/** Children created in the range, by their location. */
export async function newChildren({ tx, tenantId }: UnitOfWork, r: AnalyticsRange, ids?: string[]) {
  const rows = await tx.$queryRaw<Array<{ location_id: string | null; n: number }>>`
    SELECT location_id, count(*)::int AS n FROM children
    WHERE tenant_id = ${tenantId} AND created_at >= ${r.start} AND created_at < ${r.end} ${inLocations(Prisma.sql`location_id`, ids)}
    GROUP BY 1`
  return rows.map((row) => ({ location: key(row.location_id), count: row.n }))
}

/**
 * Assessments by the child's location: due on a day of the range (not cancelled) and how many of those were
 * completed; and completed in the range whatever their due date.
 */
export async function assessmentAggregates({ tx, tenantId }: UnitOfWork, r: AnalyticsRange, ids?: string[]) {
  const due = Prisma.sql`s.due_date >= ${r.from}::date AND s.due_date <= ${r.to}::date AND s.status <> 'CANCELLED'`
  const completed = Prisma.sql`s.completed_at >= ${r.start} AND s.completed_at < ${r.end}`
  const rows = await tx.$queryRaw<
    Array<{ location_id: string | null; due: number; due_completed: number; completed: number }>
  >`
    SELECT c.location_id,
           (count(*) FILTER (WHERE ${due}))::int AS due,
           (count(*) FILTER (WHERE ${due} AND s.status = 'COMPLETED'))::int AS due_completed,
           (count(*) FILTER (WHERE ${completed}))::int AS completed
    FROM assessments s
    JOIN children c ON c.id = s.child_id AND c.tenant_id = s.tenant_id
    WHERE s.tenant_id = ${tenantId} AND ((${due}) OR (${completed})) ${inLocations(Prisma.sql`c.location_id`, ids)}
    GROUP BY 1`
  return rows.map((row) => ({
    location: key(row.location_id),
    due: row.due,
    dueCompleted: row.due_completed,
    completed: row.completed,
  }))
}

/**
 * Money received (succeeded payments by when received) and refunded (by when refunded), by location and currency:
 * the whole UTC months of the range from the roll-up `analytics_money_months` (kept by triggers), the partial months
 * at its edges from the payments and refunds themselves.
 */
export async function moneyAggregates({ tx, tenantId }: UnitOfWork, r: AnalyticsRange, ids?: string[], rollups = true) {
  const months = rollups ? wholeMonths(r.start.getTime(), r.end.getTime()) : noMonths(r)
  const monthsFrom = new Date(months.start)
  const monthsTo = new Date(months.end)
  const edges = (column: Prisma.Sql) =>
    Prisma.sql`((${column} >= ${r.start} AND ${column} < ${monthsFrom}) OR (${column} >= ${monthsTo} AND ${column} < ${r.end}))`
  const rolledUp = Prisma.sql`
    SELECT location_id, currency, collected, refunded FROM analytics_money_months
    WHERE tenant_id = ${tenantId} AND month >= ${monthsFrom} AND month < ${monthsTo} ${inLocations(Prisma.sql`location_id`, ids)}`
  const rows = await tx.$queryRaw<
    Array<{ location_id: string; currency: string; collected: number; refunded: number }>
  >`
    SELECT location_id, currency, sum(collected)::float8 AS collected, sum(refunded)::float8 AS refunded FROM (
      SELECT location_id, currency, amount AS collected, 0 AS refunded FROM payments
      WHERE tenant_id = ${tenantId} AND status = 'SUCCEEDED' AND ${edges(Prisma.sql`received_at`)}
        ${inLocations(Prisma.sql`location_id`, ids)}
      UNION ALL
      SELECT p.location_id, r.currency, 0, r.amount FROM refunds r
      JOIN payments p ON p.id = r.payment_id AND p.tenant_id = r.tenant_id
      WHERE r.tenant_id = ${tenantId} AND ${edges(Prisma.sql`r.created_at`)} ${inLocations(Prisma.sql`p.location_id`, ids)}
      UNION ALL
      ${rolledUp}
    ) m
    GROUP BY 1, 2`
  return {
    collected: rows
      .filter((row) => row.collected !== 0)
      .map(({ location_id, currency, collected }) => ({ location_id, currency, amount: collected })),
    refunded: rows
      .filter((row) => row.refunded !== 0)
      .map(({ location_id, currency, refunded }) => ({ location_id, currency, amount: refunded })),
  }
}

/**
 * What finalized orders still owed at `asOf`, by location and currency: each order opened before then (and not
 * voided by then) owed its total minus the payments received before then. A refund does not reopen a balance.
 *
 * Computed from the stored balance (total − every succeeded payment) plus the payments received at or after
 * `asOf`: only orders with a balance now or a payment since can have owed anything then, so the statement never
 * sums the payments of the many orders settled long ago (about three times faster on 50,000 orders than summing
 * every order's payments; docs/analytics.md). The two kinds are read apart, the first through the index on
 * `(tenant_id, balance)` and the second from the few payments since, so settled orders are not read at all.
 */
export async function outstandingAggregates({ tx, tenantId }: UnitOfWork, asOf: Date, ids?: string[]) {
  const open = Prisma.sql`o.status <> 'DRAFT' AND o.opened_at < ${asOf} AND (o.voided_at IS NULL OR o.voided_at >= ${asOf})
    ${inLocations(Prisma.sql`o.location_id`, ids)}`
  return tx.$queryRaw<Array<{ location_id: string; currency: string; amount: number; orders: number }>>`
    WITH paid_after AS (
      SELECT p.order_id, sum(p.amount) AS amount FROM payments p
      WHERE p.tenant_id = ${tenantId} AND p.status = 'SUCCEEDED' AND p.received_at >= ${asOf}
      GROUP BY p.order_id
    )
    SELECT location_id, currency, sum(owed)::float8 AS amount, count(*)::int AS orders FROM (
      SELECT o.location_id, o.currency, o.balance + COALESCE(l.amount, 0) AS owed
      FROM orders o LEFT JOIN paid_after l ON l.order_id = o.id
      WHERE o.tenant_id = ${tenantId} AND o.balance > 0 AND ${open}
      UNION ALL
      SELECT o.location_id, o.currency, o.balance + l.amount
      FROM paid_after l JOIN orders o ON o.id = l.order_id
      WHERE o.tenant_id = ${tenantId} AND o.balance <= 0 AND ${open}
    ) owing
    WHERE owed > 0
    GROUP BY 1, 2`
}
