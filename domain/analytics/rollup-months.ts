/**
 * @module Which whole UTC months of a range the roll-ups answer (docs/analytics.md, "Roll-ups"). The roll-up tables
 * hold appointments and money by the UTC month of their instant; a range is split into the whole months it covers,
 * read from the roll-ups, and the partial months at its edges, read from the records. The split is by instant, so a
 * range's day boundaries in any zone (half- and quarter-hour offsets, historic offsets with seconds) stay exact.
 */
import type { Span } from '../availability/schedule-rules.ts'

/** First instant of the UTC month containing `ms`. */
export function monthStart(ms: number): number {
  const d = new Date(ms)
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1)
}

/** First UTC month start at or after `ms`. */
export function monthStartAtOrAfter(ms: number): number {
  const start = monthStart(ms)
  if (start === ms) return ms
  const d = new Date(start)
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1)
}

/**
 * The whole UTC months `[start, end)` inside `[from, until)`: every month starting at or after `from` that ends at
 * or before `until`. When there is none, the empty span at `from`, so that the edges `[from, start)` and
 * `[end, …)` still cover the whole range.
 */
export function wholeMonths(from: number, until: number): Span {
  const start = monthStartAtOrAfter(from)
  const end = monthStart(until)
  return end > start ? { start, end } : { start: from, end: from }
}
