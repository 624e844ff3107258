/**
 * @module The date range of an analytics request: calendar dates `from` to `to` (both included) in an IANA zone,
 * as the instants where those local days begin and end. A day is what the zone's clocks say: 23 hours on a
 * spring-forward day, 25 on a fall-back day, so a day-by-day report over any zone adds up to the whole.
 */
import { zoneTimeline } from '../availability/zone-timeline.ts'
import { validationError, type FieldError } from '../errors.ts'
import { CALENDAR_DATE, isValidTimeZone } from '../time.ts'
import { DAY_MS } from '../../common/time/calendar.ts'

/** Longest range one request covers: a leap year. */
export const MAX_RANGE_DAYS = 366

export interface AnalyticsRange {
  /** `YYYY-MM-DD`, first day included. */
  from: string
  /** `YYYY-MM-DD`, last day included. */
  to: string
  timeZone: string
  /** Local midnight starting `from`. */
  start: Date
  /** Local midnight ending `to` (exclusive). */
  end: Date
}

/** Midnight UTC of a calendar date, or NaN when it is not one (2026-02-30 included). */
function dateMs(date: string): number {
  if (!CALENDAR_DATE.test(date)) return Number.NaN
  const ms = Date.parse(`${date}T00:00:00Z`)
  return Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== date ? Number.NaN : ms
}

/**
 * Resolves a range.
 * @throws AppError `validation_error`: `invalid_date`, `before_start`, `range_too_long`, `invalid_time_zone`
 */
export function resolveRange(from: string, to: string, timeZone: string): AnalyticsRange {
  const errors: FieldError[] = []
  const first = dateMs(from)
  const last = dateMs(to)
  if (Number.isNaN(first)) errors.push({ path: 'from', code: 'invalid_date', message: 'A calendar date, YYYY-MM-DD.' })
  if (Number.isNaN(last)) errors.push({ path: 'to', code: 'invalid_date', message: 'A calendar date, YYYY-MM-DD.' })
  if (!isValidTimeZone(timeZone))
    errors.push({ path: 'timeZone', code: 'invalid_time_zone', message: 'Not an IANA time zone.' })
  if (!errors.length && last < first) errors.push({ path: 'to', code: 'before_start', message: 'to is before from.' })
  if (!errors.length && (last - first) / DAY_MS + 1 > MAX_RANGE_DAYS) {
    errors.push({ path: 'to', code: 'range_too_long', message: `A range covers at most ${MAX_RANGE_DAYS} days.` })
  }
  if (errors.length) throw validationError(errors)
  // Local milliseconds are within 15 hours of their instants: a day of margin covers any zone.
  const zone = zoneTimeline(timeZone, first - DAY_MS, last + 2 * DAY_MS)
  return { from, to, timeZone, start: new Date(zone.toInstant(first)), end: new Date(zone.toInstant(last + DAY_MS)) }
}
