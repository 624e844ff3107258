/**
 * @module The family's preferred times: weekly windows of local wall-clock time in a zone they choose ("weekdays
 * 15:00–18:00 in America/Chicago"). A slot is in the preferred times when it starts and ends inside one window on the
 * same local day. Uses the availability engine's zone timeline, so daylight-saving days are handled the way slots are.
 */
import { minutesOfDay, weekdayOf, type Weekday } from '../availability/weekly-hours.ts'
import type { ZoneTimeline } from '../availability/zone-timeline.ts'
import { DAY_MS } from '../../common/time/calendar.ts'

const MINUTE = 60_000

export interface PreferredWindow {
  weekdays: Weekday[]
  /** "HH:MM" */
  start: string
  /** "HH:MM", up to "24:00" */
  end: string
}

/**
 * Whether [start, end) lies inside one preferred window.
 * @param zone - a timeline of the preferred times' zone covering the slot
 */
export function inPreferredTimes(
  windows: readonly PreferredWindow[],
  zone: ZoneTimeline,
  start: number,
  end: number
): boolean {
  const localStart = zone.toLocal(start)
  const midnight = Math.floor(localStart / DAY_MS) * DAY_MS
  const weekday = weekdayOf(midnight)
  const from = (localStart - midnight) / MINUTE
  // Elapsed time, not wall-clock time: a slot across a daylight-saving change still lasts what it lasts.
  const to = from + (end - start) / MINUTE
  return windows.some((w) => w.weekdays.includes(weekday) && from >= minutesOfDay(w.start) && to <= minutesOfDay(w.end))
}
