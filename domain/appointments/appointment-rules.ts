/**
 * @module Pure booking rules: how long an appointment lasts, which service it delivers when none is named, and
 * whether two intervals collide. No I/O, so they are unit-tested directly.
 */
import { isDiscipline, type Discipline } from '../catalogue/disciplines.ts'
import type { FieldError } from '../errors.ts'

export const DEFAULT_DURATION_MINUTES = 60
export const MAX_DURATION_MINUTES = 8 * 60
/** Bookings a little in the past are accepted to absorb client clock skew and slow networks. */
export const PAST_TOLERANCE_MS = 5 * 60 * 1000

/** The service of an appointment whose provider practises no discipline yet and whose type implies none. */
export const DEFAULT_SERVICE: Discipline = 'SPEECH_THERAPY'

/** Appointment types that belong to early intervention (IDEA Part C) whatever the provider's discipline. */
const EARLY_INTERVENTION_TYPES: ReadonlySet<string> = new Set(['EARLY_INTERVENTION', 'IFSP_MEETING'])

/**
 * The service an appointment delivers when the request names none: the provider's first discipline; for a provider
 * without disciplines, EARLY_INTERVENTION for early-intervention types and {@link DEFAULT_SERVICE} otherwise.
 * @param disciplines - the provider's disciplines, in the provider's order
 * @param type - the appointment type
 */
export function defaultService(disciplines: readonly string[], type: string): Discipline {
  const first = disciplines.find(isDiscipline)
  if (first) return first
  return EARLY_INTERVENTION_TYPES.has(type) ? 'EARLY_INTERVENTION' : DEFAULT_SERVICE
}

export interface Interval {
  startsAt: Date
  endsAt: Date
}

/** Half-open intervals [start, end) overlap when each starts before the other ends. Back-to-back is fine. */
export const overlaps = (a: Interval, b: Interval) => a.startsAt < b.endsAt && b.startsAt < a.endsAt

/**
 * Resolves the interval of a requested appointment and checks it.
 * @param end - the end instant, or the duration in minutes; {@link DEFAULT_DURATION_MINUTES} when absent
 * @param now - the current time
 * @returns the interval, or the field errors that make it invalid (on `endsAt` or `durationMinutes`, whichever
 *   the caller gave)
 */
export function resolveInterval(
  startsAt: Date,
  end: Date | number | undefined,
  now: Date
): { interval: Interval } | { errors: FieldError[] } {
  const endsAt = end instanceof Date ? end : new Date(startsAt.getTime() + (end ?? DEFAULT_DURATION_MINUTES) * 60_000)
  const endPath = typeof end === 'number' ? 'durationMinutes' : 'endsAt'
  const errors: FieldError[] = []
  if (startsAt.getTime() < now.getTime() - PAST_TOLERANCE_MS) {
    errors.push({ path: 'startsAt', code: 'in_past', message: 'The appointment must start in the future.' })
  }
  const minutes = (endsAt.getTime() - startsAt.getTime()) / 60_000
  if (minutes <= 0) {
    errors.push({ path: endPath, code: 'before_start', message: 'The appointment must end after it starts.' })
  } else if (minutes > MAX_DURATION_MINUTES) {
    errors.push({
      path: endPath,
      code: 'too_long',
      message: `An appointment lasts at most ${MAX_DURATION_MINUTES} minutes.`,
    })
  }
  return errors.length ? { errors } : { interval: { startsAt, endsAt } }
}
