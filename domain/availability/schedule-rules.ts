/**
 * @module The booking rules of one provider, as one pure predicate. Both the availability engine (which slots to
 * offer) and booking (whether to accept a time) decide with {@link whyUnbookable} over a {@link ProviderSchedule},
 * so what availability offers is exactly what booking accepts. No I/O: the loader (load-schedules.ts) reads the
 * rows, this module decides.
 *
 * All intervals are half-open [start, end) in milliseconds since the epoch: back-to-back is never a clash.
 */
import { minutesOfDay, weekdayOf, type WeeklyHours } from './weekly-hours.ts'
import { zoneTimeline, type ZoneTimeline } from './zone-timeline.ts'
import { DAY_MS } from '../../common/time/calendar.ts'

const MINUTE = 60_000

/** Why a time cannot be booked, in the order the rules are checked. Stable: shown to API clients. */
export const UNAVAILABLE_REASONS = {
  provider_not_bookable: 'The provider is not bookable (only APPROVED providers are).',
  minimum_notice: "The start is within the location's minimum notice.",
  outside_working_hours: "The time is outside the provider's working hours.",
  time_off: 'The provider is on time off then.',
  overlapping_appointment: 'The provider already has an appointment that overlaps this time.',
  buffer: "The time is within the location's buffer around another appointment of the provider.",
} as const

export type UnavailableReason = keyof typeof UNAVAILABLE_REASONS

export interface Span {
  start: number
  end: number
}

/** Everything the rules need about one provider, as loaded from the database. */
export interface ScheduleFacts {
  timeZone: string
  /** null: open schedule, bookable at any time. */
  weeklyHours: WeeklyHours | null
  /** Only APPROVED providers are bookable. */
  bookable: boolean
  bufferMinutes: number
  minimumNoticeMinutes: number
  /** Time off overlapping the range of interest. */
  timeOff: Span[]
  /** CONFIRMED appointments overlapping the range of interest (widened by the buffer). */
  appointments: Span[]
}

/** A provider's rules prepared for fast questions over one range. */
export interface ProviderSchedule {
  facts: ScheduleFacts
  zone: ZoneTimeline
  /** Working intervals, one per weekly-hours interval per local day, sorted; null for an open schedule. */
  workIntervals: Span[] | null
  /** The same, with touching intervals merged: a booking must fit inside one of these. */
  workStretches: Span[] | null
  timeOff: Span[]
  appointments: Span[]
  /** Appointments widened by the buffer on both sides, merged. */
  buffered: Span[]
  now: number
}

/**
 * Prepares a provider's rules for questions about times within [from, to].
 * @param facts - the provider's loaded facts
 * @param range - the instants of interest (ms); working hours are laid out for every local day touching it
 * @param now - the current instant (ms), for the minimum notice
 */
export function prepareSchedule(facts: ScheduleFacts, range: Span, now: number): ProviderSchedule {
  const zone = zoneTimeline(facts.timeZone, range.start, range.end)
  const workIntervals = facts.weeklyHours ? layOutWeeklyHours(facts.weeklyHours, zone, range) : null
  const buffer = facts.bufferMinutes * MINUTE
  return {
    facts,
    zone,
    workIntervals,
    workStretches: workIntervals ? merge(workIntervals) : null,
    timeOff: merge(facts.timeOff),
    appointments: merge(facts.appointments),
    buffered: merge(facts.appointments.map((a) => ({ start: a.start - buffer, end: a.end + buffer }))),
    now,
  }
}

/**
 * Why [start, end) cannot be booked with this provider, or null when it can. The one rule of the platform.
 * @param schedule - from {@link prepareSchedule}, for a range containing [start, end)
 */
export function whyUnbookable(schedule: ProviderSchedule, start: number, end: number): UnavailableReason | null {
  const { facts } = schedule
  if (!facts.bookable) return 'provider_not_bookable'
  // A zero notice leaves "not in the past" to booking's own validation, which tolerates a little clock skew.
  if (facts.minimumNoticeMinutes > 0 && start < schedule.now + facts.minimumNoticeMinutes * MINUTE)
    return 'minimum_notice'
  if (schedule.workStretches && !containedIn(schedule.workStretches, start, end)) return 'outside_working_hours'
  if (overlapsAny(schedule.timeOff, start, end)) return 'time_off'
  if (overlapsAny(schedule.appointments, start, end)) return 'overlapping_appointment'
  if (overlapsAny(schedule.buffered, start, end)) return 'buffer'
  return null
}

/**
 * The working intervals of every local day touching `range`, as instants. Each local time converts with the zone's
 * offset on that day, so 09:00 is 09:00 on both sides of a daylight-saving change.
 */
export function layOutWeeklyHours(hours: WeeklyHours, zone: ZoneTimeline, range: Span): Span[] {
  const first = Math.floor(zone.toLocal(range.start) / DAY_MS) * DAY_MS - DAY_MS
  const last = Math.floor(zone.toLocal(range.end) / DAY_MS) * DAY_MS + DAY_MS
  const spans: Span[] = []
  for (let midnight = first; midnight <= last; midnight += DAY_MS) {
    for (const interval of hours[weekdayOf(midnight)]) {
      const start = zone.toInstant(midnight + minutesOfDay(interval.start) * MINUTE)
      const end = zone.toInstant(midnight + minutesOfDay(interval.end) * MINUTE)
      // A whole interval inside a skipped hour converts to nothing.
      if (end > start) spans.push({ start, end })
    }
  }
  return spans.sort((a, b) => a.start - b.start)
}

/** The local days touching `range`, as instants from local midnight to the next: the open schedule's anchors. */
export function localDays(zone: ZoneTimeline, range: Span): Span[] {
  const first = Math.floor(zone.toLocal(range.start) / DAY_MS) * DAY_MS
  const last = Math.floor(zone.toLocal(range.end) / DAY_MS) * DAY_MS
  const days: Span[] = []
  for (let midnight = first; midnight <= last; midnight += DAY_MS) {
    days.push({ start: zone.toInstant(midnight), end: zone.toInstant(midnight + DAY_MS) })
  }
  return days
}

/** Sorts and merges overlapping or touching spans (a new list of new spans: the input is left as it is). */
export function merge(spans: Span[]): Span[] {
  // Most lists arrive sorted (laid out day by day, or loaded in order): check before paying for a copy and a sort.
  let sortedAlready = true
  for (let i = 1; i < spans.length && sortedAlready; i++) sortedAlready = spans[i - 1]!.start <= spans[i]!.start
  const sorted = sortedAlready ? spans : [...spans].sort((a, b) => a.start - b.start)
  const merged: Span[] = []
  for (const span of sorted) {
    const last = merged.at(-1)
    if (last && span.start <= last.end) last.end = Math.max(last.end, span.end)
    else merged.push({ ...span })
  }
  return merged
}

/** Index of the last span starting at or before `t` in sorted, disjoint spans; -1 when none. */
function lastStartingBy(spans: Span[], t: number): number {
  let lo = 0
  let hi = spans.length - 1
  let found = -1
  while (lo <= hi) {
    const mid = (lo + hi) >> 1
    if (spans[mid]!.start <= t) {
      found = mid
      lo = mid + 1
    } else hi = mid - 1
  }
  return found
}

/** Whether [start, end) lies inside one of the sorted, merged spans. */
function containedIn(spans: Span[], start: number, end: number): boolean {
  const span = spans[lastStartingBy(spans, start)]
  return span !== undefined && end <= span.end
}

/** Whether [start, end) overlaps any of the sorted, merged spans. */
function overlapsAny(spans: Span[], start: number, end: number): boolean {
  // Only the last span starting before `end` can overlap: earlier ones end before it starts (they are disjoint).
  const span = spans[lastStartingBy(spans, end - 1)]
  return span !== undefined && span.end > start
}
