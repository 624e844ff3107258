import { describe, expect, it } from 'vitest'
import { formatInTimeZone, formatWithOffset, offsetMinutesAt } from '../../../../domain/time-zones.ts'
import { zoneTimeline } from '../../../../domain/availability/zone-timeline.ts'

const HOUR = 3_600_000
const local = (iso: string) => Date.parse(`${iso}Z`)

describe('zone timeline', () => {
  it('agrees with Intl across a year, and to the minute around every 2026 transition', () => {
    const transitions: Record<string, string[]> = {
      'America/Chicago': ['2026-03-08T08:00:00Z', '2026-11-01T07:00:00Z'],
      'Europe/London': ['2026-03-29T01:00:00Z', '2026-10-25T01:00:00Z'],
      'Australia/Lord_Howe': ['2026-04-04T15:00:00Z', '2026-10-03T15:30:00Z'],
      'America/St_Johns': ['2026-03-08T05:30:00Z', '2026-11-01T04:30:00Z'],
      'Asia/Kolkata': [],
    }
    const from = Date.parse('2026-01-01T00:00:00Z')
    const to = Date.parse('2027-01-01T00:00:00Z')
    for (const [zone, instants] of Object.entries(transitions)) {
      const timeline = zoneTimeline(zone, from, to)
      const check = (t: number) =>
        expect(timeline.offsetAt(t), `${zone} at ${new Date(t).toISOString()}`).toBe(offsetMinutesAt(zone, t))
      // A step that is not a divisor of an hour lands on every minute of the hour over the year.
      for (let t = from; t < to; t += 2 * HOUR + 7 * 60_000) check(t)
      for (const instant of instants) {
        for (let m = -3; m <= 3; m++) check(Date.parse(instant) + m * 60_000)
        expect(timeline.offsetAt(Date.parse(instant) - 60_000)).not.toBe(timeline.offsetAt(Date.parse(instant)))
      }
    }
  }, 30_000)

  it('formats exactly as formatInTimeZone does', () => {
    const timeline = zoneTimeline(
      'Australia/Lord_Howe',
      Date.parse('2026-04-01T00:00:00Z'),
      Date.parse('2026-04-10T00:00:00Z')
    )
    for (let t = Date.parse('2026-04-04T12:00:00Z'); t < Date.parse('2026-04-05T18:00:00Z'); t += 15 * 60_000) {
      expect(timeline.format(t)).toBe(formatInTimeZone(new Date(t), 'Australia/Lord_Howe'))
    }
    expect(formatWithOffset(Date.parse('2026-01-01T10:00:00.250Z'), 0)).toBe('2026-01-01T10:00:00.250+00:00')
  })

  it('moves a skipped local time forward by the gap (spring forward, America/Chicago 2026-03-08)', () => {
    const chicago = zoneTimeline(
      'America/Chicago',
      Date.parse('2026-03-07T00:00:00Z'),
      Date.parse('2026-03-10T00:00:00Z')
    )
    expect(new Date(chicago.toInstant(local('2026-03-08T01:30:00'))).toISOString()).toBe('2026-03-08T07:30:00.000Z')
    // 02:30 does not exist: it becomes 03:30 CDT.
    expect(new Date(chicago.toInstant(local('2026-03-08T02:30:00'))).toISOString()).toBe('2026-03-08T08:30:00.000Z')
    expect(new Date(chicago.toInstant(local('2026-03-08T03:00:00'))).toISOString()).toBe('2026-03-08T08:00:00.000Z')
  })

  it('reads a repeated local time as its first occurrence (fall back, Europe/London 2026-10-25)', () => {
    const london = zoneTimeline('Europe/London', Date.parse('2026-10-24T00:00:00Z'), Date.parse('2026-10-27T00:00:00Z'))
    // 01:30 happens at 00:30Z (BST) and again at 01:30Z (GMT): the first.
    expect(new Date(london.toInstant(local('2026-10-25T01:30:00'))).toISOString()).toBe('2026-10-25T00:30:00.000Z')
    expect(new Date(london.toInstant(local('2026-10-25T02:00:00'))).toISOString()).toBe('2026-10-25T02:00:00.000Z')
    expect(london.format(Date.parse('2026-10-25T00:30:00Z'))).toBe('2026-10-25T01:30:00+01:00')
    expect(london.format(Date.parse('2026-10-25T01:30:00Z'))).toBe('2026-10-25T01:30:00+00:00')
  })

  it('handles the half-hour jump of Australia/Lord_Howe (2026-10-04, 02:00 → 02:30)', () => {
    const lh = zoneTimeline(
      'Australia/Lord_Howe',
      Date.parse('2026-10-02T00:00:00Z'),
      Date.parse('2026-10-06T00:00:00Z')
    )
    expect(lh.format(lh.toInstant(local('2026-10-04T01:59:00')))).toBe('2026-10-04T01:59:00+10:30')
    expect(lh.format(lh.toInstant(local('2026-10-04T02:15:00')))).toBe('2026-10-04T02:45:00+11:00')
    expect(lh.format(lh.toInstant(local('2026-10-04T02:30:00')))).toBe('2026-10-04T02:30:00+11:00')
  })

  it('formats whole minutes from the lookup table and everything else by hand, as formatInTimeZone does', () => {
    const zones = ['America/Chicago', 'Asia/Kolkata', 'Australia/Lord_Howe', 'UTC']
    let seed = 7
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31)
    for (let n = 0; n < 2000; n++) {
      const zone = zones[n % zones.length]!
      // Half on whole minutes (the slots' case), half anywhere, millisecond included.
      const instant = Date.UTC(2026, 0, 1) + (n % 2 === 0 ? (next() % 525_600) * 60_000 : next() * 17)
      const timeline = zoneTimeline(zone, instant, instant)
      expect(timeline.format(instant)).toBe(formatInTimeZone(new Date(instant), zone))
    }
  })
})
