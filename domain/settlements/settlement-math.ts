/**
 * @module The arithmetic of a provider settlement, pure so every cent can be unit-tested (docs/marketplace.md):
 *
 *   session     gross G = the order line's total, fee F = feeOf(G)
 *   refund      an order's refunds are shared among its lines in proportion to their totals; a line's share r of a
 *               refund takes back r from the provider and returns the fee on it, f = feeOf(G − before) − feeOf(G − after)
 *   adjustment  a signed amount the provider is owed (or owes)
 *   net         = ΣG − ΣF − (Σr − Σf) + Σadjustments
 *   payout      = max(0, carried forward + net); what stays (≤ 0) is carried into the next settlement
 *
 * All amounts are integers in minor units; the only division is the fee's percentage and the refund shares, both in
 * exact integer (BigInt where products can exceed 2^53) arithmetic with documented rounding.
 */

/** A fee rule as applied: a share in basis points, and a flat amount per session in one currency. */
export interface FeeRule {
  percentBps: number
  fixedAmount: number
  fixedCurrency: string | null
}

export const NO_FEE: FeeRule = { percentBps: 0, fixedAmount: 0, fixedCurrency: null }

/**
 * The platform's fee on `amount` of a session, rounded half up to the minor unit, never more than the amount itself
 * and nothing on nothing (a fully refunded session pays no fee).
 * @param currency - the session's currency: the flat part applies only in the rule's own currency
 */
export function feeOf(amount: number, rule: FeeRule, currency: string): number {
  if (amount <= 0) return 0
  const share = Math.floor((amount * rule.percentBps + 5_000) / 10_000)
  const fixed = rule.fixedCurrency === currency ? rule.fixedAmount : 0
  return Math.min(amount, share + fixed)
}

/** A line of an order, for sharing refunds out. */
export interface WeightedLine {
  orderLineId: string
  position: number
  lineTotal: number
}

/**
 * Shares `amount` among lines in proportion to their totals (largest remainder; ties to the earlier line), so the
 * shares add up to `amount` exactly and no line gets more than its total while `amount` ≤ Σ totals.
 * @returns each line's share, by order line id
 */
export function shareAmong(amount: number, lines: readonly WeightedLine[]): Map<string, number> {
  const total = BigInt(lines.reduce((sum, l) => sum + l.lineTotal, 0))
  const shares = new Map<string, number>()
  if (total === 0n) {
    for (const l of lines) shares.set(l.orderLineId, 0)
    return shares
  }
  const x = BigInt(amount)
  let given = 0n
  const remainders = lines.map((l) => {
    const exact = x * BigInt(l.lineTotal)
    const base = exact / total
    given += base
    shares.set(l.orderLineId, Number(base))
    return { line: l, remainder: exact % total }
  })
  remainders.sort((a, b) =>
    a.remainder === b.remainder ? a.line.position - b.line.position : a.remainder > b.remainder ? -1 : 1
  )
  for (let k = 0n; k < x - given; k++) {
    const id = remainders[Number(k)]!.line.orderLineId
    shares.set(id, shares.get(id)! + 1)
  }
  return shares
}

/** One refund of an order. */
export interface OrderRefund {
  refundId: string
  amount: number
  createdAt: number
}

/** One refund's share of one line. */
export interface RefundShare {
  refundId: string
  orderLineId: string
  /** What this refund takes back from the line (rarely −1 when rounding moves a unit between lines). */
  amount: number
  /** Everything refunded from the line before and after this refund. */
  before: number
  after: number
  createdAt: number
}

/**
 * Each refund's share of each line. Shares are cumulative: after the k-th refund a line has given back its share of
 * all refunds so far, so everything refunded from a line adds up to its share of the order's total refunds and never
 * exceeds the line, however many partial refunds there were.
 * @param refunds - the order's refunds in the order they happened (createdAt, then id)
 */
export function refundShares(lines: readonly WeightedLine[], refunds: readonly OrderRefund[]): RefundShare[] {
  const out: RefundShare[] = []
  let cumulative = 0
  let before = shareAmong(0, lines)
  for (const refund of refunds) {
    cumulative += refund.amount
    const after = shareAmong(cumulative, lines)
    for (const line of lines) {
      const b = before.get(line.orderLineId)!
      const a = after.get(line.orderLineId)!
      if (a !== b)
        out.push({
          refundId: refund.refundId,
          orderLineId: line.orderLineId,
          amount: a - b,
          before: b,
          after: a,
          createdAt: refund.createdAt,
        })
    }
    before = after
  }
  return out
}

/** A settled or settling session line: its gross and the fee rule it was charged under. */
export interface SessionCharge {
  gross: number
  rule: FeeRule
}

/** The fee returned when a line's refunded total goes from `before` to `after`. */
export const feeReturned = (charge: SessionCharge, before: number, after: number, currency: string): number =>
  feeOf(charge.gross - before, charge.rule, currency) - feeOf(charge.gross - after, charge.rule, currency)

/** The amounts of a provider settlement. */
export interface SettlementTotals {
  sessionCount: number
  grossAmount: number
  feeAmount: number
  refundAmount: number
  feeRefundAmount: number
  adjustmentAmount: number
  netAmount: number
  carriedForward: number
  payoutAmount: number
  balanceAfter: number
}

/**
 * Adds up a provider settlement.
 * @param carriedForward - the provider's payable balance before it (credit positive; ≤ 0 once earlier ones paid out)
 */
export function settlementTotals(
  items: {
    sessions: Array<{ amount: number; fee: number }>
    refunds: Array<{ amount: number; fee: number }>
    adjustments: Array<{ amount: number }>
  },
  carriedForward: number
): SettlementTotals {
  const sum = (values: number[]) => values.reduce((a, b) => a + b, 0)
  const grossAmount = sum(items.sessions.map((s) => s.amount))
  const feeAmount = sum(items.sessions.map((s) => s.fee))
  const refundAmount = sum(items.refunds.map((r) => r.amount))
  const feeRefundAmount = sum(items.refunds.map((r) => r.fee))
  const adjustmentAmount = sum(items.adjustments.map((a) => a.amount))
  const netAmount = grossAmount - feeAmount - (refundAmount - feeRefundAmount) + adjustmentAmount
  const payoutAmount = Math.max(0, carriedForward + netAmount)
  return {
    sessionCount: items.sessions.length,
    grossAmount,
    feeAmount,
    refundAmount,
    feeRefundAmount,
    adjustmentAmount,
    netAmount,
    carriedForward,
    payoutAmount,
    balanceAfter: carriedForward + netAmount - payoutAmount,
  }
}
