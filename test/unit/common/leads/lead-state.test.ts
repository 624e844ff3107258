/** The lead lifecycle: every allowed move, every final status, and why the rest are refused. */
import { describe, expect, it } from 'vitest'
import { LEAD_STATUSES, canMove, isFinal, moveRefusal, type LeadStatus } from '../../../../common/leads/lead-state.ts'

const ALLOWED: Array<[LeadStatus, LeadStatus]> = [
  ['NEW', 'QUALIFIED'],
  ['NEW', 'DISQUALIFIED'],
  ['NEW', 'LOST'],
  ['QUALIFIED', 'MATCHED'],
  ['QUALIFIED', 'LOST'],
  ['MATCHED', 'OFFERED'],
  ['MATCHED', 'LOST'],
  ['OFFERED', 'OFFERED'],
  ['OFFERED', 'BOOKED'],
  ['OFFERED', 'LOST'],
]

describe('lead lifecycle', () => {
  it('allows exactly the listed moves', () => {
    for (const from of LEAD_STATUSES) {
      for (const to of LEAD_STATUSES) {
        const expected = ALLOWED.some(([f, t]) => f === from && t === to)
        expect(canMove(from, to), `${from} → ${to}`).toBe(expected)
      }
    }
  })

  it('ends in DISQUALIFIED, BOOKED and LOST only', () => {
    expect(LEAD_STATUSES.filter(isFinal)).toEqual(['DISQUALIFIED', 'BOOKED', 'LOST'])
  })

  it('says why a move is refused, naming what is allowed, and refuses nothing it allows', () => {
    expect(moveRefusal('MATCHED', 'BOOKED')).toBe('A MATCHED lead cannot become BOOKED; it can become OFFERED, LOST.')
    expect(moveRefusal('BOOKED', 'LOST')).toMatch(/closed/)
    expect(moveRefusal('MATCHED', 'OFFERED')).toBeUndefined()
  })
})
