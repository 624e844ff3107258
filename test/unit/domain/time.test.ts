import { describe, expect, it } from 'vitest'
import {
  CALENDAR_DATE,
  formatInTimeZone,
  isStorableInstant,
  isValidTimeZone,
  OFFSET_DATE_TIME,
} from '../../../domain/time.ts'

describe('formatInTimeZone', () => {
  it('shows the offset in force at that instant, across daylight saving', () => {
    expect(formatInTimeZone(new Date('2026-12-01T15:00:00Z'), 'America/Chicago')).toBe('2026-12-01T09:00:00-06:00')
    expect(formatInTimeZone(new Date('2026-07-01T15:00:00Z'), 'America/Chicago')).toBe('2026-07-01T10:00:00-05:00')
    expect(formatInTimeZone(new Date('2026-03-08T08:30:00Z'), 'America/Chicago')).toBe('2026-03-08T03:30:00-05:00')
  })

  it('handles zero, positive and fractional offsets and milliseconds', () => {
    expect(formatInTimeZone(new Date('2026-01-15T10:00:00Z'), 'UTC')).toBe('2026-01-15T10:00:00+00:00')
    expect(formatInTimeZone(new Date('2026-01-15T10:00:00.250Z'), 'Asia/Kolkata')).toBe('2026-01-15T15:30:00.250+05:30')
    expect(formatInTimeZone(new Date('2026-01-15T23:30:00Z'), 'Pacific/Auckland')).toBe('2026-01-16T12:30:00+13:00')
  })

  it('round-trips to the same instant', () => {
    const instant = new Date('2026-11-01T06:30:00Z')
    expect(new Date(formatInTimeZone(instant, 'America/New_York')).getTime()).toBe(instant.getTime())
  })
})

describe('time-zone and date-time validation', () => {
  it('knows IANA zones', () => {
    expect(isValidTimeZone('Europe/Berlin')).toBe(true)
    expect(isValidTimeZone('Mars/Olympus')).toBe(false)
    expect(isValidTimeZone('Mars/Olympus+05')).toBe(false) // tzOffset would read the +05 as an offset
  })

  it('accepts only date-times with an offset', () => {
    expect(OFFSET_DATE_TIME.test('2026-12-01T09:00:00-06:00')).toBe(true)
    expect(OFFSET_DATE_TIME.test('2026-12-01T15:00:00.123Z')).toBe(true)
    expect(OFFSET_DATE_TIME.test('2026-12-01T09:00:00')).toBe(false)
    expect(OFFSET_DATE_TIME.test('2026-12-01 09:00')).toBe(false)
  })

  it('takes exactly the date-times Date.parse takes, but for days a month lacks', () => {
    // Every field drawn over its whole two-digit range (and a little fraction of 24:00), as a fuzzer drawing from the
    // old \d{2} pattern would: the pattern and Date.parse agree on each value.
    const two = (n: number) => String(n).padStart(2, '0')
    let random = 42
    const next = (n: number) => {
      random = (random * 1103515245 + 12345) % 2 ** 31
      return random % n
    }
    const disagreements: string[] = []
    for (let i = 0; i < 20_000; i++) {
      const seconds = next(2)
        ? ''
        : `:${two(next(62))}${next(2) ? '' : `.${'0'.repeat(1 + next(3))}${next(2) ? '' : '5'}`}`
      const offset = next(3) === 0 ? 'Z' : `${next(2) ? '+' : '-'}${two(next(26))}:${two(next(62))}`
      const value = `2026-${two(next(14))}-${two(next(33))}T${two(next(26))}:${two(next(62))}${seconds}${offset}`
      if (OFFSET_DATE_TIME.test(value) !== !Number.isNaN(Date.parse(value))) disagreements.push(value)
    }
    expect(disagreements).toEqual([])
    for (const edge of ['2026-01-01T24:00Z', '2026-01-01T24:00:00.000+01:00', '2026-01-31t23:59:59z']) {
      expect(OFFSET_DATE_TIME.test(edge), edge).toBe(true)
    }
    for (const edge of ['2026-13-01T10:00Z', '2026-01-01T24:01Z', '2026-01-01T10:00+24:00', '2026-00-10T10:00Z']) {
      expect(OFFSET_DATE_TIME.test(edge), edge).toBe(false)
    }
    // Neither knows that February has no 30th: Date.parse rolls it over to March.
    expect(OFFSET_DATE_TIME.test('2026-02-30T10:00Z')).toBe(true)
  })

  it('takes years 0001 to 9999, and instants a day inside them: PostgreSQL has no year 0', () => {
    expect(OFFSET_DATE_TIME.test('0000-01-01T00:00Z')).toBe(false)
    expect(CALENDAR_DATE.test('0000-01-01')).toBe(false)
    expect(CALENDAR_DATE.test('0001-01-01')).toBe(true)
    expect(isStorableInstant('0001-01-02T00:00Z')).toBe(true)
    expect(isStorableInstant('0001-01-01T23:00-05:00')).toBe(true)
    expect(isStorableInstant('0001-01-01T00:00Z')).toBe(false)
    expect(isStorableInstant('9999-12-30T23:59Z')).toBe(true)
    expect(isStorableInstant('9999-12-30T23:59-23:59')).toBe(false)
  })

  it('writes local times with four-digit years and whole-minute offsets, which parse back to the same instant', () => {
    // Intl wrote year 6 as "6" and Chicago's local mean time before 1883 as -05:50:36 (found by Schemathesis).
    for (const utc of [
      '0006-04-01T13:00:00Z',
      '1850-06-01T12:00:00Z',
      '0001-01-02T00:00:00Z',
      '9999-12-30T23:00:00Z',
    ]) {
      for (const zone of ['America/Chicago', 'Asia/Kolkata', 'Pacific/Kiritimati', 'UTC']) {
        const local = formatInTimeZone(new Date(utc), zone)
        expect(local, `${utc} in ${zone}`).toMatch(OFFSET_DATE_TIME)
        expect(Date.parse(local), `${local}`).toBe(Date.parse(utc))
      }
    }
    expect(formatInTimeZone(new Date('1850-06-01T12:00:00Z'), 'America/Chicago')).toBe('1850-06-01T06:09:00-05:51')
  })
})
