import { describe, expect, it } from 'vitest'
import { formatInTimeZone, isValidTimeZone, OFFSET_DATE_TIME } from '../../../domain/time.ts'

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
  })

  it('accepts only date-times with an offset', () => {
    expect(OFFSET_DATE_TIME.test('2026-12-01T09:00:00-06:00')).toBe(true)
    expect(OFFSET_DATE_TIME.test('2026-12-01T15:00:00.123Z')).toBe(true)
    expect(OFFSET_DATE_TIME.test('2026-12-01T09:00:00')).toBe(false)
    expect(OFFSET_DATE_TIME.test('2026-12-01 09:00')).toBe(false)
  })
})
