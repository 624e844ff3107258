/**
 * @module A provider settlement's totals and its payout, pure (docs/marketplace.md, "What is owed"): the items' sums
 * (settlement-math.ts computes each item), the payable balance they leave, and the payout rounded down to what the
 * payout processor can transfer, the remainder carried.
 */

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
  /** Payable but below the processor's transferable unit: left on the balance for the next settlement. */
  payoutRemainder: number
  /** Held back for refunds pending and disputes open, net of reserves released (negative: more released). */
  reserveAmount: number
  balanceAfter: number
}

/**
 * `amount` (≥ 0) rounded down to a multiple of `unit`: what a payout processor can transfer of it. Down, never to
 * the nearest: a payout rounded up would pay the provider money they are not owed.
 */
export function transferableOf(amount: number, unit: number): number {
  if (!Number.isSafeInteger(unit) || unit < 1) throw new RangeError(`not a transferable unit: ${unit}`)
  return amount - (amount % unit)
}

/**
 * Adds up a provider settlement.
 * @param items - the sessions, refunds (net of reversals) and adjustments, and `reserved`: what reserves hold back net
 *   of those released (0 when absent)
 * @param carriedForward - the provider's payable balance before it (credit positive; ≤ 0 once earlier ones paid out,
 *   or the remainder an earlier payout could not transfer)
 * @param payoutUnit - the payout processor's transferable unit in the currency (1: any amount, no processor)
 */
export function settlementTotals(
  items: {
    sessions: Array<{ amount: number; fee: number }>
    refunds: Array<{ amount: number; fee: number }>
    adjustments: Array<{ amount: number }>
    reserved?: number
  },
  carriedForward: number,
  payoutUnit = 1
): SettlementTotals {
  const sum = (values: number[]) => values.reduce((a, b) => a + b, 0)
  const grossAmount = sum(items.sessions.map((s) => s.amount))
  const feeAmount = sum(items.sessions.map((s) => s.fee))
  const refundAmount = sum(items.refunds.map((r) => r.amount))
  const feeRefundAmount = sum(items.refunds.map((r) => r.fee))
  const adjustmentAmount = sum(items.adjustments.map((a) => a.amount))
  const netAmount = grossAmount - feeAmount - (refundAmount - feeRefundAmount) + adjustmentAmount
  const reserveAmount = items.reserved ?? 0
  const payable = Math.max(0, carriedForward + netAmount - reserveAmount)
  const payoutAmount = transferableOf(payable, payoutUnit)
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
    payoutRemainder: payable - payoutAmount,
    reserveAmount,
    balanceAfter: carriedForward + netAmount - reserveAmount - payoutAmount,
  }
}
