/**
 * @module The order lines a refund gives back (docs/payments.md, "Refunds", issue 58). A refund may name them, with
 * what each gives back; settlements then take it from those lines' providers only (docs/marketplace.md). A refund
 * that names none is shared among its order's lines by weight, as every refund was before.
 *
 * What a line can still give back is its total less what earlier refunds of the order took from it: their named
 * amounts, and for refunds without lines their share by weight, computed by the very rule settlements apply
 * ({@link refundShares}). Payments are taken against the order, not its lines, so what was paid for a line is its
 * total; the refund as a whole is still never more than what is left of its payment.
 */
import type { FieldError } from '../errors.ts'
import { describeAmount } from '../pricing/money.ts'
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
}

/**
 * What each of the order's lines can still give back after `earlier` (in the order they went back).
 * @returns by order line id
 */
export function lineRefundable(lines: readonly WeightedLine[], earlier: readonly EarlierRefund[]): Map<string, number> {
  const refunds: OrderRefund[] = earlier.map((r, index) => ({
    refundId: r.id,
    amount: r.amount,
    succeededAt: index,
    lines: r.lines,
  }))
  const taken = refundedByLine(refundShares(lines, refunds))
  return new Map(lines.map((l) => [l.orderLineId, l.lineTotal - (taken.get(l.orderLineId) ?? 0)]))
}

/**
 * Checks a refund's lines against its order and earlier refunds: each names a line of the order once, and gives
 * back no more than the line still holds; with an amount, the lines add up to it.
 * @param amount - the refund's amount when the request gave one (else it is the lines' sum)
 * @param currency - the payment's, for messages
 * @returns the field errors, each naming its path (`lines.0.amount`), empty when the lines are good
 */
export function refundLineErrors(
  requested: readonly RefundLineInput[],
  amount: number | undefined,
  lines: readonly WeightedLine[],
  earlier: readonly EarlierRefund[],
  currency: string
): FieldError[] {
  const format = (value: number) => describeAmount(value, currency)
  const errors: FieldError[] = []
  const left = lineRefundable(lines, earlier)
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
        message: `The line can give back at most ${format(room)} (its total less what earlier refunds took from it).`,
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
