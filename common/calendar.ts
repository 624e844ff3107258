/**
 * @module Calendar-date arithmetic for the Part C clocks. Dates are `YYYY-MM-DD` strings (a day of the centre's
 * calendar, no time or zone), so they compare as strings and the rules stay pure and easy to test.
 *
 * Free of Node imports: pure functions only.
 */

const DAY_MS = 86_400_000

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
