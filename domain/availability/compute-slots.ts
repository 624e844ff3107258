/**
 * @module The availability engine: the bookable slots of one provider in a range, for a duration. Pure: it walks
 * candidate starts and keeps those {@link whyUnbookable} accepts, the very predicate booking applies, so an offered
 * slot is always accepted (and gone once booked).
 *
 * Candidate starts are laid on a grid of `stepMinutes` from the start of each working interval (09:00, 09:15, ...),
 * or from each local midnight for an open schedule. The grid is in elapsed time, so on a daylight-saving day it
 * stays on the local quarter hours (the jump is a whole hour); only zones with half-hour jumps (Australia/Lord_Howe)
 * shift a grid coarser than 30 minutes by half an hour after the jump, until the next local day.
 */
import { localDays, prepareSchedule, whyUnbookable, type ProviderSchedule, type ScheduleFacts, type Span } from './schedule-rules.ts'

const MINUTE = 60_000

export interface SlotQuery {
  /** Slots start at or after this instant (ms)... */
  from: number
  /** ...and before this one (ms). */
  to: number
  durationMinutes: number
  stepMinutes: number
  /** The current instant (ms): slots never start in the past. */
  now: number
}

/** A bookable slot, as instants (ms). */
export type Slot = Span

/**
 * The provider's bookable slots whose start lies in [from, to) and not in the past, in order.
 * @param facts - the provider's facts, loaded for [from, to + duration] widened by the buffer
 * @param query - the range, duration, grid step and now
 */
export function computeSlots(facts: ScheduleFacts, query: SlotQuery): Slot[] {
  const duration = query.durationMinutes * MINUTE
  const schedule = prepareSchedule(facts, { start: query.from, end: query.to + duration }, query.now)
  return slotsOf(schedule, query)
}

/** {@link computeSlots} over an already prepared schedule. */
export function slotsOf(schedule: ProviderSchedule, query: SlotQuery): Slot[] {
  if (!schedule.facts.bookable) return []
  const duration = query.durationMinutes * MINUTE
  const step = query.stepMinutes * MINUTE
  const earliest = Math.max(query.from, query.now)
  const anchors = schedule.workIntervals ?? localDays(schedule.zone, { start: query.from, end: query.to })
  const slots: Slot[] = []
  let lastStart = Number.NEGATIVE_INFINITY
  for (const anchor of anchors) {
    if (anchor.end <= earliest || anchor.start >= query.to) continue
    // The first grid point of this anchor at or after `earliest`.
    const skip = earliest > anchor.start ? Math.ceil((earliest - anchor.start) / step) : 0
    for (let start = anchor.start + skip * step; start < anchor.end && start < query.to; start += step) {
      // Anchors of merged stretches can meet; never offer one start twice, and keep the list ordered.
      if (start <= lastStart) continue
      if (whyUnbookable(schedule, start, start + duration) === null) {
        slots.push({ start, end: start + duration })
        lastStart = start
      }
    }
  }
  return slots
}
