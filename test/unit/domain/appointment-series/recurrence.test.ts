import { describe, expect, it } from 'vitest'
import { expandWeekly, MAX_OCCURRENCES, type ExpandInput } from '../../../../domain/appointment-series/recurrence.ts'
import { formatInTimeZone } from '../../../../domain/time.ts'
import { fromLocal, toLocal } from '../../../../domain/appointment-series/zoned-time.ts'

const chicago = 'America/Chicago'
const base = (over: Partial<ExpandInput> = {}): ExpandInput => ({
  // Tuesday 20 October 2026, 16:00 CDT.
  firstStartsAt: new Date('2026-10-20T16:00:00-05:00'),
  timeZone: chicago,
  durationMinutes: 45,
  rule: { interval: 1, count: 4 },
  ...over,
})

function expand(input: ExpandInput) {
  const result = expandWeekly(input)
  if ('errors' in result) throw new Error(JSON.stringify(result.errors))
  return result.expansion
}

describe('fromLocal / toLocal', () => {
  it('maps a local time to its instant on either side of a DST change', () => {
    expect(fromLocal('2026-10-27', { hour: 16, minute: 0, second: 0, millisecond: 0 }, chicago).toISOString()).toBe(
      '2026-10-27T21:00:00.000Z'
    )
    expect(fromLocal('2026-11-03', { hour: 16, minute: 0, second: 0, millisecond: 0 }, chicago).toISOString()).toBe(
      '2026-11-03T22:00:00.000Z'
    )
  })

  it('takes the first of a repeated local time (clocks go back), west and east of UTC', () => {
    expect(fromLocal('2026-11-01', { hour: 1, minute: 30, second: 0, millisecond: 0 }, chicago).toISOString()).toBe(
      '2026-11-01T06:30:00.000Z'
    )
    expect(
      fromLocal('2026-10-25', { hour: 2, minute: 30, second: 0, millisecond: 0 }, 'Europe/Berlin').toISOString()
    ).toBe('2026-10-25T00:30:00.000Z')
  })

  it('moves a skipped local time forward by the gap (clocks go forward)', () => {
    const instant = fromLocal('2027-03-14', { hour: 2, minute: 30, second: 0, millisecond: 0 }, chicago)
    expect(instant.toISOString()).toBe('2027-03-14T08:30:00.000Z')
    expect(formatInTimeZone(instant, chicago)).toBe('2027-03-14T03:30:00-05:00')
  })

  it('reads an instant back as local date and time', () => {
    expect(toLocal(new Date('2026-11-03T22:00:00Z'), chicago)).toEqual({
      date: '2026-11-03',
      time: { hour: 16, minute: 0, second: 0, millisecond: 0 },
    })
    expect(toLocal(new Date('2026-06-01T12:00:00Z'), 'UTC').date).toBe('2026-06-01')
  })
})

describe('expandWeekly', () => {
  it('keeps 4pm local across the end of daylight saving time', () => {
    const { occurrences } = expand(base())
    expect(occurrences.map((o) => formatInTimeZone(o.startsAt, chicago))).toEqual([
      '2026-10-20T16:00:00-05:00',
      '2026-10-27T16:00:00-05:00',
      '2026-11-03T16:00:00-06:00',
      '2026-11-10T16:00:00-06:00',
    ])
    expect(occurrences.map((o) => (o.endsAt.getTime() - o.startsAt.getTime()) / 60_000)).toEqual([45, 45, 45, 45])
    expect(occurrences.map((o) => o.date)).toEqual(['2026-10-20', '2026-10-27', '2026-11-03', '2026-11-10'])
  })

  it('keeps local time across the start of daylight saving time in Europe', () => {
    const { occurrences } = expand(
      base({
        firstStartsAt: new Date('2027-03-22T09:15:00+01:00'),
        timeZone: 'Europe/Berlin',
        rule: { interval: 1, count: 2 },
      })
    )
    expect(occurrences.map((o) => formatInTimeZone(o.startsAt, 'Europe/Berlin'))).toEqual([
      '2027-03-22T09:15:00+01:00',
      '2027-03-29T09:15:00+02:00',
    ])
  })

  it('uses the local date of the first start, not its UTC date', () => {
    // 23:30 on Monday in Chicago is already Tuesday in UTC.
    const { occurrences, byWeekday } = expand(
      base({ firstStartsAt: new Date('2026-12-07T23:30:00-06:00'), rule: { interval: 1, count: 2 } })
    )
    expect(byWeekday).toEqual(['MO'])
    expect(occurrences.map((o) => o.date)).toEqual(['2026-12-07', '2026-12-14'])
  })

  it('books several weekdays a week, starting from the first start', () => {
    // Wednesday 2 December 2026: the Monday of that week is before the start and is not booked.
    const { dates } = expand(
      base({
        firstStartsAt: new Date('2026-12-02T10:00:00-06:00'),
        rule: { interval: 1, byWeekday: ['WE', 'MO'], count: 5 },
      })
    )
    expect(dates).toEqual(['2026-12-02', '2026-12-07', '2026-12-09', '2026-12-14', '2026-12-16'])
  })

  it('skips weeks with an interval and stops at until (inclusive)', () => {
    const { dates } = expand(base({ rule: { interval: 2, until: '2026-11-17' } }))
    expect(dates).toEqual(['2026-10-20', '2026-11-03', '2026-11-17'])
  })

  it('removes exceptions after counting them, as RFC 5545 EXDATE does', () => {
    const { dates, occurrences } = expand(base({ exceptions: ['2026-10-27'] }))
    expect(dates).toHaveLength(4)
    expect(occurrences.map((o) => o.date)).toEqual(['2026-10-20', '2026-11-03', '2026-11-10'])
  })

  it('allows exactly the maximum and refuses one more', () => {
    expect(expand(base({ rule: { interval: 1, count: MAX_OCCURRENCES } })).occurrences).toHaveLength(MAX_OCCURRENCES)
    const tooMany = expandWeekly(base({ rule: { interval: 1, until: '2027-12-31' } }))
    expect(tooMany).toEqual({ errors: [expect.objectContaining({ path: 'recurrence', code: 'too_many_occurrences' })] })
  })

  it('refuses rules and exceptions that make no sense, with field paths', () => {
    const codes = (input: ExpandInput) => {
      const result = expandWeekly(input)
      return 'errors' in result ? result.errors.map((e) => `${e.path}:${e.code}`) : []
    }
    expect(codes(base({ rule: { interval: 1 } }))).toEqual(['recurrence:count_or_until'])
    expect(codes(base({ rule: { interval: 1, count: 2, until: '2026-12-01' } }))).toEqual(['recurrence:count_or_until'])
    expect(codes(base({ rule: { interval: 1, count: 2, byWeekday: ['MO'] } }))).toEqual([
      'recurrence.byWeekday:first_occurrence_excluded',
    ])
    expect(codes(base({ rule: { interval: 1, until: '2026-10-19' } }))).toEqual(['recurrence.until:before_start'])
    expect(codes(base({ exceptions: ['2026-10-21'] }))).toEqual(['exceptions[0]:not_an_occurrence'])
    expect(codes(base({ rule: { interval: 1, count: 1 }, exceptions: ['2026-10-20'] }))).toEqual([
      'exceptions:no_occurrences',
    ])
  })
})
