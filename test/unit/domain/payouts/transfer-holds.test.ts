/** What a transfer holds back (domain/payouts/transfer-holds.ts, issue 78): the net a settlement made now would take. */
import { describe, expect, it } from 'vitest'
import { takenBy } from '../../../../domain/payouts/transfer-holds.ts'

describe('takenBy', () => {
  it('takes refunds, chargebacks and reserves net of the fee they return, and gives back reversals and releases', () => {
    expect(
      takenBy([
        { kind: 'CHARGEBACK', amount: 10_000, feeAmount: 1_000 },
        { kind: 'RESERVE', amount: 4_000, feeAmount: 400 },
        { kind: 'REFUND', amount: 1_000, feeAmount: 100 },
      ])
    ).toBe(9_000 + 3_600 + 900)
    expect(
      takenBy([
        { kind: 'RESERVE', amount: 4_000, feeAmount: 400 },
        { kind: 'RESERVE_RELEASE', amount: 10_000, feeAmount: 1_000 },
        { kind: 'CHARGEBACK_REVERSAL', amount: 2_000, feeAmount: 200 },
        { kind: 'REFUND_REVERSAL', amount: 1_000, feeAmount: 100 },
      ])
    ).toBe(3_600 - 9_000 - 1_800 - 900)
    expect(takenBy([])).toBe(0)
  })
})
