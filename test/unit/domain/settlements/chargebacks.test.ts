import { describe, expect, it } from 'vitest'
import {
  chargebackItemsAsRefunds,
  itemOf,
  moneyGivenBack,
  reinstatedAsFailed,
} from '../../../../domain/settlements/chargebacks.ts'
import { refundMovements, type WeightedLine } from '../../../../domain/settlements/settlement-math.ts'

const LINES: WeightedLine[] = [
  { orderLineId: 'ol_a', position: 0, lineTotal: 6_000 },
  { orderLineId: 'ol_b', position: 1, lineTotal: 4_000 },
]
const ALL = LINES.map((l) => l.orderLineId)

describe('chargebacks in a settlement (issue 46, item 1)', () => {
  it('are given back in one sequence with refunds, in the order the money went back, never above the lines', () => {
    const refunds = [{ refundId: 're_2', amount: 3_000, succeededAt: 20 }]
    const chargebacks = [{ disputeId: 'dsp_1', paymentId: 'pay_1', amount: 9_000, lostAt: 10 }]
    expect(moneyGivenBack(LINES, refunds, chargebacks)).toEqual([
      { refundId: 'dsp_1', amount: 9_000, succeededAt: 10 },
      // The payer got 3,000 back by refund after winning a dispute of 9,000: only 1,000 was left on the lines.
      { refundId: 're_2', amount: 1_000, succeededAt: 20 },
    ])
  })

  it('takes a lost dispute from each line after an earlier refund, and gives back exactly what it took', () => {
    const refund = { refundId: 're_1', amount: 3_000, succeededAt: 10 }
    // Settlement 1 took the refund: 1,800 and 1,200.
    const first = refundMovements(LINES, ALL, [refund], [], [])
    expect(first.map((m) => [m.kind, m.orderLineId, m.amount])).toEqual([
      ['REFUND', 'ol_a', 1_800],
      ['REFUND', 'ol_b', 1_200],
    ])
    const settledRefunds = first.map((m) => ({
      kind: m.kind,
      refundId: m.refundId,
      orderLineId: m.orderLineId,
      amount: m.amount,
    }))

    // The rest of the payment (7,000) is lost to a dispute: taken as a chargeback, the lines then fully given back.
    const chargeback = { disputeId: 'dsp_1', paymentId: 'pay_1', amount: 7_000, lostAt: 20 }
    const second = refundMovements(LINES, ALL, moneyGivenBack(LINES, [refund], [chargeback]), [], settledRefunds)
    const chargebacks = new Map([['dsp_1', 'pay_1']])
    expect(second.map((m) => [itemOf(m, chargebacks).dedupeKey, m.amount, m.after])).toEqual([
      ['CHARGEBACK:dsp_1:ol_a', 4_200, 6_000],
      ['CHARGEBACK:dsp_1:ol_b', 2_800, 4_000],
    ])
    expect(itemOf(second[0]!, chargebacks)).toMatchObject({
      kind: 'CHARGEBACK',
      disputeId: 'dsp_1',
      paymentId: 'pay_1',
    })
    const settledChargebacks = second.map((m) => ({
      kind: 'CHARGEBACK' as const,
      disputeId: m.refundId,
      paymentId: 'pay_1',
      orderLineId: m.orderLineId,
      amount: m.amount,
    }))

    // Stripe reinstates it: given back, and the lines are where the refund alone leaves them.
    const third = refundMovements(
      LINES,
      ALL,
      moneyGivenBack(LINES, [refund], []),
      reinstatedAsFailed([{ disputeId: 'dsp_1', reinstatedAt: 30 }]),
      [...settledRefunds, ...chargebackItemsAsRefunds(settledChargebacks)]
    )
    expect(third.map((m) => [itemOf(m, chargebacks).dedupeKey, m.amount, m.after])).toEqual([
      ['CHARGEBACK_REVERSAL:dsp_1:ol_a', 4_200, 1_800],
      ['CHARGEBACK_REVERSAL:dsp_1:ol_b', 2_800, 1_200],
    ])
    expect(itemOf(third[0]!, new Map())).toMatchObject({ kind: 'REFUND_REVERSAL', refundId: 'dsp_1' })
  })

  it('takes a dispute lost before the payout with the session, from a line never above its total', () => {
    const moves = refundMovements(
      LINES,
      ALL,
      moneyGivenBack(LINES, [], [{ disputeId: 'dsp_9', paymentId: 'pay_9', amount: 12_000, lostAt: 5 }]),
      [],
      []
    )
    expect(moves.map((m) => [m.orderLineId, m.amount])).toEqual([
      ['ol_a', 6_000],
      ['ol_b', 4_000],
    ])
  })

  // Issue 58, item 3: the chargebacks of one payment were one, keyed by the payment.
  it("takes each lost dispute of one payment on its own, and gives back only the reinstated one's", () => {
    const chargebacks = new Map([
      ['dsp_1', 'pay_1'],
      ['dsp_2', 'pay_1'],
    ])
    const first = { disputeId: 'dsp_1', paymentId: 'pay_1', amount: 2_000, lostAt: 10 }
    const taken = refundMovements(LINES, ALL, moneyGivenBack(LINES, [], [first]), [], [])
    const settled = taken.map((m) => ({
      kind: 'CHARGEBACK' as const,
      disputeId: m.refundId,
      paymentId: 'pay_1',
      orderLineId: m.orderLineId,
      amount: m.amount,
    }))
    // The same payment's second dispute, lost later: taken once more, on top of the first.
    const second = { disputeId: 'dsp_2', paymentId: 'pay_1', amount: 3_000, lostAt: 20 }
    const more = refundMovements(
      LINES,
      ALL,
      moneyGivenBack(LINES, [], [first, second]),
      [],
      chargebackItemsAsRefunds(settled)
    )
    expect(more.map((m) => [itemOf(m, chargebacks).dedupeKey, m.amount])).toEqual([
      ['CHARGEBACK:dsp_2:ol_a', 1_800],
      ['CHARGEBACK:dsp_2:ol_b', 1_200],
    ])
    const settledBoth = [
      ...settled,
      ...more.map((m) => ({ ...settled[0]!, disputeId: m.refundId, orderLineId: m.orderLineId, amount: m.amount })),
    ]
    // The first one's funds come back: only its 2,000 is given back; the second stays taken.
    const back = refundMovements(
      LINES,
      ALL,
      moneyGivenBack(LINES, [], [second]),
      reinstatedAsFailed([{ disputeId: 'dsp_1', reinstatedAt: 30 }]),
      chargebackItemsAsRefunds(settledBoth)
    )
    expect(back.map((m) => [itemOf(m, chargebacks).dedupeKey, m.amount])).toEqual([
      ['CHARGEBACK_REVERSAL:dsp_1:ol_a', 1_200],
      ['CHARGEBACK_REVERSAL:dsp_1:ol_b', 800],
    ])
  })
})
