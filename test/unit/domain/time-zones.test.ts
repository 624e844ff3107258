import { describe, expect, it } from 'vitest'
import { fromLocal } from '../../../domain/appointment-series/zoned-time.ts'
import { zoneTimeline } from '../../../domain/availability/zone-timeline.ts'
import { formatInTimeZone, instantToLocal, localToInstant, offsetMinutesAt } from '../../../domain/time-zones.ts'

const MINUTE = 60_000
const local = (iso: string) => Date.parse(`${iso}Z`)
const iso = (instant: number) => new Date(instant).toISOString()

/** Every way the code base turns a local time into an instant; all must give the same answer. */
function allReadings(zone: string, localIso: string): string[] {
  const ms = local(localIso)
  const timeline = zoneTimeline(zone, ms - 3 * 86_400_000, ms + 3 * 86_400_000)
  const [date, time] = localIso.split('T') as [string, string]
  const [hour, minute] = time.split(':').map(Number) as [number, number]
  return [
    iso(localToInstant(zone, ms)),
    iso(timeline.toInstant(ms)),
    fromLocal(date, { hour, minute, second: 0, millisecond: 0 }, zone).toISOString(),
  ]
}

describe('the one disambiguation rule', () => {
  it.each([
    // [zone, skipped local time, the instant it means: read with the offset before the gap]
    ['America/New_York', '2026-03-08T02:30', '2026-03-08T07:30:00.000Z'], // 03:30 EDT
    ['Europe/London', '2026-03-29T01:30', '2026-03-29T01:30:00.000Z'], // 02:30 BST
    ['Australia/Lord_Howe', '2026-10-04T02:15', '2026-10-03T15:45:00.000Z'], // half-hour gap: 02:45 +11:00
    ['Australia/Adelaide', '2026-10-04T02:30', '2026-10-03T17:00:00.000Z'], // half-hour zone: 03:30 +10:30
    ['Asia/Kathmandu', '1986-01-01T00:05', '1985-12-31T18:35:00.000Z'], // +05:30 → +05:45, a 15-minute gap
    ['Pacific/Apia', '2011-12-30T12:00', '2011-12-30T22:00:00.000Z'], // Samoa skipped the whole day
  ])('moves a time skipped in %s (%s) forward by the gap', (zone, localIso, expected) => {
    expect(allReadings(zone, localIso)).toEqual([expected, expected, expected])
  })

  it.each([
    // [zone, repeated local time, its first occurrence: the earlier offset]
    ['America/New_York', '2026-11-01T01:30', '2026-11-01T05:30:00.000Z'], // EDT, not EST
    ['Europe/London', '2026-10-25T01:30', '2026-10-25T00:30:00.000Z'],
    ['Australia/Lord_Howe', '2026-04-05T01:45', '2026-04-04T14:45:00.000Z'], // +11:00, not +10:30
    ['Europe/Moscow', '2010-10-31T02:30', '2010-10-30T22:30:00.000Z'], // the last Moscow fall-back with DST
    ['Europe/Moscow', '2014-10-26T01:30', '2014-10-25T21:30:00.000Z'], // the 2014 return from +04 to +03
  ])('reads a time repeated in %s (%s) as its first occurrence', (zone, localIso, expected) => {
    expect(allReadings(zone, localIso)).toEqual([expected, expected, expected])
  })

  it('follows a zone whose rules changed: Moscow kept summer time in 2011, so 2013 repeats nothing', () => {
    // In 2010 02:30 on the last Sunday of October came twice; in 2013 only once, at +04.
    expect(allReadings('Europe/Moscow', '2013-10-27T02:30')).toEqual(Array(3).fill('2013-10-26T22:30:00.000Z'))
    expect(offsetMinutesAt('Europe/Moscow', Date.parse('2013-12-01T00:00:00Z'))).toBe(240)
    expect(offsetMinutesAt('Europe/Moscow', Date.parse('2015-12-01T00:00:00Z'))).toBe(180)
  })

  it('round-trips every quarter hour around transitions, and agrees with the timeline everywhere', () => {
    const days: Record<string, string> = {
      'America/New_York': '2026-03-08',
      'Europe/London': '2026-10-25',
      'Australia/Lord_Howe': '2026-04-05',
      'Asia/Kolkata': '2026-03-08',
      'America/St_Johns': '2026-11-01',
    }
    for (const [zone, day] of Object.entries(days)) {
      const midnight = local(`${day}T00:00:00`)
      const timeline = zoneTimeline(zone, midnight - 86_400_000, midnight + 2 * 86_400_000)
      for (let ms = midnight - 12 * 60 * MINUTE; ms < midnight + 36 * 60 * MINUTE; ms += 15 * MINUTE) {
        const instant = localToInstant(zone, ms)
        expect(timeline.toInstant(ms), `${zone} ${iso(ms)}`).toBe(instant)
        const back = instantToLocal(zone, instant)
        // A real local time comes back unchanged; a skipped one comes back later by the gap, never earlier.
        expect(back, `${zone} ${iso(ms)}`).toBeGreaterThanOrEqual(ms)
        if (back !== ms) expect(localToInstant(zone, back)).toBe(instant)
      }
    }
  })
})

describe('offsets and formatting outside the usual years', () => {
  it('rounds a local-mean-time offset to whole minutes and still names the exact instant', () => {
    // New York ran 4:56:02 behind UTC until 1883; RFC 3339 offsets have no seconds.
    const instant = new Date('1850-01-01T00:00:00Z')
    expect(formatInTimeZone(instant, 'America/New_York')).toBe('1849-12-31T19:04:00-04:56')
    expect(Date.parse(formatInTimeZone(instant, 'America/New_York'))).toBe(instant.getTime())
  })

  it('writes four-digit years before 1000 and reads years below 100 as themselves', () => {
    expect(formatInTimeZone(new Date('0050-06-01T10:00:00Z'), 'UTC')).toBe('0050-06-01T10:00:00+00:00')
    expect(formatInTimeZone(new Date('0999-12-31T23:30:00Z'), 'Asia/Kolkata')).toMatch(
      /^1000-01-01T05:\d\d:\d\d\+05:\d\d$/
    )
    expect(offsetMinutesAt('UTC', Date.parse('0001-01-01T00:00:00Z'))).toBe(0)
  })

  it('keeps the sign of offsets less than an hour west of UTC (a tzOffset 1.5.0 bug gives +44.5 for Monrovia)', () => {
    // Liberia ran at -00:44:30 until 1972, Dublin Mean Time was -00:25:21; both round half up, as before.
    expect(offsetMinutesAt('Africa/Monrovia', Date.parse('1960-01-01T00:00:00Z'))).toBe(-44)
    expect(formatInTimeZone(new Date('1960-01-01T00:00:00Z'), 'Africa/Monrovia')).toBe('1959-12-31T23:16:00-00:44')
    expect(offsetMinutesAt('Europe/Dublin', Date.parse('1900-01-01T00:00:00Z'))).toBe(-25)
    expect(offsetMinutesAt('Africa/Monrovia', Date.parse('1973-01-01T00:00:00Z'))).toBe(0)
    expect(offsetMinutesAt('Europe/Paris', Date.parse('1900-01-01T00:00:00Z'))).toBe(9) // east: +00:09:21
  })

  it('refuses an unknown zone, even one ending in an offset the library would read', () => {
    expect(() => offsetMinutesAt('Mars/Olympus', 0)).toThrow(RangeError)
    expect(() => offsetMinutesAt('Mars/Olympus+05', 0)).toThrow(RangeError)
  })
})

/** Intl's own "GMT+05:45" offset name and 2-digit fields: the way time.ts used to format, built apart from the module. */
const oracles = new Map<string, Intl.DateTimeFormat>()
function oracle(timeZone: string): Intl.DateTimeFormat {
  let format = oracles.get(timeZone)
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      timeZoneName: 'longOffset',
    })
    oracles.set(timeZone, format)
  }
  return format
}

describe('formatInTimeZone against Intl’s own offset text', () => {
  it('writes the wall clock and offset Intl shows, for random instants in eight zones', () => {
    const zones = [
      'America/New_York',
      'Europe/London',
      'Australia/Lord_Howe',
      'Asia/Kolkata',
      'Asia/Kathmandu',
      'America/St_Johns',
      'Pacific/Chatham',
      'UTC',
    ]
    let seed = 11
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31)
    for (let n = 0; n < 1000; n++) {
      const zone = zones[n % zones.length]!
      const instant = Date.UTC(2020, 0, 1) + (next() % 3_000) * 86_400_000 + (next() % 86_400) * 1000
      const parts = Object.fromEntries(
        oracle(zone)
          .formatToParts(instant)
          .map((p) => [p.type, p.value])
      )
      const offset = parts.timeZoneName === 'GMT' ? '+00:00' : String(parts.timeZoneName).slice(3)
      const expected = `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}:${parts.second}${offset}`
      expect(formatInTimeZone(new Date(instant), zone)).toBe(expected)
    }
  })
})
