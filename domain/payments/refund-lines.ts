/**
 * @module The order lines a refund gives back (docs/payments.md, "Refunds", issue 58). A refund may name them, with
 * what each gives back; settlements then take it from those lines' providers only (docs/marketplace.md). A refund
 * that names none is shared among its order's lines by weight, as every refund was before.
 *
 * What a line can still give back is one rule, the settlements' own (issue 78): its total less what the order's money
 * given back so far took from it — earlier refunds' named amounts, and for refunds without lines and for lost
 * disputes (chargebacks) their share by weight of what the lines held then, in the order the money went back
 * ({@link moneyGivenBack}, {@link refundShares}). Payments are taken against the order, not its lines, so what was
 * paid for a line is its total; the refund as a whole is still never more than what is left of its payment.
 */
import type { FieldError } from '../errors.ts'
import { describeAmount } from '../pricing/money.ts'
import { cappedToLines, moneyGivenBack, type OrderChargeback } from '../settlements/chargebacks.ts'
import { refundedByLine, refundShares, type OrderRefund, type WeightedLine } from '../settlements/settlement-math.ts'

/** One line of a refund request: an order line and what the refund gives back of it, in minor units. */
export interface RefundLineInput {
  orderLineId: string
  amount: number
}

/** An earlier refund of the order, as it holds the order's lines: PENDING or SUCCEEDED, of an applied payment. */
export interface EarlierRefund {
  id: string
  amount: number
  lines: readonly RefundLineInput[]
  /** When it succeeded; null while PENDING (it will go back after every refund and chargeback so far). */
  succeededAt: Date | null
}

/** A lost dispute of one of the order's applied payments, its funds not reinstated: a chargeback that counts. */
export interface LostDispute {
  id: string
  paymentId: string
  amount: number
  lostAt: Date
}

/**
 * What each of the order's lines can still give back after `earlier` refunds and `lost` disputes: succeeded refunds
 * and chargebacks in the order the money went back, then pending refunds in the order given.
 * @returns by order line id
 */
export function lineRefundable(
  lines: readonly WeightedLine[],
  earlier: readonly EarlierRefund[],
  lost: readonly LostDispute[] = []
): Map<string, number> {
  const asOrderRefund = (r: EarlierRefund, succeededAt: number): OrderRefund => ({
    refundId: r.id,
    amount: r.amount,
    succeededAt,
    lines: r.lines,
  })
  const chargebacks: OrderChargeback[] = lost.map((d) => ({
    disputeId: d.id,
    paymentId: d.paymentId,
    amount: d.amount,
    lostAt: d.lostAt.getTime(),
  }))
  const gone = moneyGivenBack(
    lines,
    earlier.flatMap((r) => (r.succeededAt ? [asOrderRefund(r, r.succeededAt.getTime())] : [])),
    chargebacks
  )
  const pending = earlier.filter((r) => r.succeededAt === null).map((r) => asOrderRefund(r, Number.MAX_SAFE_INTEGER))
  const taken = refundedByLine(refundShares(lines, cappedToLines(lines, [...gone, ...pending])))
  return new Map(lines.map((l) => [l.orderLineId, l.lineTotal - (taken.get(l.orderLineId) ?? 0)]))
}

/**
 * Checks a refund's lines against its order: each names a line of the order once, and gives back no more than the
 * line still holds; with an amount, the lines add up to it.
 * @param amount - the refund's amount when the request gave one (else it is the lines' sum)
 * @param left - what each of the order's lines can still give back ({@link lineRefundable}), by line id
 * @param currency - the payment's, for messages
 * @returns the field errors, each naming its path (`lines.0.amount`), empty when the lines are good
 */
export function refundLineErrors(
  requested: readonly RefundLineInput[],
  amount: number | undefined,
  left: ReadonlyMap<string, number>,
  currency: string
): FieldError[] {
  const format = (value: number) => describeAmount(value, currency)
  const errors: FieldError[] = []
  const seen = new Set<string>()
  requested.forEach((line, index) => {
    const at = (field: string) => `lines.${index}.${field}`
    const room = left.get(line.orderLineId)
    if (room === undefined) {
      errors.push({
        path: at('orderLineId'),
        code: 'not_found',
        message: "No line with this id on the payment's order.",
      })
    } else if (seen.has(line.orderLineId)) {
      errors.push({ path: at('orderLineId'), code: 'duplicate', message: 'The line is named twice.' })
    } else if (line.amount > room) {
      errors.push({
        path: at('amount'),
        code: 'amount_exceeds_line_refundable',
        message: `The line can give back at most ${format(room)} (its total less what earlier refunds and lost disputes took from it).`,
      })
    }
    seen.add(line.orderLineId)
  })
  if (errors.length > 0) return errors
  // Distinct lines each within its total: their sum is within the order's total, an exact integer.
  const sum = requested.reduce((total, l) => total + l.amount, 0)
  if (amount !== undefined && sum !== amount) {
    errors.push({
      path: 'lines',
      code: 'amount_mismatch',
      message: `The lines add up to ${format(sum)}, not the refund's amount ${format(amount)}.`,
    })
  }
  return errors
}

/** A refund's line rows, in the request's order (created with the refund, under its create). */
export const refundLineRows = (tenantId: string, lines: readonly RefundLineInput[]) =>
  lines.map((line, position) => ({ tenantId, orderLineId: line.orderLineId, amount: line.amount, position }))
