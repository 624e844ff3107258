/**
 * @module Lost disputes (chargebacks) in a provider settlement, pure (docs/marketplace.md, "What is owed"). A dispute
 * lost by the centre gives the payer's money back as a refund does, so it is taken from the provider the same way:
 * shared among the order's lines in proportion to their totals, cumulatively with the order's refunds (in the order
 * the money went back), before or after the session's payout, with the platform fee on it returned. The processor's
 * dispute fee is the centre's cost and is never part of it. A chargeback the processor gives back (the dispute won
 * later, its funds reinstated) is given back to the provider as a failed refund is.
 *
 * Each processor dispute is its own chargeback (issue 58): a payment disputed twice and lost twice is taken twice,
 * and a reinstatement gives back only its own dispute's. The refund arithmetic ({@link refundMovements}) is reused as
 * it is: a chargeback enters it as a refund whose id is its dispute's, and its items come out as CHARGEBACK and
 * CHARGEBACK_REVERSAL naming the dispute (and its payment).
 */
import type { FailedRefund, OrderRefund, RefundMovement, SettledRefundItem, WeightedLine } from './settlement-math.ts'

/** A lost dispute of one of an order's applied payments that counts at a settlement's end. */
export interface OrderChargeback {
  disputeId: string
  paymentId: string
  amount: number
  /** When the dispute was lost (epoch ms): the instant it is taken from the provider. */
  lostAt: number
}

/** A chargeback the processor gave back before a settlement's end. */
export interface ReinstatedChargeback {
  disputeId: string
  /** When its funds were reinstated (epoch ms). */
  reinstatedAt: number
}

/** A CHARGEBACK or CHARGEBACK_REVERSAL item a settlement already made on a line. */
export interface SettledChargebackItem {
  kind: 'CHARGEBACK' | 'CHARGEBACK_REVERSAL'
  disputeId: string
  paymentId: string
  orderLineId: string
  amount: number
}

/**
 * An order's refunds and chargebacks as one sequence of money given back, in the order it went back (then by id).
 * Each is capped at what the lines still hold after those before it, so the shares never exceed a line even when a
 * payer both got a refund and won a dispute of the same money (the processor then took more than the order holds;
 * what is above the lines' total stays with the centre, for an operator).
 */
export function moneyGivenBack(
  lines: readonly WeightedLine[],
  refunds: readonly OrderRefund[],
  chargebacks: readonly OrderChargeback[]
): OrderRefund[] {
  const all = [
    ...refunds,
    ...chargebacks.map((c) => ({ refundId: c.disputeId, amount: c.amount, succeededAt: c.lostAt })),
  ].sort((a, b) => a.succeededAt - b.succeededAt || (a.refundId < b.refundId ? -1 : a.refundId > b.refundId ? 1 : 0))
  return cappedToLines(lines, all)
}

/**
 * Money given back in the order given, each capped at what the lines still hold after those before it (none left
 * out when nothing is left: dropped).
 */
export function cappedToLines(lines: readonly WeightedLine[], ordered: readonly OrderRefund[]): OrderRefund[] {
  let room = lines.reduce((sum, l) => sum + l.lineTotal, 0)
  return ordered.flatMap((r) => {
    const amount = Math.min(r.amount, Math.max(room, 0))
    room -= amount
    return amount > 0 ? [{ ...r, amount }] : []
  })
}

/** Reinstated chargebacks as failed refunds, for {@link refundMovements}. */
export const reinstatedAsFailed = (reinstated: readonly ReinstatedChargeback[]): FailedRefund[] =>
  reinstated.map((r) => ({ refundId: r.disputeId, failedAt: r.reinstatedAt }))

/** Settled chargeback items as the refund items they stand for, for {@link refundMovements}. */
export const chargebackItemsAsRefunds = (items: readonly SettledChargebackItem[]): SettledRefundItem[] =>
  items.map((i) => ({
    kind: i.kind === 'CHARGEBACK' ? 'REFUND' : 'REFUND_REVERSAL',
    refundId: i.disputeId,
    orderLineId: i.orderLineId,
    amount: i.amount,
  }))

/**
 * The item a movement makes: a refund's, or (its id one of `chargebacks`' dispute ids) a chargeback's.
 * @param chargebacks - the order's disputes in play (lost, or settled before), each to its payment
 */
export function itemOf(
  move: RefundMovement,
  chargebacks: ReadonlyMap<string, string>
):
  | { kind: 'REFUND' | 'REFUND_REVERSAL'; refundId: string; dedupeKey: string }
  | { kind: 'CHARGEBACK' | 'CHARGEBACK_REVERSAL'; disputeId: string; paymentId: string; dedupeKey: string } {
  const paymentId = chargebacks.get(move.refundId)
  if (paymentId === undefined) {
    return { kind: move.kind, refundId: move.refundId, dedupeKey: `${move.kind}:${move.refundId}:${move.orderLineId}` }
  }
  const kind = move.kind === 'REFUND' ? 'CHARGEBACK' : 'CHARGEBACK_REVERSAL'
  return {
    kind,
    disputeId: move.refundId,
    paymentId,
    dedupeKey: `${kind}:${move.refundId}:${move.orderLineId}`,
  }
}
