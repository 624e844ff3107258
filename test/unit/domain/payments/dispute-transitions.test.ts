import { describe, expect, it } from 'vitest'
import { chargedBackDelta, disputeChange, disputeStep } from '../../../../domain/payments/dispute-transitions.ts'

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

describe("one dispute's row, changed by its events (issue 58, item 3)", () => {
  const now = new Date('2026-11-27T09:00:00Z')
  const later = new Date('2026-11-28T09:00:00Z')
  const held = (over: Partial<Parameters<typeof disputeChange>[0] & object> = {}) => ({
    status: 'OPEN' as const,
    amount: 5_000,
    amountLost: 0,
    fee: 0,
    lostAt: null,
    reinstatedAt: null,
    fundsWithdrawnAt: now as Date | null,
    settledCurrency: null as string | null,
    settledAmount: null as number | null,
    settledFee: null as number | null,
    ...over,
  })

  it("starts a dispute the platform has no row of from its first word, whatever another dispute's state", () => {
    // The charge's inquiry is CLOSED (final); a new dispute of it is another row and starts at nothing.
    expect(disputeStep(null, 'LOST')).toBe('apply')
    expect(disputeChange(null, { status: 'LOST', amount: 3_000, fee: 1_500, fundsWithdrawn: true }, now)).toEqual({
      status: 'LOST',
      amount: 3_000,
      amountLost: 3_000,
      fee: 1_500,
      lostAt: now,
      fundsWithdrawnAt: now,
    })
    expect(chargedBackDelta(null, 'LOST', 0, 3_000)).toBe(3_000)
    expect(disputeChange(null, { status: 'OPEN', amount: 3_000, fee: 0, fundsWithdrawn: true }, now)).toEqual({
      status: 'OPEN',
      amount: 3_000,
      amountLost: 0,
      fee: 0,
      fundsWithdrawnAt: now,
    })
  })

  it('records the loss and the reinstatement when they happen, and changes nothing older or the same', () => {
    const lost = held({ status: 'LOST', amountLost: 5_000, lostAt: now })
    expect(disputeChange(held(), { status: 'LOST', amount: 5_000, fee: 0, fundsWithdrawn: true }, now)).toMatchObject({
      lostAt: now,
    })
    expect(disputeChange(lost, { status: 'LOST', amount: 5_000, fee: 0, fundsWithdrawn: true }, later)).toBeNull()
    expect(disputeChange(lost, { status: 'OPEN', amount: 5_000, fee: 0, fundsWithdrawn: true }, later)).toBeNull()
    // A new fee of the same state is a change; the instant it was lost stays.
    expect(disputeChange(lost, { status: 'LOST', amount: 5_000, fee: 1_500, fundsWithdrawn: true }, later)).toEqual({
      status: 'LOST',
      amount: 5_000,
      amountLost: 5_000,
      fee: 1_500,
    })
    expect(disputeChange(lost, { status: 'WON', amount: 5_000, fee: 0, fundsWithdrawn: true }, later)).toEqual({
      status: 'WON',
      amount: 5_000,
      amountLost: 0,
      fee: 0,
      reinstatedAt: later,
    })
    expect(
      disputeChange(held({ status: 'CLOSED' }), { status: 'LOST', amount: 5_000, fee: 0, fundsWithdrawn: true }, later)
    ).toBeNull()
  })

  // Issue 58, item 4: an inquiry withdraws nothing, so it holds no reserve; its escalation is the withdrawal.
  it('records when the funds were withdrawn: once, by the first event that says so, never cleared', () => {
    const inquiry = { status: 'OPEN' as const, amount: 5_000, fee: 0, fundsWithdrawn: false }
    expect(disputeChange(null, inquiry, now)).toEqual({ status: 'OPEN', amount: 5_000, amountLost: 0, fee: 0 })
    const asked = held({ fundsWithdrawnAt: null })
    expect(disputeChange(asked, inquiry, later)).toBeNull()
    expect(disputeChange(asked, { ...inquiry, fundsWithdrawn: true }, later)).toMatchObject({ fundsWithdrawnAt: later })
    expect(disputeChange(held(), { ...inquiry, fundsWithdrawn: true }, later)).toBeNull()
    expect(disputeChange(held(), { ...inquiry, status: 'WON' }, later)).not.toHaveProperty('fundsWithdrawnAt')
  })

  // Issue 58, FX: what the balance transactions moved in the balance's currency is the books' amount there.
  it('records what the balance moved in another currency when the event read it, and keeps it when it did not', () => {
    const withdrawn = { status: 'OPEN' as const, amount: 5_000, fee: 1_500, fundsWithdrawn: true }
    const settled = { currency: 'EUR', amount: -4_600, fee: 1_380 }
    const read = held({ fee: 1_500, settledCurrency: 'EUR', settledAmount: -4_600, settledFee: 1_380 })
    expect(disputeChange(held({ fee: 1_500 }), { ...withdrawn, settled }, later)).toEqual({
      status: 'OPEN',
      amount: 5_000,
      amountLost: 0,
      fee: 1_500,
      settledCurrency: 'EUR',
      settledAmount: -4_600,
      settledFee: 1_380,
    })
    expect(disputeChange(read, { ...withdrawn, settled }, later)).toBeNull()
    expect(disputeChange(read, withdrawn, later)).toBeNull()
    // Reinstated at another rate: the balance's net movement changes.
    expect(disputeChange(read, { ...withdrawn, settled: { ...settled, amount: 40 } }, later)).toMatchObject({
      settledAmount: 40,
    })
  })
})
