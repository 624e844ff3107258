/**
 * Refunds that name their order lines (issue 58, item 2): the shares settlements take from each line
 * (domain/settlements/settlement-math.ts) and the checks of a refund's lines (domain/payments/refund-lines.ts).
 */
import { describe, expect, it } from 'vitest'
import { lineRefundable, refundLineErrors } from '../../../../domain/payments/refund-lines.ts'
import { moneyGivenBack } from '../../../../domain/settlements/chargebacks.ts'
import {
  feeOf,
  feeReturned,
  refundedByLine,
  refundMovements,
  refundShares,
  shareAmong,
  type FeeRule,
  type OrderRefund,
  type WeightedLine,
} from '../../../../domain/settlements/settlement-math.ts'
import { settlementTotals } from '../../../../domain/settlements/settlement-totals.ts'

/** A deterministic pseudo-random sequence (xorshift), so failures reproduce. */
function random(seed: number) {
  let s = seed
  return (max: number) => {
    s ^= s << 13
    s ^= s >>> 17
    s ^= s << 5
    return Math.abs(s) % max
  }
}

const tenPercent: FeeRule = { percentBps: 1000, fixedAmount: 0, fixedCurrency: null }
// The order: a 100.00 session and a 100.00 product.
const order: WeightedLine[] = [
  { orderLineId: 'session', position: 0, lineTotal: 10_000 },
  { orderLineId: 'product', position: 1, lineTotal: 10_000 },
]

/** What the session's provider nets from one settlement of the session with the order's refunds. */
function sessionProviderNet(refunds: OrderRefund[]): number {
  const charge = { gross: 10_000, rule: tenPercent }
  const moves = refundMovements(order, ['session'], refunds, [], [])
  return settlementTotals(
    {
      sessions: [{ amount: charge.gross, fee: feeOf(charge.gross, tenPercent, 'USD') }],
      refunds: moves.map((m) => ({ amount: m.amount, fee: feeReturned(charge, m.before, m.after, 'USD') })),
      adjustments: [],
    },
    0
  ).netAmount
}

describe('a refund that names its lines, in a settlement', () => {
  it("refunding the product leaves the session's provider 90 of 100 at a 10% fee (the issue's example)", () => {
    const product: OrderRefund = {
      refundId: 'r1',
      amount: 10_000,
      succeededAt: 1,
      lines: [{ orderLineId: 'product', amount: 10_000 }],
    }
    expect(refundMovements(order, ['session'], [product], [], [])).toEqual([])
    expect(sessionProviderNet([product])).toBe(9_000)
    // The same refund without lines is shared by weight, as before: the session gives back half, with its fee.
    expect(sessionProviderNet([{ refundId: 'r1', amount: 10_000, succeededAt: 1 }])).toBe(4_500)
  })

  it('takes a refund of the session from the session only, returning the fee on what it takes', () => {
    const refund: OrderRefund = {
      refundId: 'r1',
      amount: 4_000,
      succeededAt: 1,
      lines: [{ orderLineId: 'session', amount: 4_000 }],
    }
    expect(refundMovements(order, ['session', 'product'], [refund], [], [])).toEqual([
      { kind: 'REFUND', refundId: 'r1', orderLineId: 'session', amount: 4_000, before: 0, after: 4_000, at: 1 },
    ])
    // 100 − 10 fee − (40 − 4 fee returned)
    expect(sessionProviderNet([refund])).toBe(5_400)
  })

  it("never charges another provider's session for a line it does not name", () => {
    const three: WeightedLine[] = [
      { orderLineId: 'mine', position: 0, lineTotal: 8_000 },
      { orderLineId: 'theirs', position: 1, lineTotal: 12_000 },
      { orderLineId: 'product', position: 2, lineTotal: 5_000 },
    ]
    const refunds: OrderRefund[] = [
      { refundId: 'r1', amount: 2_500, succeededAt: 1, lines: [{ orderLineId: 'product', amount: 2_500 }] },
      { refundId: 'r2', amount: 3_000, succeededAt: 2, lines: [{ orderLineId: 'theirs', amount: 3_000 }] },
    ]
    expect(refundMovements(three, ['mine'], refunds, [], [])).toEqual([])
    expect(refundMovements(three, ['theirs'], refunds, [], []).map((m) => [m.refundId, m.amount])).toEqual([
      ['r2', 3_000],
    ])
  })
})

describe('refundShares with lines', () => {
  it('shares a refund without lines by what the lines hold after refunds with lines; as before when none has', () => {
    const refunds: OrderRefund[] = [
      { refundId: 'r1', amount: 10_000, succeededAt: 1, lines: [{ orderLineId: 'product', amount: 10_000 }] },
      { refundId: 'r2', amount: 5_000, succeededAt: 2 },
    ]
    expect(refundShares(order, refunds).map((s) => [s.refundId, s.orderLineId, s.amount])).toEqual([
      ['r1', 'product', 10_000],
      ['r2', 'session', 5_000],
    ])
    // An order whose refunds name no lines is shared exactly as before lines existed: cumulatively by the totals.
    const lines: WeightedLine[] = [
      { orderLineId: 'a', position: 1, lineTotal: 3_333 },
      { orderLineId: 'b', position: 2, lineTotal: 3_333 },
      { orderLineId: 'c', position: 3, lineTotal: 3_334 },
    ]
    const plain = [1, 2, 3, 4, 5].map((k) => ({ refundId: `r${k}`, amount: 1_000 + k * 11, succeededAt: k }))
    const total = plain.reduce((s, r) => s + r.amount, 0)
    expect(refundedByLine(refundShares(lines, plain))).toEqual(shareAmong(total, lines))
  })

  it('never takes more than a line holds, and takes a refund with lines only from them (5,000 random orders)', () => {
    const next = random(20261127)
    for (let run = 0; run < 5_000; run++) {
      const lines = Array.from({ length: 1 + next(4) }, (_, i) => ({
        orderLineId: `l${i}`,
        position: i,
        lineTotal: 1 + next(20_000),
      }))
      const left = new Map(lines.map((l) => [l.orderLineId, l.lineTotal]))
      const refunds: OrderRefund[] = []
      for (let k = 0; k < 1 + next(6); k++) {
        const room = [...left.values()].reduce((a, b) => a + b, 0)
        if (room === 0) break
        if (next(2) === 0) {
          refunds.push({ refundId: `r${k}`, amount: 1 + next(room), succeededAt: k })
          // What the order's lines hold after it, by the rule itself.
          for (const [id, taken] of refundedByLine(refundShares(lines, refunds)))
            left.set(id, lines.find((l) => l.orderLineId === id)!.lineTotal - taken)
        } else {
          const named = lines.filter((l) => left.get(l.orderLineId)! > 0 && next(2) === 0)
          if (named.length === 0) continue
          const parts = named.map((l) => ({ orderLineId: l.orderLineId, amount: 1 + next(left.get(l.orderLineId)!) }))
          refunds.push({
            refundId: `r${k}`,
            amount: parts.reduce((s, p) => s + p.amount, 0),
            succeededAt: k,
            lines: parts,
          })
          for (const p of parts) left.set(p.orderLineId, left.get(p.orderLineId)! - p.amount)
        }
      }
      const shares = refundShares(lines, refunds)
      for (const refund of refunds) {
        const of = shares.filter((s) => s.refundId === refund.refundId)
        expect(of.reduce((sum, s) => sum + s.amount, 0)).toBe(refund.amount)
        if (refund.lines) {
          expect(of.map((s) => [s.orderLineId, s.amount])).toEqual(refund.lines.map((l) => [l.orderLineId, l.amount]))
        }
      }
      const taken = refundedByLine(shares)
      for (const line of lines) {
        expect(taken.get(line.orderLineId) ?? 0).toBeLessThanOrEqual(line.lineTotal)
        expect(line.lineTotal - (taken.get(line.orderLineId) ?? 0)).toBe(left.get(line.orderLineId))
      }
    }
  }, 60_000)
})

describe('the checks of a refund with lines', () => {
  const earlierWeighted = [{ id: 'r0', amount: 5_000, lines: [], succeededAt: new Date(1) }]
  const leftAfterWeighted = lineRefundable(order, earlierWeighted)

  it("counts earlier refunds' named amounts, and for those without lines their share by weight", () => {
    expect(lineRefundable(order, earlierWeighted)).toEqual(
      new Map([
        ['session', 7_500],
        ['product', 7_500],
      ])
    )
    const named = [
      { id: 'r0', amount: 6_000, lines: [{ orderLineId: 'product', amount: 6_000 }], succeededAt: new Date(1) },
    ]
    expect(lineRefundable(order, named)).toEqual(
      new Map([
        ['session', 10_000],
        ['product', 4_000],
      ])
    )
  })

  it('accepts lines within what each holds adding up to the amount, and names the field of each violation', () => {
    const lines = [{ orderLineId: 'product', amount: 7_500 }]
    expect(refundLineErrors(lines, 7_500, leftAfterWeighted, 'USD')).toEqual([])
    expect(refundLineErrors(lines, undefined, leftAfterWeighted, 'USD')).toEqual([])
    const errors = refundLineErrors(
      [
        { orderLineId: 'product', amount: 7_501 },
        { orderLineId: 'oli_elsewhere', amount: 1 },
        { orderLineId: 'session', amount: 1 },
        { orderLineId: 'session', amount: 1 },
      ],
      undefined,
      leftAfterWeighted,
      'USD'
    )
    expect(errors.map((e) => [e.path, e.code])).toEqual([
      ['lines.0.amount', 'amount_exceeds_line_refundable'],
      ['lines.1.orderLineId', 'not_found'],
      ['lines.3.orderLineId', 'duplicate'],
    ])
    expect(errors[0]!.message).toContain('75.00 USD')
    expect(
      refundLineErrors([{ orderLineId: 'session', amount: 1_000 }], 2_000, lineRefundable(order, []), 'USD').map(
        (e) => [e.path, e.code]
      )
    ).toEqual([['lines', 'amount_mismatch']])
  })
})

describe("a line's refundable amount after a lost dispute (issue 78)", () => {
  const lostHalf = [{ id: 'dp1', paymentId: 'pay1', amount: 10_000, lostAt: new Date(2) }]

  it('is its total less its refunds and its share by weight of lost disputes, in the order the money went back', () => {
    // The order: 200 over A = B = 100, a dispute of 100 lost: each line holds 50.
    expect(lineRefundable(order, [], lostHalf)).toEqual(
      new Map([
        ['session', 5_000],
        ['product', 5_000],
      ])
    )
    // A refund of the product succeeded before the dispute was lost: the dispute takes what the session holds.
    const productFirst = [
      { id: 'r0', amount: 10_000, lines: [{ orderLineId: 'product', amount: 10_000 }], succeededAt: new Date(1) },
    ]
    expect(lineRefundable(order, productFirst, lostHalf)).toEqual(
      new Map([
        ['session', 0],
        ['product', 0],
      ])
    )
    // A refund still pending goes back after the chargeback, whatever its creation.
    const pending = [{ id: 'r1', amount: 2_000, lines: [], succeededAt: null }]
    expect(lineRefundable(order, pending, lostHalf)).toEqual(
      new Map([
        ['session', 4_000],
        ['product', 4_000],
      ])
    )
    // A dispute whose funds were reinstated is not passed in; one lost beyond what the lines hold takes what is left.
    const twice = [...lostHalf, { id: 'dp2', paymentId: 'pay2', amount: 15_000, lostAt: new Date(3) }]
    expect([...lineRefundable(order, [], twice).values()]).toEqual([0, 0])
  })

  it('refuses a refund naming a line for more than the dispute left it (the issue: A for 100 after 100 lost)', () => {
    const left = lineRefundable(order, [], lostHalf)
    const errors = refundLineErrors([{ orderLineId: 'session', amount: 10_000 }], undefined, left, 'USD')
    expect(errors.map((e) => [e.path, e.code])).toEqual([['lines.0.amount', 'amount_exceeds_line_refundable']])
    expect(errors[0]!.message).toContain('50.00 USD')
    const both = [
      { orderLineId: 'session', amount: 5_000 },
      { orderLineId: 'product', amount: 5_000 },
    ]
    expect(refundLineErrors(both, 10_000, left, 'USD')).toEqual([])
  })

  it('in a settlement, gives what a named line no longer held to the other lines (a dispute lost before it succeeded)', () => {
    // Checked while A held 100; the dispute was lost before the refund succeeded: A gives 50, B the other 50.
    const late: OrderRefund = {
      refundId: 'r1',
      amount: 10_000,
      succeededAt: 3,
      lines: [{ orderLineId: 'session', amount: 10_000 }],
    }
    const chargeback = { disputeId: 'dp1', paymentId: 'pay1', amount: 10_000, lostAt: 2 }
    const shares = refundShares(order, moneyGivenBack(order, [late], [chargeback]))
    expect(shares.map((x) => [x.refundId, x.orderLineId, x.amount])).toEqual([
      ['dp1', 'session', 5_000],
      ['dp1', 'product', 5_000],
      ['r1', 'session', 5_000],
      ['r1', 'product', 5_000],
    ])
  })
})
