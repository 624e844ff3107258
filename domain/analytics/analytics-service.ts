/**
 * @module Analytics (release 2.3.0, docs/analytics.md): one location's figures, and the multi-location request that
 * aggregates every location of a tenant (or those named) with a per-location breakdown that sums exactly to the
 * totals. Counts and sums are computed in the database (analytics-queries.ts); available hours from the providers'
 * weekly hours through the availability engine's layout (capacity.ts). Definitions: docs/analytics.md.
 */
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import { notFound, validationError } from '../errors.ts'
import { formatInTimeZone } from '../time.ts'
import {
  UNASSIGNED,
  appointmentAggregates,
  assessmentAggregates,
  moneyAggregates,
  newChildren,
  outstandingAggregates,
} from './analytics-queries.ts'
import { resolveRange, type AnalyticsRange } from './analytics-range.ts'
import { availableByLocation } from './capacity.ts'
import { addCounts, emptyCounts, toMetrics, type Counts, type Metrics } from './metrics.ts'

export interface RangeView {
  from: string
  to: string
  timeZone: string
  startsAt: string
  endsAt: string
  /** The instant outstanding balances are taken at: the end of the range, or now if that is earlier. */
  balancesAsOf: string
}

export interface LocationMetrics {
  /** null: children (and their assessments) not assigned to a location. */
  locationId: string | null
  name: string | null
  metrics: Metrics
}

const STATUS_FIELDS = {
  CONFIRMED: 'confirmed',
  COMPLETED: 'completed',
  CANCELLED: 'cancelled',
  NO_SHOW: 'noShow',
} as const

/**
 * Counts per location key for the range.
 * @param ids - the locations to count (undefined: all, plus the unassigned bucket)
 */
async function countByLocation(
  uow: UnitOfWork,
  range: AnalyticsRange,
  now: Date,
  ids?: string[],
  rollups = true
): Promise<Map<string, Counts>> {
  const counts = new Map<string, Counts>()
  const wanted = (location: string) => (ids ? ids.includes(location) : true)
  const at = (location: string) => {
    let c = counts.get(location)
    if (!c) counts.set(location, (c = emptyCounts()))
    return c
  }
  const asOf = new Date(Math.min(range.end.getTime(), now.getTime()))
  const [appointments, capacity, children, assessments, money, outstanding] = [
    await appointmentAggregates(uow, range, ids, rollups),
    await availableByLocation(uow, { start: range.start.getTime(), end: range.end.getTime() }, ids),
    await newChildren(uow, range, ids),
    await assessmentAggregates(uow, range, ids),
    await moneyAggregates(uow, range, ids, rollups),
    await outstandingAggregates(uow, asOf, ids),
  ]
  for (const row of appointments) {
    if (wanted(row.location)) {
      const a = at(row.location).appointments
      a.total += row.count
      a[STATUS_FIELDS[row.status as keyof typeof STATUS_FIELDS]] += row.count
      a.lateCancelled += row.late
    }
    if (wanted(row.providerLocation)) at(row.providerLocation).bookedMs += row.bookedMs
  }
  for (const [location, c] of capacity) {
    at(location).availableMs += c.ms
    at(location).capacityProviders += c.providers
  }
  for (const row of children) at(row.location).newChildren += row.count
  for (const row of assessments) {
    const a = at(row.location).assessments
    a.due += row.due
    a.dueCompleted += row.dueCompleted
    a.completedInRange += row.completed
  }
  for (const row of money.collected) at(row.location_id).collected.set(row.currency, row.amount)
  for (const row of money.refunded) at(row.location_id).refunded.set(row.currency, row.amount)
  for (const row of outstanding)
    at(row.location_id).outstanding.set(row.currency, { amount: row.amount, orders: row.orders })
  return counts
}

function rangeView(range: AnalyticsRange, now: Date): RangeView {
  const asOf = new Date(Math.min(range.end.getTime(), now.getTime()))
  return {
    from: range.from,
    to: range.to,
    timeZone: range.timeZone,
    startsAt: formatInTimeZone(range.start, range.timeZone),
    endsAt: formatInTimeZone(range.end, range.timeZone),
    balancesAsOf: asOf.toISOString(),
  }
}

/**
 * One location's analytics.
 * @param timeZone - the zone of the days; default the location's
 * @throws AppError `not_found` (location), `validation_error` (dates, zone, range too long)
 */
export async function locationAnalytics(
  uow: UnitOfWork,
  locationId: string,
  query: { from: string; to: string; timeZone?: string },
  now: Date
): Promise<{ range: RangeView; location: { id: string; name: string; timeZone: string }; metrics: Metrics }> {
  const location = await uow.tx.location.findFirst({
    where: { id: locationId, tenantId: uow.tenantId },
    select: { id: true, name: true, timeZone: true },
  })
  if (!location) throw notFound('location', locationId)
  const range = resolveRange(query.from, query.to, query.timeZone ?? location.timeZone)
  const counts = await countByLocation(uow, range, now, [location.id])
  return { range: rangeView(range, now), location, metrics: toMetrics(counts.get(location.id) ?? emptyCounts()) }
}

/**
 * The multi-location request: totals over the tenant's locations (or those named) and the breakdown that adds up
 * to them. Without `locationIds`, children without a location appear as one more entry (`locationId: null`).
 * @param options.rollups - false: count every record instead of reading whole months from the roll-ups (the
 *   benchmark's same-run comparison and the tests' reference; the API always uses them)
 * @throws AppError `validation_error` (dates, zone, unknown locations)
 */
export async function multiLocationAnalytics(
  uow: UnitOfWork,
  query: { from: string; to: string; timeZone: string; locationIds?: string[] },
  now: Date,
  options: { rollups?: boolean } = {}
): Promise<{ range: RangeView; totals: Metrics; locations: LocationMetrics[] }> {
  const range = resolveRange(query.from, query.to, query.timeZone)
  const locations = await uow.tx.location.findMany({
    where: { tenantId: uow.tenantId, ...(query.locationIds ? { id: { in: query.locationIds } } : {}) },
    select: { id: true, name: true },
    orderBy: [{ name: 'asc' }, { id: 'asc' }],
  })
  const missing = query.locationIds?.filter((id) => !locations.some((l) => l.id === id)) ?? []
  if (missing.length) {
    throw validationError(
      missing.map((id) => ({ path: 'locationIds', code: 'not_found', message: `No location with id "${id}".` }))
    )
  }
  const counts = await countByLocation(uow, range, now, query.locationIds, options.rollups ?? true)
  const totals = emptyCounts()
  const breakdown: LocationMetrics[] = locations.map((l) => {
    const c = counts.get(l.id) ?? emptyCounts()
    addCounts(totals, c)
    return { locationId: l.id, name: l.name, metrics: toMetrics(c) }
  })
  const unassigned = counts.get(UNASSIGNED)
  if (unassigned) {
    addCounts(totals, unassigned)
    breakdown.push({ locationId: null, name: null, metrics: toMetrics(unassigned) })
  }
  return { range: rangeView(range, now), totals: toMetrics(totals), locations: breakdown }
}
