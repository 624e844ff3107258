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

/** Total length of `spans` inside `window` that no span of `minus` covers. All spans sorted and merged. */
export function uncoveredLength(spans: readonly Span[], minus: readonly Span[], window: Span): number {
  let total = 0
  let k = 0
  for (const span of spans) {
    let start = Math.max(span.start, window.start)
    const end = Math.min(span.end, window.end)
    if (end <= start) continue
    while (k < minus.length && minus[k]!.end <= start) k++
    for (let j = k; j < minus.length && minus[j]!.start < end; j++) {
      const cut = minus[j]!
      if (cut.start > start) total += cut.start - start
      start = Math.max(start, cut.end)
      if (start >= end) break
    }
    if (end > start) total += end - start
  }
  return total
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
    timeOffSql(tenantId, providers.map((p) => p.id), new Date(range.start), new Date(range.end))
  )
  const offOf = new Map<string, Span[]>()
  for (const row of timeOff) offOf.set(row.provider_id, [...(offOf.get(row.provider_id) ?? []), { start: row.starts_ms, end: row.ends_ms }])
  for (const p of providers) {
    const window = { start: Math.max(range.start, p.from_ms), end: Math.min(range.end, p.until_ms ?? range.end) }
    const entry = byLocation.get(p.location_id) ?? { ms: 0, providers: 0 }
    entry.providers += 1
    byLocation.set(p.location_id, entry)
    const hours = readWeeklyHours(p.weekly_hours)
    if (window.end <= window.start || !hours) continue
    const work = merge(layOutWeeklyHours(hours, zoneTimeline(p.time_zone, window.start, window.end), window))
    entry.ms += uncoveredLength(work, merge(offOf.get(p.id) ?? []), window)
  }
  return byLocation
}
