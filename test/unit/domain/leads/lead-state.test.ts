/** The lead lifecycle: every allowed move, every final status, and the 409 for the rest. */
import { describe, expect, it } from 'vitest'
import { AppError } from '../../../../domain/errors.ts'
import { LEAD_STATUSES, assertMove, canMove, isFinal, type LeadStatus } from '../../../../domain/leads/lead-state.ts'

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

  it('refuses a skipped step with invalid_state_transition naming what is allowed', () => {
    let error: unknown
    try {
      assertMove('MATCHED', 'BOOKED')
    } catch (e) {
      error = e
    }
    expect(error).toBeInstanceOf(AppError)
    expect((error as AppError).status).toBe(409)
    expect((error as AppError).code).toBe('invalid_state_transition')
    expect((error as AppError).message + JSON.stringify(error)).toContain('OFFERED, LOST')
  })

  it('refuses any move out of a closed lead', () => {
    expect(() => assertMove('BOOKED', 'LOST')).toThrow(/closed/)
    expect(() => assertMove('LOST', 'OFFERED')).toThrow(AppError)
  })
})
