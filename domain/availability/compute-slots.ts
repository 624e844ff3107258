/**
 * @module The availability engine: the bookable slots of one provider in a range, for a duration. Pure.
 *
 * Candidate starts are laid on a grid of `stepMinutes` from the start of each working interval (09:00, 09:15, ...),
 * or from each local midnight for an open schedule. The grid is in elapsed time, so on a daylight-saving day it
 * stays on the local quarter hours (the jump is a whole hour); only zones with half-hour jumps (Australia/Lord_Howe)
 * shift a grid coarser than 30 minutes by half an hour after the jump, until the next local day.
 *
 * Which candidates are offered is decided by {@link freeSpans}: the provider's working stretches minus time off,
 * appointments and their buffers, computed once per provider. A slot is offered when it starts on the grid, after
 * the notice, and lies inside one free span. That is {@link whyUnbookable}, the predicate booking applies, turned
 * inside out: instead of four binary searches per candidate (36,000 candidates for a 200-provider week), one walk
 * over the free spans jumps straight to the grid points inside them. test/unit/domain/availability/compute-slots-free-spans.test.ts
 * checks on random schedules that both give the same slots, so an offered slot is always accepted.
 */
import {
  localDays,
  merge,
  prepareSchedule,
  type ProviderSchedule,
  type ScheduleFacts,
  type Span,
} from './schedule-rules.ts'

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

/**
 * The spans in which any interval fits that passes every rule but the notice: inside one working stretch (the whole
 * time line for an open schedule), overlapping no time off, appointment or buffer. Sorted and disjoint; two may
 * touch where a blocked span has no length (merged blocked spans never touch, so only such a span separates two
 * free ones at one instant): an interval across that instant then fits in neither, as {@link whyUnbookable}
 * decides (it treats an empty span as blocking the intervals strictly around it).
 */
export function freeSpans(schedule: ProviderSchedule): Span[] {
  const blocked = merge([...schedule.timeOff, ...schedule.appointments, ...schedule.buffered])
  const stretches = schedule.workStretches ?? [{ start: Number.NEGATIVE_INFINITY, end: Number.POSITIVE_INFINITY }]
  const free: Span[] = []
  let b = 0
  for (const stretch of stretches) {
    let cursor = stretch.start
    // Blocked spans ending before the cursor cannot cut this stretch, nor any later one.
    while (b < blocked.length && blocked[b]!.end < cursor) b++
    for (let k = b; k < blocked.length && blocked[k]!.start <= stretch.end; k++) {
      const block = blocked[k]!
      if (block.start > cursor) {
        free.push({ start: cursor, end: Math.min(block.start, stretch.end) })
      }
      cursor = Math.max(cursor, block.end)
      if (cursor >= stretch.end) break
    }
    if (cursor < stretch.end) free.push({ start: cursor, end: stretch.end })
  }
  return free
}

/** Index of the first span ending after `t` in sorted, disjoint spans (spans.length when none). */
function firstEndingAfter(spans: Span[], t: number): number {
  let lo = 0
  let hi = spans.length
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if (spans[mid]!.end > t) hi = mid
    else lo = mid + 1
  }
  return lo
}

/** {@link computeSlots} over an already prepared schedule. */
export function slotsOf(schedule: ProviderSchedule, query: SlotQuery): Slot[] {
  const { facts } = schedule
  if (!facts.bookable) return []
  const duration = query.durationMinutes * MINUTE
  const step = query.stepMinutes * MINUTE
  // The notice is a lower bound on starts like `from` and `now`: fold it in, and the grid walk skips what it forbids.
  const notice =
    facts.minimumNoticeMinutes > 0 ? schedule.now + facts.minimumNoticeMinutes * MINUTE : Number.NEGATIVE_INFINITY
  const earliest = Math.max(query.from, query.now, notice)
  const anchors = schedule.workIntervals ?? localDays(schedule.zone, { start: query.from, end: query.to })
  const free = freeSpans(schedule)
  const slots: Slot[] = []
  let lastStart = Number.NEGATIVE_INFINITY
  for (const anchor of anchors) {
    const limit = Math.min(anchor.end, query.to)
    if (limit <= earliest) continue
    // The first grid point of this anchor at or after `earliest`.
    let start = anchor.start + (earliest > anchor.start ? Math.ceil((earliest - anchor.start) / step) : 0) * step
    let f = firstEndingAfter(free, start)
    while (start < limit && f < free.length) {
      const span = free[f]!
      if (start < span.start) {
        // Jump to the first grid point inside the next free span.
        start = anchor.start + Math.ceil((span.start - anchor.start) / step) * step
        continue
      }
      if (start + duration > span.end) {
        f++
        continue
      }
      // Anchors of merged stretches can meet; never offer one start twice, and keep the list ordered.
      if (start > lastStart) {
        slots.push({ start, end: start + duration })
        lastStart = start
      }
      start += step
    }
  }
  return slots
}
