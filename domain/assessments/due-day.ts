/**
 * @module Calendar arithmetic for due dates: a due date is a local calendar day of the child's centre, so "today",
 * "the due day begins" and "N days after completion" are computed in that zone (right across daylight-saving changes).
 */
import { formatInTimeZone } from '../time.ts'

/** The local calendar date (YYYY-MM-DD) of an instant in a zone. */
export const localDateOf = (instant: Date, timeZone: string): string => formatInTimeZone(instant, timeZone).slice(0, 10)

/** The UTC offset of a zone at an instant, in milliseconds (from the formatted offset). */
function offsetMs(instant: number, timeZone: string): number {
  const formatted = formatInTimeZone(new Date(instant), timeZone)
  const match = /([+-])(\d{2}):(\d{2})$/.exec(formatted)
  if (!match) return 0
  const sign = match[1] === '-' ? -1 : 1
  return sign * (Number(match[2]) * 60 + Number(match[3])) * 60_000
}

/**
 * The instant a local calendar day begins in a zone (its first moment: midnight, or the first instant after a gap
 * when a daylight-saving change skips midnight).
 * @param date - YYYY-MM-DD
 * @param timeZone - IANA zone
 */
export function startOfLocalDay(date: string, timeZone: string): Date {
  const midnightUtc = Date.parse(`${date}T00:00:00Z`)
  // Two passes: the offset at the guess may differ from the offset at the answer near a transition.
  let candidate = midnightUtc - offsetMs(midnightUtc, timeZone)
  candidate = midnightUtc - offsetMs(candidate, timeZone)
  // In a gap local midnight does not exist; the day then starts at the first instant whose local date is `date`.
  if (localDateOf(new Date(candidate), timeZone) !== date) candidate += 3_600_000
  return new Date(candidate)
}
