/**
 * @module Time zones: the one module that knows about IANA zones. Offsets come from `@date-fns/tz`'s `tzOffset`
 * (Intl underneath, with its formatter cache); this module adds one rule for reading a local wall-clock time as an
 * instant, the zone validation, and the RFC 3339 formatter. Appointment times, weekly series
 * (appointment-series/zoned-time.ts) and the availability timeline (availability/zone-timeline.ts) all use these.
 *
 * Local wall-clock times are "local milliseconds": the reading written as if it were UTC (`Date.UTC(y, m, d, h, mi)`),
 * so a local time is its instant plus the zone's offset at that instant.
 *
 * The rule for local times a daylight-saving change makes ambiguous is the one calendars use, RFC 5545 §3.3.5 and
 * Temporal's `compatible` disambiguation:
 * - a time skipped by a spring-forward gap is read with the offset in force before the gap, so it moves forward by
 *   the gap's length (02:30 on a one-hour gap becomes 03:30; Lord Howe's half-hour gap turns 02:15 into 02:45);
 * - a time repeated by a fall-back overlap means its first occurrence, the one with the earlier (larger) offset.
 * The library's `TZDate` wall-clock constructor is not used for this: with the process in UTC it reads a repeated
 * time as its second occurrence (London 01:30 on 2026-10-25 came out 01:30Z, not 00:30Z), its answer changes with
 * the process's own zone (under TZ=Australia/Lord_Howe the same call gave 00:30Z), and it moved a time in
 * Kathmandu's 15-minute gap of 1986 backwards. Only its offsets are used.
 *
 * Offsets are whole minutes. Before about 1900 zones ran on local mean time with offsets in seconds (New York was
 * UTC-4:56:02); RFC 3339 offsets have no seconds, so such an offset is rounded and the wall clock derived from the
 * rounded offset: the text still names exactly the instant, only the clock reading is off by the dropped seconds.
 * Years 0001–9999 (RFC 3339's range) are supported.
 */
import { tzOffset } from '@date-fns/tz'
import { DAY_MS } from '../common/time/calendar.ts'

export const MINUTE = 60_000

/** Zones already found valid, so the check in front of every offset is a set lookup. Bounded: case variants count. */
const knownZones = new Set<string>()

/**
 * Whether a string names an IANA time zone this runtime knows. Asked of Intl, not of the library: `tzOffset` falls
 * back to reading `±HH:MM` anywhere in the string, so it answers 300 for `Mars/Olympus+05` instead of refusing it.
 * @param timeZone - e.g. `America/Chicago`
 */
export function isValidTimeZone(timeZone: string): boolean {
  if (knownZones.has(timeZone)) return true
  try {
    new Intl.DateTimeFormat('en-US', { timeZone })
  } catch {
    return false
  }
  if (knownZones.size >= 10_000) knownZones.clear()
  knownZones.add(timeZone)
  return true
}

/**
 * The zone's UTC offset at an instant, in whole minutes east of UTC (exact; about a microsecond).
 * @param timeZone - a valid IANA zone; anything else throws a RangeError, as Intl does
 * @param instant - milliseconds since the epoch
 */
export function offsetMinutesAt(timeZone: string, instant: number): number {
  if (!isValidTimeZone(timeZone)) throw new RangeError(`Invalid time zone specified: ${timeZone}`)
  const date = new Date(instant)
  const offset = tzOffset(timeZone, date)
  // tzOffset 1.5.0 loses the sign of offsets between -00:59 and -00:01 (it reads "-00" as the number -0): Monrovia's
  // -00:44:30 until 1972 comes back as +44.5 (date-fns/date-fns PRs 4279 and 4314, open). Only local mean time and
  // Liberia ever had such offsets, so the second look at the offset text is paid for old dates alone.
  if (offset > 0 && offset < 60 && westOfGreenwich(timeZone, date)) return Math.round(-offset)
  return Math.round(offset)
}

function westOfGreenwich(timeZone: string, date: Date): boolean {
  return new Intl.DateTimeFormat('en-US', { timeZone, timeZoneName: 'longOffset' }).format(date).includes('GMT-')
}

/**
 * The instant of a local wall-clock time under the module's rule (gap: forward by the gap; overlap: first
 * occurrence), given any source of the zone's offsets: Intl directly, or a precomputed timeline.
 *
 * Offset changes are months apart, so at most one falls within a day either side of the time; the offsets a day
 * before and a day after are then the only candidates, and a candidate is real when the zone has that offset at the
 * instant it gives. The one before is tried first: when real, it is the answer (unchanged, or the first occurrence of
 * a repeated time, whose offset is the larger); when not, the one after (a time after a gap); when neither, the time
 * was skipped.
 * @param localMs - local milliseconds
 * @param offsetAt - the zone's offset in minutes at an instant
 */
export function instantOfLocal(localMs: number, offsetAt: (instant: number) => number): number {
  const before = offsetAt(localMs - DAY_MS)
  const early = localMs - before * MINUTE
  if (offsetAt(early) === before) return early
  const after = offsetAt(localMs + DAY_MS)
  const late = localMs - after * MINUTE
  if (after !== before && offsetAt(late) === after) return late
  // A skipped time: read with the offset in force before the gap, which lands after the gap by its length.
  return early
}

/**
 * The instant at which the zone's clocks show a local time, under the module's rule.
 * @param timeZone - a valid IANA zone
 * @param localMs - local milliseconds
 */
export function localToInstant(timeZone: string, localMs: number): number {
  return instantOfLocal(localMs, (instant) => offsetMinutesAt(timeZone, instant))
}

/**
 * The local milliseconds of an instant in a zone.
 * @param timeZone - a valid IANA zone
 * @param instant - milliseconds since the epoch
 */
export function instantToLocal(timeZone: string, instant: number): number {
  return instant + offsetMinutesAt(timeZone, instant) * MINUTE
}

const dayPrefixes = new Map<number, string>()
const offsetSuffixes = new Map<number, string>()
const two = (n: number) => (n < 10 ? `0${n}` : `${n}`)
/** "HH:MM:00" of each whole minute of a day: slots are almost always on whole minutes, so the time is one lookup. */
const wholeMinutes: string[] = Array.from({ length: 24 * 60 }, (_, m) => `${two(Math.floor(m / 60))}:${two(m % 60)}:00`)

/**
 * Formats an instant as ISO 8601 local time with the given offset, e.g. `2026-12-01T09:00:00-06:00`: a fraction
 * only when there are milliseconds, `+00:00` for UTC. Availability formats tens of thousands of instants per
 * request, so the date part and the offset are cached and the time is assembled by hand.
 * @param instant - ms since the epoch
 * @param offset - minutes ahead of UTC
 */
export function formatWithOffset(instant: number, offset: number): string {
  const local = instant + offset * MINUTE
  const day = Math.floor(local / DAY_MS)
  let prefix = dayPrefixes.get(day)
  if (prefix === undefined) {
    if (dayPrefixes.size > 10_000) dayPrefixes.clear()
    prefix = new Date(day * DAY_MS).toISOString().slice(0, 11)
    dayPrefixes.set(day, prefix)
  }
  let suffix = offsetSuffixes.get(offset)
  if (suffix === undefined) {
    const abs = Math.abs(offset)
    suffix = `${offset < 0 ? '-' : '+'}${two(Math.floor(abs / 60))}:${two(abs % 60)}`
    offsetSuffixes.set(offset, suffix)
  }
  const ms = local - day * DAY_MS
  if (ms % MINUTE === 0) return prefix + wholeMinutes[ms / MINUTE]! + suffix
  const seconds = Math.floor(ms / 1000)
  const millis = ms % 1000
  const time = `${two(Math.floor(seconds / 3600))}:${two(Math.floor(seconds / 60) % 60)}:${two(seconds % 60)}`
  return `${prefix}${time}${millis ? `.${String(millis).padStart(3, '0')}` : ''}${suffix}`
}

/**
 * Formats an instant as ISO 8601 local time with the zone's offset at that instant (docs/conventions.md), e.g.
 * `2026-12-01T09:00:00-06:00`.
 * @param instant - the moment to format
 * @param timeZone - IANA zone whose offset at that instant is used
 */
export function formatInTimeZone(instant: Date, timeZone: string): string {
  const ms = instant.getTime()
  return formatWithOffset(ms, offsetMinutesAt(timeZone, ms))
}
