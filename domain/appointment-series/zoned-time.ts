/**
 * @module Wall-clock time in an IANA zone, both ways: the local date and time of an instant, and the instant of a
 * local date and time. A weekly series is defined in local time ("Tuesdays at 4pm"), so its occurrences are computed
 * here rather than by adding 7 × 24 hours, which would drift by an hour across a daylight-saving change.
 */
import { formatInTimeZone } from '../time.ts'

/** A calendar date, `YYYY-MM-DD`. */
export type LocalDate = string

export interface LocalTime {
  hour: number
  minute: number
  second: number
  millisecond: number
}

const DAY_MS = 86_400_000
const LOCAL_PATTERN = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{3}))?([+-])(\d{2}):(\d{2})$/

function parseLocal(text: string) {
  const m = LOCAL_PATTERN.exec(text)
  if (!m) throw new Error(`unexpected local time format: ${text}`)
  const n = (i: number) => Number(m[i] ?? 0)
  const sign = m[8] === '-' ? -1 : 1
  return {
    date: `${m[1]}-${m[2]}-${m[3]}`,
    time: { hour: n(4), minute: n(5), second: n(6), millisecond: n(7) },
    offsetMs: sign * (n(9) * 60 + n(10)) * 60_000,
  }
}

/** The zone's UTC offset at an instant, in milliseconds (east positive). */
export function offsetAt(instant: Date, timeZone: string): number {
  return parseLocal(formatInTimeZone(instant, timeZone)).offsetMs
}

/** The local calendar date and wall-clock time of an instant in a zone. */
export function toLocal(instant: Date, timeZone: string): { date: LocalDate; time: LocalTime } {
  const { date, time } = parseLocal(formatInTimeZone(instant, timeZone))
  return { date, time }
}

/** Milliseconds of a local date and time read as if it were UTC: the "wall clock" number offsets are applied to. */
function wallClockMs(date: LocalDate, time: LocalTime): number {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number]
  return Date.UTC(y, m - 1, d, time.hour, time.minute, time.second, time.millisecond)
}

/**
 * The instant at which the zone's clocks show `date` `time`.
 *
 * Across a daylight-saving change the local time can occur twice (clocks go back) or not at all (clocks go
 * forward). Like RFC 5545 §3.3.5: a repeated time is its first occurrence; a skipped time is read with the offset
 * in force before the gap, so 02:30 on a spring-forward night becomes 03:30 new time.
 */
export function fromLocal(date: LocalDate, time: LocalTime, timeZone: string): Date {
  const wall = wallClockMs(date, time)
  // Transitions are months apart, so the offsets a day either side are the only two candidates.
  const before = offsetAt(new Date(wall - DAY_MS), timeZone)
  const after = offsetAt(new Date(wall + DAY_MS), timeZone)
  const valid = [...new Set([before, after])]
    .map((offset) => wall - offset)
    .filter((t) => wall - offsetAt(new Date(t), timeZone) === t)
    .sort((a, b) => a - b)
  return new Date(valid[0] ?? wall - before)
}

/** ISO weekday of a local date: 1 = Monday … 7 = Sunday. */
export function isoWeekday(date: LocalDate): number {
  const day = new Date(`${date}T00:00:00Z`).getUTCDay()
  return day === 0 ? 7 : day
}

/** `date` plus `days` calendar days. */
export function addDays(date: LocalDate, days: number): LocalDate {
  return new Date(new Date(`${date}T00:00:00Z`).getTime() + days * DAY_MS).toISOString().slice(0, 10)
}

/** A `@db.Date` value (midnight UTC) as a local date string, and back. */
export const dateToLocal = (value: Date): LocalDate => value.toISOString().slice(0, 10)
export const localToDate = (value: LocalDate): Date => new Date(`${value}T00:00:00Z`)
