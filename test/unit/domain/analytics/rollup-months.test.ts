import { describe, expect, it } from 'vitest'
import { monthStart, monthStartAtOrAfter, wholeMonths } from '../../../../domain/analytics/rollup-months.ts'

const at = (iso: string) => Date.parse(iso)

describe('rollup months', () => {
  it('finds the UTC month starts around an instant', () => {
    expect(monthStart(at('2026-02-28T23:59:59.999Z'))).toBe(at('2026-02-01T00:00:00Z'))
    expect(monthStartAtOrAfter(at('2026-03-01T00:00:00Z'))).toBe(at('2026-03-01T00:00:00Z'))
    expect(monthStartAtOrAfter(at('2026-03-01T00:00:00.001Z'))).toBe(at('2026-04-01T00:00:00Z'))
    expect(monthStartAtOrAfter(at('2026-12-15T00:00:00Z'))).toBe(at('2027-01-01T00:00:00Z'))
  })

  it('takes only months wholly inside the range, whatever the zone of its day boundaries', () => {
    // 2026-01-15..2026-05-20 in Asia/Kathmandu (+05:45): [2026-01-14T18:15Z, 2026-05-20T18:15Z).
    expect(wholeMonths(at('2026-01-14T18:15:00Z'), at('2026-05-20T18:15:00Z'))).toEqual({
      start: at('2026-02-01T00:00:00Z'),
      end: at('2026-05-01T00:00:00Z'),
    })
    // Exactly whole months in UTC.
    expect(wholeMonths(at('2026-01-01T00:00:00Z'), at('2026-07-01T00:00:00Z'))).toEqual({
      start: at('2026-01-01T00:00:00Z'),
      end: at('2026-07-01T00:00:00Z'),
    })
  })

  it('answers an empty span at the start when no whole month fits, so the edges cover the range', () => {
    const from = at('2026-03-01T06:00:00Z')
    expect(wholeMonths(from, at('2026-04-01T05:00:00Z'))).toEqual({ start: from, end: from })
    expect(wholeMonths(from, at('2026-03-02T06:00:00Z'))).toEqual({ start: from, end: from })
  })
})
