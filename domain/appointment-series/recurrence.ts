/**
 * @module Expanding a weekly recurrence rule into occurrences, in local time. Pure: the rule, the zone and the first
 * start in, the occurrences (or the field errors) out.
 *
 * The rule follows RFC 5545 (iCalendar) where it has an answer: `FREQ=WEEKLY` with `INTERVAL`, `BYDAY`, and `COUNT`
 * or `UNTIL`; the first start is the first occurrence; `COUNT` counts occurrences before exceptions are removed
 * (EXDATE semantics), so "10 sessions, skip the holiday" books 9. Weeks start on Monday (`WKST=MO`).
 */
import type { FieldError } from '../errors.ts'
import { fromLocal, isoWeekday, toLocal, type LocalDate } from './zoned-time.ts'
import { addDays } from '../../common/time/calendar.ts'

/** The most occurrences one series may generate: a year of weekly sessions. */
export const MAX_OCCURRENCES = 52

export const WEEKDAYS = ['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU'] as const
export type Weekday = (typeof WEEKDAYS)[number]

export interface WeeklyRule {
  /** Every `interval` weeks (1 = weekly, 2 = fortnightly). */
  interval: number
  /** The weekdays within each week; defaults to the weekday of the first start. */
  byWeekday?: readonly Weekday[]
  count?: number
  /** Last local date (inclusive). */
  until?: LocalDate
}

export interface ExpandInput {
  firstStartsAt: Date
  timeZone: string
  durationMinutes: number
  rule: WeeklyRule
  /** Local dates to skip; each must be a date the rule generates. */
  exceptions?: readonly LocalDate[]
}

export interface Occurrence {
  /** The local date of the occurrence in the series' zone. */
  date: LocalDate
  startsAt: Date
  endsAt: Date
}

export interface Expansion {
  /** Every date the rule generates, exceptions included, in order. */
  dates: LocalDate[]
  /** The occurrences to book: the dates minus the exceptions. */
  occurrences: Occurrence[]
  /** The weekdays actually used (the default filled in). */
  byWeekday: Weekday[]
}

const weekdayOf = (date: LocalDate): Weekday => WEEKDAYS[isoWeekday(date) - 1]!

/**
 * Expands a weekly rule.
 * @returns the occurrences, or field errors (paths relative to the series request body)
 */
export function expandWeekly(input: ExpandInput): { expansion: Expansion } | { errors: FieldError[] } {
  const { rule, timeZone } = input
  const first = toLocal(input.firstStartsAt, timeZone)
  const byWeekday = rule.byWeekday?.length
    ? [...new Set(rule.byWeekday)].sort((a, b) => WEEKDAYS.indexOf(a) - WEEKDAYS.indexOf(b))
    : [weekdayOf(first.date)]
  const errors: FieldError[] = []

  if ((rule.count === undefined) === (rule.until === undefined)) {
    errors.push({
      path: 'recurrence',
      code: 'count_or_until',
      message: 'Give exactly one of recurrence.count and recurrence.until.',
    })
  }
  if (!byWeekday.includes(weekdayOf(first.date))) {
    errors.push({
      path: 'recurrence.byWeekday',
      code: 'first_occurrence_excluded',
      message: `startsAt falls on ${weekdayOf(first.date)} (${first.date} in ${timeZone}), which byWeekday does not include.`,
    })
  }
  if (rule.until !== undefined && rule.until < first.date) {
    errors.push({ path: 'recurrence.until', code: 'before_start', message: 'until is before the first occurrence.' })
  }
  if (errors.length) return { errors }

  const dates: LocalDate[] = []
  const weekStart = addDays(first.date, 1 - isoWeekday(first.date))
  // One more than allowed, to tell "exactly the maximum" from "too many".
  const cap = Math.min(rule.count ?? Infinity, MAX_OCCURRENCES + 1)
  generate: for (let week = 0; dates.length < cap; week += rule.interval) {
    for (const day of byWeekday) {
      const date = addDays(weekStart, week * 7 + WEEKDAYS.indexOf(day))
      if (date < first.date) continue
      if (rule.until !== undefined && date > rule.until) break generate
      dates.push(date)
      if (dates.length >= cap) break generate
    }
  }
  if (dates.length > MAX_OCCURRENCES) {
    return {
      errors: [
        {
          path: 'recurrence',
          code: 'too_many_occurrences',
          message: `A series has at most ${MAX_OCCURRENCES} occurrences; this rule generates more. Shorten it with count or until.`,
        },
      ],
    }
  }

  const generated = new Set(dates)
  const exceptions = new Set<LocalDate>()
  for (const [i, date] of (input.exceptions ?? []).entries()) {
    if (!generated.has(date)) {
      errors.push({
        path: `exceptions[${i}]`,
        code: 'not_an_occurrence',
        message: `${date} is not a date this series generates.`,
      })
    }
    exceptions.add(date)
  }
  if (errors.length) return { errors }
  const occurrences = dates
    .filter((date) => !exceptions.has(date))
    .map((date) => {
      const startsAt = fromLocal(date, first.time, timeZone)
      return { date, startsAt, endsAt: new Date(startsAt.getTime() + input.durationMinutes * 60_000) }
    })
  if (!occurrences.length) {
    return {
      errors: [{ path: 'exceptions', code: 'no_occurrences', message: 'The exceptions remove every occurrence.' }],
    }
  }
  return { expansion: { dates, occurrences, byWeekday } }
}
