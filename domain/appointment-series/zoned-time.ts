/**
 * @module Wall-clock time in an IANA zone, both ways: the local date and time of an instant, and the instant of a
 * local date and time. A weekly series is defined in local time ("Tuesdays at 4pm"), so its occurrences are computed
 * here rather than by adding 7 × 24 hours, which would drift by an hour across a daylight-saving change. The zone
 * arithmetic is time-zones.ts's; this file puts it in the date and time shapes a series stores.
 */
import { instantToLocal, localToInstant } from '../time-zones.ts'
import { DAY_MS } from '../../common/time/calendar.ts'

/** A calendar date, `YYYY-MM-DD`. */
export type LocalDate = string

export interface LocalTime {
  hour: number
  minute: number
  second: number
  millisecond: number
}

/** The local calendar date and wall-clock time of an instant in a zone. */
export function toLocal(instant: Date, timeZone: string): { date: LocalDate; time: LocalTime } {
  const local = instantToLocal(timeZone, instant.getTime())
  const ms = local - Math.floor(local / DAY_MS) * DAY_MS
  return {
    date: new Date(local).toISOString().slice(0, 10),
    time: {
      hour: Math.floor(ms / 3_600_000),
      minute: Math.floor(ms / 60_000) % 60,
      second: Math.floor(ms / 1000) % 60,
      millisecond: ms % 1000,
    },
  }
}

/**
 * The instant at which the zone's clocks show `date` `time`. A time a daylight-saving change skips or repeats
 * follows the rule of time-zones.ts: 02:30 on a spring-forward night becomes 03:30 new time, and a repeated time is
 * its first occurrence.
 */
export function fromLocal(date: LocalDate, time: LocalTime, timeZone: string): Date {
  const wall =
    Date.parse(`${date}T00:00:00Z`) + ((time.hour * 60 + time.minute) * 60 + time.second) * 1000 + time.millisecond
  return new Date(localToInstant(timeZone, wall))
}

/** ISO weekday of a local date: 1 = Monday … 7 = Sunday. */
export function isoWeekday(date: LocalDate): number {
  const day = new Date(`${date}T00:00:00Z`).getUTCDay()
  return day === 0 ? 7 : day
}

/** A `@db.Date` value (midnight UTC) as a local date string, and back. */
export const dateToLocal = (value: Date): LocalDate => value.toISOString().slice(0, 10)
export const localToDate = (value: LocalDate): Date => new Date(`${value}T00:00:00Z`)
