/**
 * @module Money arithmetic. Amounts are integer counts of a currency's minor units (docs/conventions.md), so every sum and
 * product here is integer arithmetic: exact as long as each value stays a safe integer, which the bound below
 * guarantees with room to spare. Nothing in the money path ever divides or uses a decimal fraction; the only place a
 * decimal point appears is {@link formatAmount}, built from digits, for human-readable messages.
 */
import { minorUnitExponent } from './currencies.ts'

/**
 * The largest amount taken anywhere: 2^53 - 1 minor units, the largest integer a JSON number carries exactly (an API
 * client in JavaScript reads every amount as a double). Money columns are BIGINT (migration `money_bigint`), which
 * holds with room to spare. INTEGER's 2,147,483,647 minor units were only 21.4 million IDR (about 1,400 USD), which a
 * provider's settlement of a few large orders exceeded. An input beyond it is a 400 (`amount_too_large`).
 */
export const MAX_AMOUNT = Number.MAX_SAFE_INTEGER

/** Whether `value` is a storable amount: an integer from 0 to {@link MAX_AMOUNT}. */
export const isAmount = (value: number): boolean => Number.isInteger(value) && value >= 0 && value <= MAX_AMOUNT

function assertSafe(value: number, what: string): number {
  if (!Number.isSafeInteger(value)) throw new RangeError(`${what} is not a safe integer: ${value}`)
  return value
}

/**
 * The exact sum of integer amounts. Throws rather than round if an operand or the result is not a safe integer, so an
 * imprecise total can never be produced silently.
 */
export function sumAmounts(amounts: Iterable<number>): number {
  let total = 0
  for (const amount of amounts) total = assertSafe(total + assertSafe(amount, 'amount'), 'sum')
  return total
}

/** `quantity` × `unitAmount`, exactly. */
export const multiplyAmount = (unitAmount: number, quantity: number): number =>
  assertSafe(assertSafe(unitAmount, 'unit amount') * assertSafe(quantity, 'quantity'), 'product')

/**
 * An amount as a decimal string in its currency's major unit, for messages: (12345, USD) → "123.45",
 * (500, JPY) → "500", (1005, BHD) → "1.005". Built from digits, never through a float.
 */
export function formatAmount(amount: number, currency: string): string {
  assertSafe(amount, 'amount')
  const exponent = minorUnitExponent(currency)
  const sign = amount < 0 ? '-' : ''
  const digits = String(Math.abs(amount)).padStart(exponent + 1, '0')
  if (exponent === 0) return `${sign}${digits}`
  return `${sign}${digits.slice(0, -exponent)}.${digits.slice(-exponent)}`
}

/** An amount with its currency code, for messages: "123.45 USD". */
export const describeAmount = (amount: number, currency: string) => `${formatAmount(amount, currency)} ${currency}`
