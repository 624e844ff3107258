/**
 * @module The arithmetic of an order (docs/payments.md), pure so it is unit-tested on its own and applied the same
 * way on create and on PATCH:
 *
 *   line gross      = quantity × unitAmount
 *   line total      = gross − discountAmount + taxAmount          (discount ≤ gross)
 *   order subtotal  = Σ gross,  discountTotal = Σ discount,  taxTotal = Σ tax
 *   order total     = subtotal − discountTotal + taxTotal  = Σ line total
 *
 * Tax is an amount the centre supplies per line (we compute no tax rates); most therapy services are untaxed.
 * The database checks the same equations (triggers in the money migration).
 */
import type { FieldError } from '../errors.ts'
import { MAX_AMOUNT, multiplyAmount, sumAmounts } from '../pricing/money.ts'

export interface LineAmounts {
  quantity: number
  unitAmount: number
  discountAmount: number
  taxAmount: number
}

export interface OrderTotals {
  subtotal: number
  discountTotal: number
  taxTotal: number
  total: number
}

export type TotalsResult = { totals: OrderTotals; lineTotals: number[] } | { errors: FieldError[] }

const tooLarge = (path: string): FieldError => ({
  path,
  code: 'amount_too_large',
  message: `Exceeds the largest amount the API stores (${MAX_AMOUNT} minor units).`,
})

/**
 * Totals of an order's lines, or the field errors that make them impossible (a discount above its line, an amount
 * beyond what is stored).
 * @param lines - the lines in order; errors name them `lines.<index>.<field>`
 */
export function computeTotals(lines: readonly LineAmounts[]): TotalsResult {
  const errors: FieldError[] = []
  const grosses: number[] = []
  const lineTotals: number[] = []
  lines.forEach((line, index) => {
    // Past MAX_AMOUNT (2^53 - 1) a product or sum is no longer exact: refused before it is computed (issue 46).
    if (line.unitAmount * line.quantity > MAX_AMOUNT || line.unitAmount * line.quantity + line.taxAmount > MAX_AMOUNT) {
      errors.push(tooLarge(`lines.${index}`))
      return
    }
    const gross = multiplyAmount(line.unitAmount, line.quantity)
    const total = gross - line.discountAmount + line.taxAmount
    grosses.push(gross)
    lineTotals.push(total)
    if (line.discountAmount > gross) {
      errors.push({
        path: `lines.${index}.discountAmount`,
        code: 'discount_exceeds_amount',
        message: 'A discount cannot exceed quantity × unitAmount.',
      })
    }
    if (gross > MAX_AMOUNT || total > MAX_AMOUNT) errors.push(tooLarge(`lines.${index}`))
  })
  if (errors.length) return { errors }
  // Each line fits; their sums may not (every line at most 2^53 - 1: a float sum past it is still above it).
  const sums = [grosses, lineTotals, lines.map((l) => l.taxAmount)].map((xs) => xs.reduce((a, b) => a + b, 0))
  if (sums.some((sum) => sum > MAX_AMOUNT)) return { errors: [tooLarge('lines')] }
  const totals = {
    subtotal: sumAmounts(grosses),
    discountTotal: sumAmounts(lines.map((l) => l.discountAmount)),
    taxTotal: sumAmounts(lines.map((l) => l.taxAmount)),
    total: sumAmounts(lineTotals),
  }
  if (totals.subtotal > MAX_AMOUNT || totals.total > MAX_AMOUNT || totals.taxTotal > MAX_AMOUNT) {
    return { errors: [tooLarge('lines')] }
  }
  return { totals, lineTotals }
}
