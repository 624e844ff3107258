/**
 * @module How far back the processor's events reach (docs/payments.md, "Reconciliation"): Stripe keeps its events
 * for 30 days, and `GET /v1/events` silently answers nothing older. A run's events only say which objects created
 * before its window changed in it; the objects created in the window are listed by their creation, whatever their
 * age. So the part of a window older than the events is checked by listing alone, and the run says so (issue 58).
 */
import type { CreatedWindow } from './processor-snapshot.ts'
import { DAY_MS } from '../../common/time/calendar.ts'

/** How long the processor keeps its events (Stripe: "List events, going back up to 30 days"). */
export const EVENT_RETENTION_DAYS = 30

/**
 * Where the processor's events of `window` begin, when they do not cover all of it.
 * @param now - the time the events are asked for
 * @returns the end of the window's part that no event covers (the window's end when none of it is), or undefined
 *   when the events cover the whole window
 */
export function eventsUnavailableBefore(window: CreatedWindow, now: Date): Date | undefined {
  const kept = new Date(now.getTime() - EVENT_RETENTION_DAYS * DAY_MS)
  if (window.from >= kept) return undefined
  return window.to < kept ? window.to : kept
}
