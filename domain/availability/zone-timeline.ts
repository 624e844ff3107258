/**
 * @module Time-zone arithmetic for schedules, fast enough to run per slot. Intl is exact but costs microseconds per
 * call, and availability formats and converts tens of thousands of instants per request; so for a range we find the
 * zone's offset transitions once (a few dozen Intl calls) and answer every later question from that timeline.
 *
 * Local wall-clock times are handled as "local milliseconds": the wall-clock reading written as if it were UTC
 * (`Date.UTC(y, m, d, h, mi)`). Converting one to an instant follows Temporal's `compatible` disambiguation, which
 * is what people expect of a calendar: a time skipped by a spring-forward transition moves forward by the gap
 * (02:30 becomes 03:30), and a time repeated by a fall-back transition means its first occurrence.
 */

const MINUTE = 60_000
const HOUR = 60 * MINUTE
/** Sampling interval when looking for transitions. No zone has changed its offset twice within 6 hours. */
const SAMPLE = 6 * HOUR
/** Offsets lie within UTC-12 and UTC+14, so a local time is within 15 hours of its instant. */
const MAX_OFFSET = 15 * HOUR

const formatters = new Map<string, Intl.DateTimeFormat>()

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone)
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    })
    formatters.set(timeZone, formatter)
  }
  return formatter
}

/**
 * The zone's UTC offset at an instant, in whole minutes, straight from Intl (slow; the timeline calls it sparingly).
 * @param timeZone - an IANA zone
 * @param instant - milliseconds since the epoch
 */
export function intlOffsetMinutes(timeZone: string, instant: number): number {
  const fields: Record<string, number> = {}
  for (const part of formatterFor(timeZone).formatToParts(instant)) {
    if (part.type !== 'literal') fields[part.type] = Number(part.value)
  }
  const local = Date.UTC(fields.year!, fields.month! - 1, fields.day, fields.hour, fields.minute, fields.second)
  const whole = instant - (((instant % 1000) + 1000) % 1000)
  return Math.round((local - whole) / MINUTE)
}

/** From `start` on (until the next segment), the zone is `offset` minutes ahead of UTC. */
interface Segment {
  start: number
  offset: number
}

/** A zone's offsets over a range of instants, for fast conversions within it. */
export interface ZoneTimeline {
  readonly timeZone: string
  /** Offset in minutes at an instant (exact inside the range the timeline was built for). */
  offsetAt(instant: number): number
  /** The instant of a local wall-clock time (local milliseconds), with `compatible` disambiguation. */
  toInstant(localMs: number): number
  /** Local milliseconds of an instant. */
  toLocal(instant: number): number
  /** ISO 8601 with the zone's offset at that instant, e.g. `2026-03-08T03:00:00-05:00`. */
  format(instant: number): string
}

const cache = new Map<string, ZoneTimeline>()
const CACHE_LIMIT = 1000

/**
 * The timeline of `timeZone` covering [from, to], padded by a day on each side so local times near the edges
 * convert correctly. Cached per zone and UTC day span, so providers sharing a zone share one.
 * @param timeZone - a valid IANA zone (validated when the provider was saved)
 * @param from - first instant of interest, ms
 * @param to - last instant of interest, ms
 */
export function zoneTimeline(timeZone: string, from: number, to: number): ZoneTimeline {
  const day = 24 * HOUR
  const start = Math.floor(from / day) * day - day
  const end = Math.ceil(to / day) * day + day
  const key = `${timeZone}|${start}|${end}`
  let timeline = cache.get(key)
  if (!timeline) {
    if (cache.size >= CACHE_LIMIT) cache.clear()
    timeline = buildTimeline(timeZone, start, end)
    cache.set(key, timeline)
  }
  return timeline
}

function buildTimeline(timeZone: string, start: number, end: number): ZoneTimeline {
  const segments: Segment[] = [{ start: Number.NEGATIVE_INFINITY, offset: intlOffsetMinutes(timeZone, start) }]
  let previous = start
  let previousOffset = segments[0]!.offset
  for (let t = start + SAMPLE; ; t += SAMPLE) {
    const sample = Math.min(t, end)
    const offset = intlOffsetMinutes(timeZone, sample)
    if (offset !== previousOffset) {
      segments.push({ start: findTransition(timeZone, previous, sample, offset), offset })
      previousOffset = offset
    }
    previous = sample
    if (sample >= end) break
  }

  const offsetAt = (instant: number): number => {
    let offset = segments[0]!.offset
    for (const segment of segments) {
      if (segment.start > instant) break
      offset = segment.offset
    }
    return offset
  }

  const toInstant = (localMs: number): number => {
    let valid: number | undefined
    for (const { offset } of segments) {
      const instant = localMs - offset * MINUTE
      // A candidate is real when the zone really has that offset at that instant; of two (a repeated hour), the
      // earlier instant wins.
      if (offsetAt(instant) === offset && (valid === undefined || instant < valid)) valid = instant
    }
    if (valid !== undefined) return valid
    // A skipped time: read it with the offset in force before the gap, which lands after the gap by its length.
    return localMs - offsetAt(localMs - MAX_OFFSET) * MINUTE
  }

  return {
    timeZone,
    offsetAt,
    toInstant,
    toLocal: (instant) => instant + offsetAt(instant) * MINUTE,
    format: (instant) => formatWithOffset(instant, offsetAt(instant)),
  }
}

/** The first minute in (lo, hi] at which the zone has `offset`, by bisection. */
function findTransition(timeZone: string, lo: number, hi: number, offset: number): number {
  let a = Math.floor(lo / MINUTE)
  let b = Math.ceil(hi / MINUTE)
  while (b - a > 1) {
    const mid = Math.floor((a + b) / 2)
    if (intlOffsetMinutes(timeZone, mid * MINUTE) === offset) b = mid
    else a = mid
  }
  return b * MINUTE
}

const DAY = 24 * HOUR
const dayPrefixes = new Map<number, string>()
const offsetSuffixes = new Map<number, string>()
const two = (n: number) => (n < 10 ? `0${n}` : `${n}`)
/** "HH:MM:00" of each whole minute of a day: slots are almost always on whole minutes, so the time is one lookup. */
const wholeMinutes: string[] = Array.from({ length: 24 * 60 }, (_, m) => `${two(Math.floor(m / 60))}:${two(m % 60)}:00`)

/**
 * Formats an instant as ISO 8601 local time with the given offset; the same text as `formatInTimeZone` in
 * domain/time.ts (fraction only when there are milliseconds, `+00:00` for UTC). Availability formats tens of
 * thousands of instants per request, so the date part and the offset are cached and the time is assembled by hand.
 * @param instant - ms since the epoch
 * @param offset - minutes ahead of UTC
 */
export function formatWithOffset(instant: number, offset: number): string {
  const local = instant + offset * MINUTE
  const day = Math.floor(local / DAY)
  let prefix = dayPrefixes.get(day)
  if (prefix === undefined) {
    if (dayPrefixes.size > 10_000) dayPrefixes.clear()
    prefix = new Date(day * DAY).toISOString().slice(0, 11)
    dayPrefixes.set(day, prefix)
  }
  let suffix = offsetSuffixes.get(offset)
  if (suffix === undefined) {
    const abs = Math.abs(offset)
    suffix = `${offset < 0 ? '-' : '+'}${two(Math.floor(abs / 60))}:${two(abs % 60)}`
    offsetSuffixes.set(offset, suffix)
  }
  const ms = local - day * DAY
  if (ms % MINUTE === 0) return prefix + wholeMinutes[ms / MINUTE]! + suffix
  const seconds = Math.floor(ms / 1000)
  const millis = ms % 1000
  const time = `${two(Math.floor(seconds / 3600))}:${two(Math.floor(seconds / 60) % 60)}:${two(seconds % 60)}`
  return `${prefix}${time}${millis ? `.${String(millis).padStart(3, '0')}` : ''}${suffix}`
}
