/**
 * @module The one place day arithmetic lives (issue 79, item 5): the length of a day, and calendar dates as
 * `YYYY-MM-DD` strings (a day of the centre's calendar, no time or zone), so they compare as strings and the rules stay
 * pure and easy to test. Zones are the callers' (domain/assessments/due-day.ts turns an instant into a local date).
 * A test refuses the length of a day written anywhere else in production code (test/unit/common/time/calendar.test.ts).
 *
 * Free of Node imports: pure functions only, safe in workflow code.
 */

/** A day of real time, in milliseconds: what the workflows' scaled test clocks (`dayMs`) stand in for. */
export const DAY_MS = 86_400_000

const toUtc = (date: string) => Date.parse(`${date}T00:00:00Z`)
const fromUtc = (ms: number) => new Date(ms).toISOString().slice(0, 10)

/** The date `days` later (negative: earlier). */
export const addDays = (date: string, days: number): string => fromUtc(toUtc(date) + days * DAY_MS)

/**
 * The date `months` calendar months later (negative: earlier). A day that does not exist in the target month is the
 * month's last day (31 January + 1 month = 28 or 29 February), as a person counting months on a calendar would.
 */
export function addMonths(date: string, months: number): string {
  const [year, month, day] = date.split('-').map(Number) as [number, number, number]
  const index = year * 12 + (month - 1) + months
  const targetYear = Math.floor(index / 12)
  const targetMonth = index - targetYear * 12
  const lastDay = new Date(Date.UTC(targetYear, targetMonth + 1, 0)).getUTCDate()
  return fromUtc(Date.UTC(targetYear, targetMonth, Math.min(day, lastDay)))
}

/** Whole days from `from` to `to` (negative when `to` is earlier). */
export const daysBetween = (from: string, to: string): number => Math.round((toUtc(to) - toUtc(from)) / DAY_MS)

/** The Monday of the ISO week (Monday to Sunday) a date is in. */
export const mondayOf = (date: string): string => addDays(date, -((new Date(toUtc(date)).getUTCDay() + 6) % 7))
