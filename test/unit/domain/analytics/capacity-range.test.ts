import { describe, expect, it } from 'vitest'
import { resolveRange } from '../../../../domain/analytics/analytics-range.ts'
import { lengthWithin, uncoveredLength } from '../../../../domain/analytics/capacity.ts'
import { addCounts, emptyCounts, ratio, toMetrics } from '../../../../domain/analytics/metrics.ts'

describe('resolveRange', () => {
  it('starts and ends days at local midnight, 23 and 25 hours long across daylight-saving changes', () => {
    const spring = resolveRange('2026-03-08', '2026-03-08', 'America/Chicago')
    expect([spring.start.toISOString(), spring.end.toISOString()]).toEqual([
      '2026-03-08T06:00:00.000Z',
      '2026-03-09T05:00:00.000Z',
    ])
    const fall = resolveRange('2026-11-01', '2026-11-01', 'America/Chicago')
    expect(fall.end.getTime() - fall.start.getTime()).toBe(25 * 3_600_000)
    const india = resolveRange('2026-01-01', '2026-01-31', 'Asia/Kolkata')
    expect(india.start.toISOString()).toBe('2025-12-31T18:30:00.000Z')
    expect(india.end.toISOString()).toBe('2026-01-31T18:30:00.000Z')
  })

  it('refuses impossible dates, unknown zones, inverted and over-long ranges', () => {
    const codes = (f: () => unknown) => {
      try {
        f()
      } catch (error) {
        return (error as { errors: Array<{ path: string; code: string }> }).errors.map((e) => `${e.path}:${e.code}`)
      }
      return []
    }
    expect(codes(() => resolveRange('2026-02-29', '2026-03-01', 'UTC'))).toEqual(['from:invalid_date'])
    expect(codes(() => resolveRange('2026-03-02', '2026-03-01', 'UTC'))).toEqual(['to:before_start'])
    expect(codes(() => resolveRange('2025-01-01', '2026-01-02', 'UTC'))).toEqual(['to:range_too_long'])
    expect(codes(() => resolveRange('2024-01-01', '2024-12-31', 'UTC'))).toEqual([]) // 366 days
    expect(codes(() => resolveRange('2026-01-01', '2026-01-01', 'Nowhere/City'))).toEqual([
      'timeZone:invalid_time_zone',
    ])
  })
})

describe('available time', () => {
  const s = (start: number, end: number) => ({ start, end })
  it('subtracts time off from working spans inside the window', () => {
    const work = [s(0, 10), s(20, 30), s(40, 50)]
    expect(lengthWithin(work, s(5, 45))).toBe(5 + 10 + 5)
    expect(uncoveredLength(work, [], s(0, 100))).toBe(30)
    expect(uncoveredLength(work, [s(8, 22), s(45, 100)], s(0, 100))).toBe(30 - 2 - 2 - 5)
    expect(uncoveredLength(work, [s(-5, 100)], s(0, 100))).toBe(0)
    expect(uncoveredLength(work, [s(25, 26)], s(0, 22))).toBe(10 + 2)
  })
})

describe('metrics', () => {
  it('adds counts exactly and recomputes rates from the sums, never adding rates', () => {
    const a = emptyCounts()
    a.appointments.total = 3
    a.appointments.cancelled = 1
    a.collected.set('USD', 1_000)
    const b = emptyCounts()
    b.appointments.total = 1
    b.appointments.cancelled = 1
    b.collected.set('USD', 500)
    b.collected.set('EUR', 7)
    b.outstanding.set('USD', { amount: 100, orders: 1 })
    const sum = toMetrics(addCounts(addCounts(emptyCounts(), a), b))
    expect(sum.appointments.total).toBe(4)
    expect(sum.cancellationRate).toBe(0.5)
    expect(sum.revenue).toEqual([
      { currency: 'EUR', collected: 7, refunded: 0, net: 7 },
      { currency: 'USD', collected: 1_500, refunded: 0, net: 1_500 },
    ])
    expect(sum.outstanding).toEqual([{ currency: 'USD', amount: 100, orders: 1 }])
    expect(ratio(1, 3)).toBe(0.3333)
    expect(ratio(1, 0)).toBeNull()
  })
})
