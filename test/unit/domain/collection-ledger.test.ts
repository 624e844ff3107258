/**
 * The books of money moving (domain/payments/collection-ledger.ts, domain/settlements/journal.ts): what a payment, its
 * refunds and its disputes have moved by their states, and the lines that bring the books to it.
 */
import { describe, expect, it } from 'vitest'
import { moneyMoved, type PaymentMoney } from '../../../domain/payments/collection-ledger.ts'
import {
  CENTRE_FUNDS,
  CLEARING,
  collectionLines,
  holdingAccount,
  PAYER_FUNDS,
  PROCESSOR_FEES,
} from '../../../domain/settlements/journal.ts'

const withdrawn = new Date('2026-11-28T10:00:00Z')

const payment = (): PaymentMoney => ({
  id: 'pay_1',
  status: 'SUCCEEDED',
  amount: 10_000,
  processorFee: 320,
  refunds: [
    { id: 'ref_1', status: 'SUCCEEDED', amount: 2_000 },
    { id: 'ref_2', status: 'PENDING', amount: 1_000 },
    { id: 'ref_3', status: 'FAILED', amount: 500 },
  ],
  disputes: [
    // An inquiry: nothing withdrawn, no fee.
    { id: 'pdp_1', processorReference: 'dp_1', status: 'CLOSED', amount: 8_000, fee: 0, fundsWithdrawnAt: null },
    { id: 'pdp_2', processorReference: 'dp_2', status: 'OPEN', amount: 8_000, fee: 1_500, fundsWithdrawnAt: withdrawn },
  ],
})

const amounts = (p: PaymentMoney) => moneyMoved(p).map(({ subject, collected, fee }) => [subject, collected, fee])

describe('moneyMoved', () => {
  it('counts a succeeded payment in with its processing fee, succeeded refunds and withdrawn disputes out, and the dispute fee', () => {
    expect(amounts(payment())).toEqual([
      ['pay_1', 10_000, 320],
      ['ref_1', -2_000, 0],
      ['ref_2', 0, 0],
      ['ref_3', 0, 0],
      ['pdp_1', 0, 0],
      ['pdp_2', -8_000, 1_500],
    ])
  })

  it('gives back the funds of a dispute won, keeping its fee, and keeps them out of one lost', () => {
    const won = payment()
    won.disputes[1]!.status = 'WON'
    expect(amounts(won).at(-1)).toEqual(['pdp_2', 0, 1_500])
    const lost = payment()
    lost.disputes[1]!.status = 'LOST'
    expect(amounts(lost).at(-1)).toEqual(['pdp_2', -8_000, 1_500])
  })

  it('moves nothing for a payment that has not succeeded', () => {
    expect(amounts({ ...payment(), status: 'PENDING', refunds: [], disputes: [] })).toEqual([['pay_1', 0, 0]])
    expect(amounts({ ...payment(), status: 'FAILED', refunds: [], disputes: [] })).toEqual([['pay_1', 0, 0]])
  })
})

describe('collectionLines', () => {
  it("holds a processor's payment in clearing and a recorded one in the centre's funds, owed to the payers", () => {
    expect(holdingAccount('stripe')).toBe(CLEARING)
    expect(holdingAccount('recorded')).toBe(CENTRE_FUNDS)
    expect(collectionLines(CLEARING, 10_000, 0)).toEqual([
      { account: CLEARING, debit: 10_000, credit: 0 },
      { account: PAYER_FUNDS, debit: 0, credit: 10_000 },
    ])
  })

  it('takes a withdrawal and its fee out of clearing, and balances whatever the signs', () => {
    expect(collectionLines(CLEARING, -8_000, 1_500)).toEqual([
      { account: CLEARING, debit: 0, credit: 9_500 },
      { account: PAYER_FUNDS, debit: 8_000, credit: 0 },
      { account: PROCESSOR_FEES, debit: 1_500, credit: 0 },
    ])
    for (const [collected, fee] of [
      [3, -7],
      [-5, 0],
      [0, 2],
    ] as const) {
      const lines = collectionLines(CLEARING, collected, fee)
      expect(lines.reduce((sum, l) => sum + l.debit - l.credit, 0)).toBe(0)
    }
    expect(collectionLines(CLEARING, 0, 0)).toEqual([])
  })
})
