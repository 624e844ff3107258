/**
 * @module A provider's weekly working hours: per weekday, zero or more intervals of local wall-clock time in the
 * provider's time zone (`{ "MONDAY": [{ "start": "09:00", "end": "12:00" }, { "start": "13:00", "end": "17:00" }] }`).
 * A weekday that is missing or empty is a day off. `null` instead of an object means an open schedule: the provider
 * is bookable at any time (a decision of the lead; docs/availability.md).
 *
 * Times are "HH:MM"; an interval ends after it starts and by "24:00" at the latest, so an interval never crosses
 * midnight; intervals of one day must not overlap. An interval ending at "24:00" and one starting at "00:00" the next
 * day form one stretch of work, so a slot may run across midnight there.
 */
import { z } from '@hono/zod-openapi'

export const WEEKDAYS = ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY', 'SUNDAY'] as const
export type Weekday = (typeof WEEKDAYS)[number]

/** A working interval in local time, "HH:MM" to "HH:MM". */
export interface LocalInterval {
  start: string
  end: string
}

export type WeeklyHours = Record<Weekday, LocalInterval[]>

/** Most intervals a day may have: split shifts, not minute-by-minute calendars. */
export const MAX_INTERVALS_PER_DAY = 12

const START = /^([01]\d|2[0-3]):[0-5]\d$/
const END = /^(([01]\d|2[0-3]):[0-5]\d|24:00)$/

/** Minutes since local midnight of "HH:MM". */
export const minutesOfDay = (time: string): number => Number(time.slice(0, 2)) * 60 + Number(time.slice(3, 5))

const IntervalSchema = z
  .strictObject({
    start: z.string().regex(START, 'A local time, HH:MM').openapi({ example: '09:00' }),
    end: z.string().regex(END, 'A local time, HH:MM, at most 24:00').openapi({ example: '17:00' }),
  })
  .refine((i) => !START.test(i.start) || !END.test(i.end) || minutesOfDay(i.end) > minutesOfDay(i.start), {
    message: 'end must be after start',
    path: ['end'],
  })
  .openapi('WorkingInterval')

const DaySchema = z
  .array(IntervalSchema)
  .max(MAX_INTERVALS_PER_DAY)
  .superRefine((intervals, ctx) => {
    const sorted = intervals.map((i, index) => ({ ...i, index })).sort((a, b) => a.start.localeCompare(b.start))
    for (let k = 1; k < sorted.length; k++) {
      if (minutesOfDay(sorted[k]!.start) < minutesOfDay(sorted[k - 1]!.end)) {
        ctx.addIssue({
          code: 'custom',
          message: 'Intervals of one day must not overlap',
          path: [sorted[k]!.index, 'start'],
        })
      }
    }
  })

/** The request schema: weekdays in any subset, each a list of intervals. */
export const WeeklyHoursSchema = z
  .strictObject(
    Object.fromEntries(WEEKDAYS.map((d) => [d, DaySchema.optional()])) as Record<
      Weekday,
      z.ZodOptional<typeof DaySchema>
    >
  )
  .openapi('WeeklyHours', {
    description:
      "Working hours per weekday in the provider's time zone. A missing or empty weekday is a day off. " +
      'null (the default) is an open schedule: bookable at any time.',
    example: {
      MONDAY: [
        { start: '09:00', end: '12:00' },
        { start: '13:00', end: '17:00' },
      ],
      FRIDAY: [{ start: '09:00', end: '15:00' }],
    },
  })

/** A merge patch of weekly hours (RFC 7396): a weekday set to null becomes a day off, absent ones stay. */
export const WeeklyHoursPatchSchema = z
  .strictObject(
    Object.fromEntries(WEEKDAYS.map((d) => [d, DaySchema.nullable().optional()])) as Record<
      Weekday,
      z.ZodOptional<z.ZodNullable<typeof DaySchema>>
    >
  )
  .openapi('WeeklyHoursPatch')

/** The stored and answered form: all seven weekdays, intervals sorted by start. */
export function normaliseWeeklyHours(input: Partial<Record<Weekday, LocalInterval[] | undefined>>): WeeklyHours {
  return Object.fromEntries(
    WEEKDAYS.map((day) => [
      day,
      [...(input[day] ?? [])].map(({ start, end }) => ({ start, end })).sort((a, b) => a.start.localeCompare(b.start)),
    ])
  ) as WeeklyHours
}

/**
 * Reads stored weekly hours (a JSON column); null stays null (open schedule).
 * @throws Error when the stored value is not weekly hours (only code writes the column, so it is a bug)
 */
export function readWeeklyHours(value: unknown): WeeklyHours | null {
  if (value === null || value === undefined) return null
  // A structural check, not the full schema: availability reads hundreds of these per request, and only
  // normaliseWeeklyHours (after validation) ever writes them.
  const stored = value as Partial<Record<Weekday, unknown>>
  const wellFormed =
    typeof value === 'object' &&
    WEEKDAYS.every((day) => {
      const intervals = stored[day]
      return (
        intervals === undefined ||
        (Array.isArray(intervals) &&
          intervals.every(
            (i: { start?: unknown; end?: unknown } | null) => START.test(String(i?.start)) && END.test(String(i?.end))
          ))
      )
    })
  if (!wellFormed) throw new Error('stored weekly hours are malformed')
  return normaliseWeeklyHours(stored as Partial<Record<Weekday, LocalInterval[]>>)
}

/** The weekday of a local calendar date given as local milliseconds of its midnight. */
export function weekdayOf(localMidnight: number): Weekday {
  // getUTCDay: 0 is Sunday; WEEKDAYS starts on Monday.
  return WEEKDAYS[(new Date(localMidnight).getUTCDay() + 6) % 7]!
}
