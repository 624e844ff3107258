/**
 * @module Pure booking rules: how long an appointment lasts and whether two intervals collide. No I/O, so they
 * are unit-tested directly.
 */
import type { FieldError } from '../errors.ts'

export const DEFAULT_DURATION_MINUTES = 60
export const MAX_DURATION_MINUTES = 8 * 60
/** Bookings a little in the past are accepted to absorb client clock skew and slow networks. */
export const PAST_TOLERANCE_MS = 5 * 60 * 1000

export interface Interval {
  startsAt: Date
  endsAt: Date
}

/** Half-open intervals [start, end) overlap when each starts before the other ends. Back-to-back is fine. */
export const overlaps = (a: Interval, b: Interval) => a.startsAt < b.endsAt && b.startsAt < a.endsAt

/**
 * Resolves the interval of a requested appointment and checks it.
 * @param now - the current time
 * @returns the interval, or the field errors that make it invalid
 */
export function resolveInterval(
  startsAt: Date,
  endsAt: Date | undefined,
  now: Date
): { interval: Interval } | { errors: FieldError[] } {
  const end = endsAt ?? new Date(startsAt.getTime() + DEFAULT_DURATION_MINUTES * 60_000)
  const errors: FieldError[] = []
  if (startsAt.getTime() < now.getTime() - PAST_TOLERANCE_MS) {
    errors.push({ path: 'startsAt', code: 'in_past', message: 'The appointment must start in the future.' })
  }
  const minutes = (end.getTime() - startsAt.getTime()) / 60_000
  if (minutes <= 0) {
    errors.push({ path: 'endsAt', code: 'before_start', message: 'endsAt must be after startsAt.' })
  } else if (minutes > MAX_DURATION_MINUTES) {
    errors.push({ path: 'endsAt', code: 'too_long', message: `An appointment lasts at most ${MAX_DURATION_MINUTES} minutes.` })
  }
  return errors.length ? { errors } : { interval: { startsAt, endsAt: end } }
}
