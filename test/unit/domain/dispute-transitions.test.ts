import { describe, expect, it } from 'vitest'
import { chargedBackDelta, disputeStep } from '../../../domain/payments/dispute-transitions.ts'

const STATES = ['OPEN', 'WON', 'LOST', 'CLOSED'] as const

describe('the dispute state machine (issue 46, items 1 and 7)', () => {
  it('applies anything to a new or open dispute', () => {
    for (const reported of STATES) {
      expect(disputeStep(null, reported)).toBe('apply')
      expect(disputeStep('OPEN', reported)).toBe('apply')
    }
  })

  it('never reopens a decided dispute nor moves a final one: such an event is older', () => {
    for (const decided of ['WON', 'LOST', 'CLOSED'] as const) expect(disputeStep(decided, 'OPEN')).toBe('stale')
    for (const final of ['WON', 'CLOSED'] as const)
      for (const reported of STATES.filter((s) => s !== final)) expect(disputeStep(final, reported)).toBe('stale')
  })

  it('asks the processor before undoing a loss, and takes the same state again (new details)', () => {
    expect(disputeStep('LOST', 'WON')).toBe('ask')
    expect(disputeStep('LOST', 'CLOSED')).toBe('ask')
    for (const state of STATES) expect(disputeStep(state, state)).toBe('apply')
  })

  it('counts only LOST as charged back', () => {
    expect(chargedBackDelta(null, 'OPEN', 0, 5_000)).toBe(0)
    expect(chargedBackDelta('OPEN', 'LOST', 5_000, 5_000)).toBe(5_000)
    expect(chargedBackDelta('LOST', 'LOST', 5_000, 4_000)).toBe(-1_000)
    expect(chargedBackDelta('LOST', 'WON', 5_000, 5_000)).toBe(-5_000)
    expect(chargedBackDelta('OPEN', 'CLOSED', 5_000, 5_000)).toBe(0)
  })
})
