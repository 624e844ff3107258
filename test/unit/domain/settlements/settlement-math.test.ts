import { describe, expect, it } from 'vitest'
import {
  CENTRE_FUNDS,
  CLEARING,
  FEE_REVENUE,
  journalLines,
  PAYER_FUNDS,
  payableAccount,
  type PostingSource,
} from '../../../../domain/settlements/journal.ts'
import {
  NO_FEE,
  feeOf,
  feeReturned,
  refundMovements,
  refundShares,
  shareAmong,
  type FailedRefund,
  type OrderRefund,
  type SettledRefundItem,
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

describe('feeOf', () => {
  const tenPercent = { percentBps: 1000, fixedAmount: 0, fixedCurrency: null }
  it('rounds the share half up to the minor unit', () => {
    expect(feeOf(12_345, tenPercent, 'USD')).toBe(1235) // 1234.5
    expect(feeOf(12_344, tenPercent, 'USD')).toBe(1234) // 1234.4
    expect(feeOf(5, { percentBps: 1000, fixedAmount: 0, fixedCurrency: null }, 'USD')).toBe(1) // 0.5
    expect(feeOf(4, tenPercent, 'USD')).toBe(0)
  })

  it('adds the flat fee only in its currency, never exceeds the amount, and charges nothing on nothing', () => {
    const rule = { percentBps: 2000, fixedAmount: 100, fixedCurrency: 'USD' }
    expect(feeOf(15_000, rule, 'USD')).toBe(3_100)
    expect(feeOf(15_000, rule, 'EUR')).toBe(3_000)
    expect(feeOf(50, rule, 'USD')).toBe(50)
    expect(feeOf(0, rule, 'USD')).toBe(0)
    expect(feeOf(-10, rule, 'USD')).toBe(0)
    expect(feeOf(1_000, NO_FEE, 'USD')).toBe(0)
  })

  it('is exact at the largest stored amount', () => {
    expect(feeOf(2_147_483_647, { percentBps: 10_000, fixedAmount: 0, fixedCurrency: null }, 'USD')).toBe(2_147_483_647)
    expect(feeOf(2_147_483_647, { percentBps: 1, fixedAmount: 0, fixedCurrency: null }, 'USD')).toBe(214_748)
    // 2^53 - 1, the largest amount taken (issue 46): amount × basis points passes 2^53, so it is computed exactly.
    const max = Number.MAX_SAFE_INTEGER
    expect(feeOf(max, { percentBps: 10_000, fixedAmount: 0, fixedCurrency: null }, 'USD')).toBe(max)
    expect(feeOf(max, { percentBps: 1_500, fixedAmount: 0, fixedCurrency: null }, 'USD')).toBe(1_351_079_888_211_149)
    expect(feeOf(3_000_000_000_001, { percentBps: 2_500, fixedAmount: 0, fixedCurrency: null }, 'USD')).toBe(
      750_000_000_000
    )
  })
})

describe('shareAmong', () => {
  const lines = (...totals: number[]): WeightedLine[] =>
    totals.map((lineTotal, i) => ({ orderLineId: `l${i}`, position: i, lineTotal }))

  it('shares in proportion to line totals, exactly', () => {
    expect([...shareAmong(6_000, lines(12_000, 15_000, 3_000)).values()]).toEqual([2_400, 3_000, 600])
  })

  it('gives the units left by rounding to the largest remainders, ties to the earlier line', () => {
    expect([...shareAmong(100, lines(1, 1, 1)).values()]).toEqual([34, 33, 33])
    expect([...shareAmong(2, lines(1, 1, 1)).values()]).toEqual([1, 1, 0])
    expect([...shareAmong(10, lines(1, 2)).values()]).toEqual([3, 7]) // 3.33 and 6.67
  })

  it('always adds up to the amount and never gives a line more than its total (10,000 random orders)', () => {
    const next = random(20261121)
    for (let run = 0; run < 10_000; run++) {
      const order = lines(...Array.from({ length: 1 + next(6) }, () => next(50_000)))
      const total = order.reduce((s, l) => s + l.lineTotal, 0)
      if (total === 0) continue
      const amount = next(total + 1)
      const shares = shareAmong(amount, order)
      expect([...shares.values()].reduce((a, b) => a + b, 0)).toBe(amount)
      for (const l of order) expect(shares.get(l.orderLineId)!).toBeLessThanOrEqual(l.lineTotal)
    }
    // A property test over many cases, not a timing: under 2 s alone, past vitest's default 5 s at load 20-30.
  }, 60_000)
})

describe('refundShares', () => {
  const order: WeightedLine[] = [
    { orderLineId: 'a', position: 1, lineTotal: 3_333 },
    { orderLineId: 'b', position: 2, lineTotal: 3_333 },
    { orderLineId: 'c', position: 3, lineTotal: 3_334 },
  ]

  it('shares each refund so that, line by line, the refunds add up to its share of the total refunded', () => {
    const refunds = [1, 2, 3, 4, 5, 6, 7].map((k) => ({ refundId: `r${k}`, amount: 1_000 + k * 11, succeededAt: k }))
    const shares = refundShares(order, refunds)
    const refunded = refunds.reduce((s, r) => s + r.amount, 0)
    const final = shareAmong(refunded, order)
    for (const line of order) {
      const taken = shares.filter((s) => s.orderLineId === line.orderLineId).reduce((sum, s) => sum + s.amount, 0)
      expect(taken).toBe(final.get(line.orderLineId))
    }
    for (const refund of refunds) {
      expect(shares.filter((s) => s.refundId === refund.refundId).reduce((sum, s) => sum + s.amount, 0)).toBe(
        refund.amount
      )
    }
  })

  it('returns the whole fee when the whole line is refunded, however many refunds it took', () => {
    const charge = { gross: 10_000, rule: { percentBps: 1500, fixedAmount: 100, fixedCurrency: 'USD' } }
    const single: WeightedLine[] = [{ orderLineId: 'x', position: 1, lineTotal: 10_000 }]
    const shares = refundShares(
      single,
      [3_001, 2_999, 4_000].map((amount, k) => ({ refundId: `r${k}`, amount, succeededAt: k }))
    )
    const returned = shares.reduce((sum, s) => sum + feeReturned(charge, s.before, s.after, 'USD'), 0)
    expect(returned).toBe(feeOf(10_000, charge.rule, 'USD'))
    expect(shares.map((s) => s.after)).toEqual([3_001, 6_000, 10_000])
  })
})

describe('journalLines', () => {
  const kinds: PostingSource[] = [
    { kind: 'SESSION', providerId: 'prv_1', amount: 12_000, fee: 1_200 },
    { kind: 'REFUND', providerId: 'prv_1', amount: 2_000, fee: 200 },
    { kind: 'REFUND', providerId: 'prv_1', amount: -1, fee: 0 },
    { kind: 'REFUND_REVERSAL', providerId: 'prv_1', amount: 2_000, fee: 200 },
    { kind: 'ADJUSTMENT', providerId: 'prv_1', amount: -2_500, fee: 0 },
    { kind: 'PAYOUT', providerId: 'prv_1', amount: 8_300, fee: 0 },
    { kind: 'SESSION', providerId: 'prv_1', amount: 500, fee: 0 },
  ]

  it('balances every item, with positive debits or credits only', () => {
    for (const item of kinds) {
      const lines = journalLines(item)
      expect(lines.reduce((s, l) => s + l.debit, 0)).toBe(lines.reduce((s, l) => s + l.credit, 0))
      for (const l of lines) expect(l.debit > 0 !== l.credit > 0).toBe(true)
    }
  })

  it("posts a session from the payers' funds to the provider and the fee revenue, and a payout from the centre's", () => {
    expect(journalLines(kinds[0]!)).toEqual([
      { account: PAYER_FUNDS, debit: 12_000, credit: 0 },
      { account: payableAccount('prv_1'), debit: 0, credit: 10_800 },
      { account: FEE_REVENUE, debit: 0, credit: 1_200 },
    ])
    expect(journalLines(kinds[6]!)).toHaveLength(2) // no zero fee line
    // Without a payout processor the centre pays from its own funds; the processor's money stays where it is.
    expect(journalLines(kinds[5]!)).toEqual([
      { account: payableAccount('prv_1'), debit: 8_300, credit: 0 },
      { account: CENTRE_FUNDS, debit: 0, credit: 8_300 },
    ])
    expect(kinds.flatMap(journalLines).some((line) => line.account === CLEARING)).toBe(false)
  })

  it('posts a refund given back as the exact opposite of the refund', () => {
    const byAccount = (a: { account: string }, b: { account: string }) => a.account.localeCompare(b.account)
    const opposite = journalLines(kinds[1]!).map((l) => ({ account: l.account, debit: l.credit, credit: l.debit }))
    expect(journalLines(kinds[3]!).sort(byAccount)).toEqual(opposite.sort(byAccount))
  })

  it('posts a chargeback as a refund and its reinstatement as a refund given back (issue 46, item 1)', () => {
    const as = (kind: PostingSource['kind'], item: PostingSource) => journalLines({ ...item, kind })
    expect(as('CHARGEBACK', kinds[1]!)).toEqual(journalLines(kinds[1]!))
    expect(as('CHARGEBACK_REVERSAL', kinds[3]!)).toEqual(journalLines(kinds[3]!))
  })
})

describe('refundMovements', () => {
  const single: WeightedLine[] = [{ orderLineId: 'x', position: 1, lineTotal: 10_000 }]
  const refund = (refundId: string, amount: number, succeededAt = 1): OrderRefund => ({ refundId, amount, succeededAt })
  const item = (kind: SettledRefundItem['kind'], refundId: string, amount: number, orderLineId = 'x') => ({
    kind,
    refundId,
    orderLineId,
    amount,
  })

  it('takes a refund that counts once, and nothing for one already taken', () => {
    expect(refundMovements(single, ['x'], [refund('r1', 2_000)], [], [])).toEqual([
      { kind: 'REFUND', refundId: 'r1', orderLineId: 'x', amount: 2_000, before: 0, after: 2_000, at: 1 },
    ])
    expect(refundMovements(single, ['x'], [refund('r1', 2_000)], [], [item('REFUND', 'r1', 2_000)])).toEqual([])
  })

  it('gives back what a failed refund took, once, and leaves alone one that failed before it was taken', () => {
    const failed: FailedRefund[] = [
      { refundId: 'r1', failedAt: 5 },
      { refundId: 'r9', failedAt: 6 },
    ]
    const settled = [item('REFUND', 'r1', 2_000), item('REFUND', 'r2', 1_000)]
    expect(refundMovements(single, ['x'], [refund('r2', 1_000, 2)], failed, settled)).toEqual([
      { kind: 'REFUND_REVERSAL', refundId: 'r1', orderLineId: 'x', amount: 2_000, before: 3_000, after: 1_000, at: 5 },
    ])
    const reversed = [...settled, item('REFUND_REVERSAL', 'r1', 2_000)]
    expect(refundMovements(single, ['x'], [refund('r2', 1_000, 2)], failed, reversed)).toEqual([])
  })

  it('moves only the lines asked for', () => {
    const order: WeightedLine[] = [
      { orderLineId: 'a', position: 1, lineTotal: 6_000 },
      { orderLineId: 'b', position: 2, lineTotal: 4_000 },
    ]
    expect(refundMovements(order, ['b'], [refund('r1', 1_000)], [], []).map((m) => [m.orderLineId, m.amount])).toEqual([
      ['b', 400],
    ])
  })

  it('keeps every line at its share of the refunds that count, through random successes and failures', () => {
    const next = random(20261125)
    const rule = { percentBps: 1500, fixedAmount: 100, fixedCurrency: 'USD' }
    for (let run = 0; run < 2_000; run++) {
      const lines = Array.from({ length: 1 + next(4) }, (_, i) => ({
        orderLineId: `l${i}`,
        position: i,
        lineTotal: 1 + next(20_000),
      }))
      const orderTotal = lines.reduce((sum, l) => sum + l.lineTotal, 0)
      const refunds: Array<{ id: string; amount: number; succeededAt?: number; failedAt?: number }> = []
      const settled: SettledRefundItem[] = []
      const feeBack = new Map<string, number>()
      for (let clock = 1; clock < 12; clock++) {
        // Something happens: a refund asked for (within what the order has left), succeeding, or failing.
        const counting = refunds.filter((r) => r.succeededAt !== undefined && r.failedAt === undefined)
        const left = orderTotal - refunds.filter((r) => r.failedAt === undefined).reduce((s, r) => s + r.amount, 0)
        const roll = next(3)
        if (roll === 0 && left > 0) refunds.push({ id: `r${refunds.length}`, amount: 1 + next(left) })
        const pending = refunds.filter((r) => r.succeededAt === undefined && r.failedAt === undefined)
        if (roll === 1 && pending.length > 0) pending[next(pending.length)]!.succeededAt = clock
        if (roll === 2 && counting.length > 0) counting[next(counting.length)]!.failedAt = clock
        if (next(2) === 0) continue // no settlement this time
        const counts = refunds
          .filter((r) => r.succeededAt !== undefined && r.failedAt === undefined)
          .map((r) => refund(r.id, r.amount, r.succeededAt))
        const failed = refunds
          .filter((r) => r.failedAt !== undefined)
          .map((r) => ({ refundId: r.id, failedAt: r.failedAt! }))
        const ids = lines.map((l) => l.orderLineId)
        const moves = refundMovements(lines, ids, counts, failed, settled)
        for (const m of moves) {
          const line = lines.find((l) => l.orderLineId === m.orderLineId)!
          const charge = { gross: line.lineTotal, rule }
          const fee =
            m.kind === 'REFUND'
              ? feeReturned(charge, m.before, m.after, 'USD')
              : -feeReturned(charge, m.after, m.before, 'USD')
          feeBack.set(m.orderLineId, (feeBack.get(m.orderLineId) ?? 0) + fee)
          settled.push({ kind: m.kind, refundId: m.refundId, orderLineId: m.orderLineId, amount: m.amount })
        }
        // Never twice: one item per kind, refund and line.
        expect(new Set(settled.map((i) => `${i.kind}:${i.refundId}:${i.orderLineId}`)).size).toBe(settled.length)
        const target = shareAmong(
          counts.reduce((s, r) => s + r.amount, 0),
          lines
        )
        for (const line of lines) {
          const taken = settled
            .filter((i) => i.orderLineId === line.orderLineId)
            .reduce((s, i) => s + (i.kind === 'REFUND' ? i.amount : -i.amount), 0)
          expect(taken).toBeGreaterThanOrEqual(0)
          expect(taken).toBeLessThanOrEqual(line.lineTotal)
          // Exactly its share once it moved; the fee returned is always the fee on what was taken.
          if (moves.some((m) => m.orderLineId === line.orderLineId)) expect(taken).toBe(target.get(line.orderLineId))
          expect(feeBack.get(line.orderLineId) ?? 0).toBe(
            feeOf(line.lineTotal, rule, 'USD') - feeOf(line.lineTotal - taken, rule, 'USD')
          )
        }
      }
    }
  }, 60_000)
})

describe('settlementTotals', () => {
  it('nets sessions, fees, refunds and adjustments, pays out only a positive balance and carries the rest', () => {
    const items = {
      sessions: [{ amount: 20_000, fee: 2_000 }],
      refunds: [{ amount: 2_000, fee: 200 }],
      adjustments: [{ amount: -500 }],
    }
    expect(settlementTotals(items, 0)).toMatchObject({ netAmount: 15_700, payoutAmount: 15_700, balanceAfter: 0 })
    expect(settlementTotals(items, -20_000)).toMatchObject({ netAmount: 15_700, payoutAmount: 0, balanceAfter: -4_300 })
    expect(settlementTotals({ sessions: [], refunds: [], adjustments: [] }, 0)).toMatchObject({
      payoutAmount: 0,
      balanceAfter: 0,
      sessionCount: 0,
    })
  })
})
