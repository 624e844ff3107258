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

/** The unassigned bucket's key (children without a location, and what hangs off them). */
export const UNASSIGNED = ''

const key = (locationId: string | null) => locationId ?? UNASSIGNED
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
 * ones excluded) of providers with weekly hours, by the provider's primary location. One scan of the range,
 * aggregated per (location, provider, status) before joining the few providers: carrying provider columns through
 * 200,000 rows cost twice as much (measured, docs/analytics.md).
 */
export async function appointmentAggregates({ tx, tenantId }: UnitOfWork, r: AnalyticsRange, ids?: string[]): Promise<AppointmentRow[]> {
  // Appointments starting before the range can run into it; none lasts longer than the longest allowed.
  const earliest = new Date(r.start.getTime() - MAX_DURATION_MINUTES * 60_000)
  const only = ids ? Prisma.sql`AND (agg.location_id = ANY(${ids}::text[]) OR p.location_id = ANY(${ids}::text[]))` : Prisma.empty
  const rows = await tx.$queryRaw<
    Array<{ location_id: string; provider_location_id: string; status: string; n: number; late: number; booked_ms: number }>
  >`
    WITH agg AS (
      SELECT a.location_id, a.provider_id, a.status,
             count(*) FILTER (WHERE a.starts_at >= ${r.start}) AS n,
             count(*) FILTER (WHERE a.starts_at >= ${r.start} AND a.late_cancellation) AS late,
             sum(LEAST(a.ends_at, ${r.end}) - GREATEST(a.starts_at, ${r.start}))
               FILTER (WHERE a.status <> 'CANCELLED' AND a.ends_at > ${r.start}) AS booked
      FROM appointments a
      WHERE a.tenant_id = ${tenantId} AND a.starts_at >= ${earliest} AND a.starts_at < ${r.end}
      GROUP BY 1, 2, 3
    )
    SELECT agg.location_id, p.location_id AS provider_location_id, agg.status::text AS status,
           sum(agg.n)::int AS n, sum(agg.late)::int AS late,
           COALESCE(extract(epoch FROM sum(agg.booked) FILTER (
             WHERE p.weekly_hours IS NOT NULL AND p.onboarding_status::text IN (${Prisma.join(CAPACITY_STATUSES)})
           )) * 1000, 0)::float8 AS booked_ms
    FROM agg
    JOIN providers p ON p.id = agg.provider_id AND p.tenant_id = ${tenantId}
    WHERE true ${only}
    GROUP BY 1, 2, 3`
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
  const rows = await tx.$queryRaw<Array<{ location_id: string | null; due: number; due_completed: number; completed: number }>>`
    SELECT c.location_id,
           (count(*) FILTER (WHERE ${due}))::int AS due,
           (count(*) FILTER (WHERE ${due} AND s.status = 'COMPLETED'))::int AS due_completed,
           (count(*) FILTER (WHERE ${completed}))::int AS completed
    FROM assessments s
    JOIN children c ON c.id = s.child_id AND c.tenant_id = s.tenant_id
    WHERE s.tenant_id = ${tenantId} AND ((${due}) OR (${completed})) ${inLocations(Prisma.sql`c.location_id`, ids)}
    GROUP BY 1`
  return rows.map((row) => ({ location: key(row.location_id), due: row.due, dueCompleted: row.due_completed, completed: row.completed }))
}

/** Money received (succeeded payments by when received) and refunded (by when refunded), by location and currency. */
export async function moneyAggregates({ tx, tenantId }: UnitOfWork, r: AnalyticsRange, ids?: string[]) {
  const [collected, refunded] = await Promise.all([
    tx.$queryRaw<Array<{ location_id: string; currency: string; amount: number }>>`
      SELECT location_id, currency, sum(amount)::float8 AS amount FROM payments
      WHERE tenant_id = ${tenantId} AND status = 'SUCCEEDED' AND received_at >= ${r.start} AND received_at < ${r.end}
        ${inLocations(Prisma.sql`location_id`, ids)}
      GROUP BY 1, 2`,
    tx.$queryRaw<Array<{ location_id: string; currency: string; amount: number }>>`
      SELECT p.location_id, r.currency, sum(r.amount)::float8 AS amount FROM refunds r
      JOIN payments p ON p.id = r.payment_id AND p.tenant_id = r.tenant_id
      WHERE r.tenant_id = ${tenantId} AND r.created_at >= ${r.start} AND r.created_at < ${r.end}
        ${inLocations(Prisma.sql`p.location_id`, ids)}
      GROUP BY 1, 2`,
  ])
  return { collected, refunded }
}

/**
 * What finalized orders still owed at `asOf`, by location and currency: each order opened before then (and not
 * voided by then) owed its total minus the payments received before then. A refund does not reopen a balance.
 *
 * Computed from the stored balance (total − every succeeded payment) plus the payments received at or after
 * `asOf`: only orders with a balance now or a payment since can have owed anything then, so the statement never
 * sums the payments of the many orders settled long ago (about three times faster on 50,000 orders than summing
 * every order's payments; docs/analytics.md).
 */
export async function outstandingAggregates({ tx, tenantId }: UnitOfWork, asOf: Date, ids?: string[]) {
  return tx.$queryRaw<Array<{ location_id: string; currency: string; amount: number; orders: number }>>`
    SELECT o.location_id, o.currency, sum(o.balance + COALESCE(l.paid_after, 0))::float8 AS amount, count(*)::int AS orders
    FROM orders o
    LEFT JOIN (
      SELECT p.order_id, sum(p.amount) AS paid_after FROM payments p
      WHERE p.tenant_id = ${tenantId} AND p.status = 'SUCCEEDED' AND p.received_at >= ${asOf}
      GROUP BY p.order_id
    ) l ON l.order_id = o.id
    WHERE o.tenant_id = ${tenantId} AND o.status <> 'DRAFT' AND o.opened_at < ${asOf}
      AND (o.voided_at IS NULL OR o.voided_at >= ${asOf})
      AND (o.balance > 0 OR l.order_id IS NOT NULL) AND o.balance + COALESCE(l.paid_after, 0) > 0
      ${inLocations(Prisma.sql`o.location_id`, ids)}
    GROUP BY 1, 2`
}
