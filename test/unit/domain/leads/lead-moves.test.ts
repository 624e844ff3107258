/** The lead lifecycle's refusals as the domain's 409 (domain/leads/lead-moves.ts). */
import { describe, expect, it } from 'vitest'
import { AppError } from '../../../../domain/errors.ts'
import { assertMove } from '../../../../domain/leads/lead-moves.ts'

describe('assertMove', () => {
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
