/**
 * Payouts a processor can make (issue 58, item 1): a settlement's payout rounded down to the processor's transferable
 * unit, the remainder left on the provider's payable balance and carried into the next settlement, the books still
 * balanced; and a retried transfer's carried part (domain/settlements/settlement-math.ts, journal.ts,
 * domain/payouts/payout-attempts.ts).
 */
import { describe, expect, it } from 'vitest'
import { dueOf, owedOf } from '../../../../domain/payouts/payout-attempts.ts'
import {
  inTransitAccount,
  journalLines,
  payableAccount,
  transferLines,
} from '../../../../domain/settlements/journal.ts'
import { feeOf } from '../../../../domain/settlements/settlement-math.ts'
import { settlementTotals, transferableOf } from '../../../../domain/settlements/settlement-totals.ts'

const HUF_UNIT = 100 // Stripe transfers HUF in whole forints (adapters/stripe/stripe-currencies.ts)
const rule = { percentBps: 750, fixedAmount: 0, fixedCurrency: null }

/** One settlement of a session of `gross` at 7.5%, starting from `carriedForward`. */
const settle = (gross: number, carriedForward: number, unit: number) =>
  settlementTotals(
    { sessions: [{ amount: gross, fee: feeOf(gross, rule, 'HUF') }], refunds: [], adjustments: [] },
    carriedForward,
    unit
  )

describe('transferableOf', () => {
  it('rounds down to a multiple of the unit, never up', () => {
    expect(transferableOf(114_145, 100)).toBe(114_100)
    expect(transferableOf(114_199, 100)).toBe(114_100)
    expect(transferableOf(114_100, 100)).toBe(114_100)
    expect(transferableOf(99, 100)).toBe(0)
    expect(transferableOf(1_005, 10)).toBe(1_000)
    expect(transferableOf(12_345, 1)).toBe(12_345)
    expect(() => transferableOf(100, 0)).toThrow(RangeError)
  })
})

describe('a payout rounded to what the processor transfers', () => {
  it('pays 1,141 of a 1,234.00 HUF session at 7.5% and carries 0.45 HUF into the next settlement', () => {
    const first = settle(123_400, 0, HUF_UNIT)
    expect(first).toMatchObject({
      feeAmount: 9_255,
      netAmount: 114_145,
      carriedForward: 0,
      payoutAmount: 114_100,
      payoutRemainder: 45,
      balanceAfter: 45,
    })
    // The next settlement starts from the payable balance the first left: the remainder is paid with what is earned.
    const second = settle(6_000, first.balanceAfter, HUF_UNIT)
    expect(second).toMatchObject({ netAmount: 5_550, carriedForward: 45, payoutAmount: 5_500, payoutRemainder: 95 })
    const third = settle(1_000, second.balanceAfter, HUF_UNIT)
    expect(third).toMatchObject({ netAmount: 925, carriedForward: 95, payoutAmount: 1_000, payoutRemainder: 20 })
  })

  it('loses nothing: over many settlements, payouts plus the last balance are everything earned', () => {
    let balance = 0
    let paidOut = 0
    let earned = 0
    for (let k = 1; k <= 500; k++) {
      const gross = (k * 7_919) % 250_000
      const totals = settle(gross, balance, HUF_UNIT)
      expect(totals.payoutAmount % HUF_UNIT).toBe(0)
      expect(totals.payoutRemainder).toBeGreaterThanOrEqual(0)
      expect(totals.payoutRemainder).toBeLessThan(HUF_UNIT)
      expect(totals.balanceAfter).toBe(totals.carriedForward + totals.netAmount - totals.payoutAmount)
      earned += totals.netAmount
      paidOut += totals.payoutAmount
      balance = totals.balanceAfter
    }
    expect(paidOut + balance).toBe(earned)
    expect(balance).toBeLessThan(HUF_UNIT)
  })

  it('changes nothing without a unit (no processor: the centre pays any amount) or when owed back', () => {
    expect(settle(123_400, 0, 1)).toMatchObject({ payoutAmount: 114_145, payoutRemainder: 0, balanceAfter: 0 })
    expect(settle(123_400, -200_000, HUF_UNIT)).toMatchObject({ payoutAmount: 0, payoutRemainder: 0 })
  })

  it("posts a payout and its remainder in balance: the remainder stays on the provider's payable account", () => {
    const totals = settle(123_400, 0, HUF_UNIT)
    const lines = [
      ...journalLines({ kind: 'SESSION', providerId: 'prv_1', amount: 123_400, fee: totals.feeAmount }),
      ...journalLines({ kind: 'PAYOUT', providerId: 'prv_1', amount: totals.payoutAmount, fee: 0, inTransit: true }),
    ]
    const sum = (key: 'debit' | 'credit') => lines.reduce((s, l) => s + l[key], 0)
    expect(sum('debit')).toBe(sum('credit'))
    const payable = lines.filter((l) => l.account === payableAccount('prv_1'))
    expect(payable.reduce((s, l) => s + l.credit - l.debit, 0)).toBe(totals.payoutRemainder)
  })
})

describe('a retried transfer carrying what the processor cannot transfer', () => {
  it('moves the carried part from in transit back to the payable balance, balanced', () => {
    expect(transferLines('CARRIED', 'prv_1', 45)).toEqual([
      { account: inTransitAccount('prv_1'), debit: 45, credit: 0 },
      { account: payableAccount('prv_1'), debit: 0, credit: 45 },
    ])
  })

  it('owes on a transfer its amount less what was carried', () => {
    const transfer = { amount: 114_145, amountCarried: 45 }
    expect(dueOf(transfer)).toBe(114_100)
    expect(owedOf(dueOf(transfer), [{ status: 'PAID', amount: 114_100, amountReversed: 0 }])).toBe(0)
  })
})
