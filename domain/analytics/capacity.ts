/**
 * @module Available hours: what providers' weekly working hours offer in a range, minus their time off. The working
 * intervals are laid out by the availability engine's own code (domain/availability/schedule-rules.ts), in each
 * provider's zone with that day's offset, so analytics and booking agree on what "working" means, daylight-saving
 * days included. Only providers with weekly hours have a capacity: an open schedule (bookable at any time) has none
 * to measure against.
 */
import { Prisma } from '../../generated/prisma/client.ts'
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import { layOutWeeklyHours, merge, type Span } from '../availability/schedule-rules.ts'
import { timeOffSql, type ProviderSpanRow } from '../availability/schedule-queries.ts'
import { readWeeklyHours } from '../availability/weekly-hours.ts'
import { zoneTimeline } from '../availability/zone-timeline.ts'

/** Statuses whose working hours count: approved, or approved until offboarded. */
export const CAPACITY_STATUSES = ['APPROVED', 'OFFBOARDED'] as const

/** Total length of the sorted, merged `spans` inside `window`. */
export function lengthWithin(spans: readonly Span[], window: Span): number {
  let total = 0
  for (const span of spans) total += Math.max(0, Math.min(span.end, window.end) - Math.max(span.start, window.start))
  return total
}

/** Index of the first span ending after `t` in sorted, disjoint spans (spans.length when none). */
function firstEndingAfter(spans: readonly Span[], t: number): number {
  let lo = 0
  let hi = spans.length
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if (spans[mid]!.end <= t) lo = mid + 1
    else hi = mid
  }
  return lo
}

/**
 * Total length of `spans` inside `window` that no span of `minus` covers. All spans sorted and merged; cost grows
 * with the number of `minus` spans (a provider's few time-off entries), not with the working intervals of a year.
 * @param total - {@link lengthWithin}(spans, window), when already known
 */
export function uncoveredLength(
  spans: readonly Span[],
  minus: readonly Span[],
  window: Span,
  total = lengthWithin(spans, window)
): number {
  let covered = 0
  for (const cut of minus) {
    const start = Math.max(cut.start, window.start)
    const end = Math.min(cut.end, window.end)
    if (end <= start) continue
    for (let i = firstEndingAfter(spans, start); i < spans.length && spans[i]!.start < end; i++) {
      covered += Math.min(spans[i]!.end, end) - Math.max(spans[i]!.start, start)
    }
  }
  return total - covered
}

interface CapacityRow {
  id: string
  location_id: string
  time_zone: string
  weekly_hours: unknown
  from_ms: number
  until_ms: number | null
}

/**
 * Available milliseconds per primary location, over the providers with weekly hours who are (or were, until
 * offboarded) approved: from their approval (or creation) to their offboarding, clipped to the range.
 * @param locationIds - only providers based at these locations (all when absent)
 * @returns ms and provider count per location id
 */
export async function availableByLocation(
  { tx, tenantId }: UnitOfWork,
  range: Span,
  locationIds?: string[]
): Promise<Map<string, { ms: number; providers: number }>> {
  const only = locationIds ? Prisma.sql`AND location_id = ANY(${locationIds}::text[])` : Prisma.empty
  const providers = await tx.$queryRaw<CapacityRow[]>`
    SELECT id, location_id, time_zone, weekly_hours,
           (extract(epoch FROM COALESCE(approved_at, created_at)) * 1000)::float8 AS from_ms,
           (extract(epoch FROM offboarded_at) * 1000)::float8 AS until_ms
    FROM providers
    WHERE tenant_id = ${tenantId} AND weekly_hours IS NOT NULL
      AND onboarding_status::text IN (${Prisma.join(CAPACITY_STATUSES)}) ${only}`
  const byLocation = new Map<string, { ms: number; providers: number }>()
  if (providers.length === 0) return byLocation
  const timeOff = await tx.$queryRaw<ProviderSpanRow[]>(
    timeOffSql(
      tenantId,
      providers.map((p) => p.id),
      new Date(range.start),
      new Date(range.end)
    )
  )
  const offOf = new Map<string, Span[]>()
  for (const row of timeOff)
    offOf.set(row.provider_id, [...(offOf.get(row.provider_id) ?? []), { start: row.starts_ms, end: row.ends_ms }])
  // Providers sharing hours, zone and window (most of a roster) share one layout of the year.
  const layouts = new Map<string, { work: Span[]; total: number }>()
  for (const p of providers) {
    const window = { start: Math.max(range.start, p.from_ms), end: Math.min(range.end, p.until_ms ?? range.end) }
    const entry = byLocation.get(p.location_id) ?? { ms: 0, providers: 0 }
    entry.providers += 1
    byLocation.set(p.location_id, entry)
    const hours = readWeeklyHours(p.weekly_hours)
    if (window.end <= window.start || !hours) continue
    const key = `${p.time_zone}|${window.start}|${window.end}|${JSON.stringify(hours)}`
    let layout = layouts.get(key)
    if (!layout) {
      const work = merge(layOutWeeklyHours(hours, zoneTimeline(p.time_zone, window.start, window.end), window))
      layouts.set(key, (layout = { work, total: lengthWithin(work, window) }))
    }
    entry.ms += uncoveredLength(layout.work, merge(offOf.get(p.id) ?? []), window, layout.total)
  }
  return byLocation
}
