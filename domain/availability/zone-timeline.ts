/**
 * @module Time-zone arithmetic for schedules, fast enough to run per slot. An offset from Intl is exact but costs
 * about a microsecond per call, and availability formats and converts tens of thousands of instants per request; so
 * for a range we find the zone's offset transitions once (a few dozen calls to time-zones.ts's offset) and answer
 * every later question from that timeline. Conversions and formatting use time-zones.ts's rule and formatter with the
 * timeline's offsets, so a timeline answers exactly as the direct path does (local milliseconds, `compatible`
 * disambiguation: see there).
 *
 * `@date-fns/tz`'s `tzScan` finds transitions too, but not as exactly as needed here: it steps a month, then a day,
 * then an hour from the start of the range, so a transition off that hour grid (Kathmandu's at 18:30 UTC in 1985) is
 * reported up to an hour late, and two changes within one month step (Morocco's Ramadan pause) can cancel out.
 */
import { formatWithOffset, instantOfLocal, MINUTE, offsetMinutesAt } from '../time-zones.ts'
import { DAY_MS } from '../../common/time/calendar.ts'

const HOUR = 60 * MINUTE
/** Sampling interval when looking for transitions. No zone has changed its offset twice within 6 hours. */
const SAMPLE = 6 * HOUR

/** From `start` on (until the next segment), the zone is `offset` minutes ahead of UTC. */
interface Segment {
  start: number
  offset: number
}

/** A zone's offsets over a range of instants, for fast conversions within it. */
export interface ZoneTimeline {
  readonly timeZone: string
  /** Offset in minutes at an instant (exact inside the range the timeline was built for). */
  offsetAt(instant: number): number
  /** The instant of a local wall-clock time (local milliseconds), with `compatible` disambiguation. */
  toInstant(localMs: number): number
  /** Local milliseconds of an instant. */
  toLocal(instant: number): number
  /** ISO 8601 with the zone's offset at that instant, e.g. `2026-03-08T03:00:00-05:00`. */
  format(instant: number): string
}

const cache = new Map<string, ZoneTimeline>()
const CACHE_LIMIT = 1000

/**
 * The timeline of `timeZone` covering [from, to], padded by a day on each side so local times near the edges
 * convert correctly. Cached per zone and UTC day span, so providers sharing a zone share one.
 * @param timeZone - a valid IANA zone (validated when the provider was saved)
 * @param from - first instant of interest, ms
 * @param to - last instant of interest, ms
 */
export function zoneTimeline(timeZone: string, from: number, to: number): ZoneTimeline {
  const start = Math.floor(from / DAY_MS) * DAY_MS - DAY_MS
  const end = Math.ceil(to / DAY_MS) * DAY_MS + DAY_MS
  const key = `${timeZone}|${start}|${end}`
  let timeline = cache.get(key)
  if (!timeline) {
    if (cache.size >= CACHE_LIMIT) cache.clear()
    timeline = buildTimeline(timeZone, start, end)
    cache.set(key, timeline)
  }
  return timeline
}

function buildTimeline(timeZone: string, start: number, end: number): ZoneTimeline {
  const segments: Segment[] = [{ start: Number.NEGATIVE_INFINITY, offset: offsetMinutesAt(timeZone, start) }]
  let previous = start
  let previousOffset = segments[0]!.offset
  for (let t = start + SAMPLE; ; t += SAMPLE) {
    const sample = Math.min(t, end)
    const offset = offsetMinutesAt(timeZone, sample)
    if (offset !== previousOffset) {
      segments.push({ start: findTransition(timeZone, previous, sample, offset), offset })
      previousOffset = offset
    }
    previous = sample
    if (sample >= end) break
  }

  const offsetAt = (instant: number): number => {
    let offset = segments[0]!.offset
    for (const segment of segments) {
      if (segment.start > instant) break
      offset = segment.offset
    }
    return offset
  }

  // One offset over the whole range (most weeks, and zones without daylight saving): nothing to disambiguate.
  const only = segments.length === 1 ? segments[0]!.offset : undefined
  const toInstant = (localMs: number): number =>
    only === undefined ? instantOfLocal(localMs, offsetAt) : localMs - only * MINUTE

  return {
    timeZone,
    offsetAt,
    toInstant,
    toLocal: (instant) => instant + offsetAt(instant) * MINUTE,
    format: (instant) => formatWithOffset(instant, offsetAt(instant)),
  }
}

/** The first minute in (lo, hi] at which the zone has `offset`, by bisection. */
function findTransition(timeZone: string, lo: number, hi: number, offset: number): number {
  let a = Math.floor(lo / MINUTE)
  let b = Math.ceil(hi / MINUTE)
  while (b - a > 1) {
    const mid = Math.floor((a + b) / 2)
    if (offsetMinutesAt(timeZone, mid * MINUTE) === offset) b = mid
    else a = mid
  }
  return b * MINUTE
}
