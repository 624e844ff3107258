/**
 * @module Stripe's own currency rules, applied at the boundary with Stripe only: our books keep every amount in ISO
 * 4217 minor units (domain/pricing/currencies.ts), and Stripe's API takes and answers amounts in its units. Source:
 * Stripe's "Supported currencies" (https://docs.stripe.com/currencies), sections "Zero-decimal currencies",
 * "Three-decimal currencies" and "Special cases" (issue 46):
 *
 * - zero-decimal (whole units): BIF, CLP, DJF, GNF, JPY, KMF, KRW, MGA, PYG, RWF, UGX, VND, VUV, XAF, XOF, XPF. MGA is
 *   two-decimal in ISO: 150000 of our minor units (1,500.00 MGA) is 1500 at Stripe, and 150050 cannot be charged;
 * - three-decimal: BHD, JOD, KWD, OMR, TND, whose amounts must end in 0 (1.005 BHD cannot be charged);
 * - every other currency two-decimal, so one ISO defines without a minor unit (ISK) is sent in hundredths ending in 00
 *   (5 ISK is 500): sent as is, an ISK order was charged a hundredth of its price;
 * - HUF and TWD are paid out (transfers) in whole units only: amounts that are multiples of 100.
 */
import { isCurrency, minorUnitExponent } from '../../domain/pricing/currencies.ts'
import { describeAmount } from '../../domain/pricing/money.ts'

const ZERO_DECIMAL = new Set([
  'BIF', 'CLP', 'DJF', 'GNF', 'JPY', 'KMF', 'KRW', 'MGA', 'PYG', 'RWF', 'UGX', 'VND', 'VUV', 'XAF', 'XOF', 'XPF',
]) // prettier-ignore
const THREE_DECIMAL = new Set(['BHD', 'JOD', 'KWD', 'OMR', 'TND'])
const WHOLE_UNIT_PAYOUTS = new Set(['HUF', 'TWD'])

/** How many decimals Stripe's amounts in `currency` carry. */
export function stripeExponent(currency: string): number {
  const code = currency.toUpperCase()
  if (ZERO_DECIMAL.has(code)) return 0
  if (THREE_DECIMAL.has(code)) return 3
  return 2
}

/** What Stripe is sent for: a charge or refund, or a transfer (a payout to a connected account). */
export type StripeUse = 'charge' | 'transfer'

/** One of Stripe's rules on amounts: every amount sent must be a multiple of `step` of our minor units. */
interface AmountRule {
  step: number
  /** Why an amount that is not a multiple is refused (a sentence naming it). */
  refusal: (amount: number) => string
}

/**
 * Stripe's rules on amounts of `currency` sent for `use`, in our ISO minor units: the one place they are written, so
 * the refusal of an amount ({@link toStripeAmount}) and the rounding to what Stripe takes ({@link stripeAmountUnit})
 * never disagree.
 */
function amountRules(code: string, use: StripeUse): AmountRule[] {
  const shift = stripeExponent(code) - minorUnitExponent(code)
  // Our minor units per Stripe unit: 100 for MGA (ISO hundredths, Stripe whole units), else 1.
  const perStripeUnit = shift < 0 ? 10 ** -shift : 1
  const rules: AmountRule[] = []
  if (perStripeUnit > 1) {
    rules.push({
      step: perStripeUnit,
      refusal: (amount) =>
        `Stripe charges ${code} in whole units of ${perStripeUnit} minor units: ${describeAmount(amount, code)} cannot be charged.`,
    })
  }
  // Stripe units per our minor unit (100 for ISK): a Stripe step of n is n / that of ours, at least 1 (powers of ten).
  const ofOurs = (stripeStep: number) => Math.max(1, (stripeStep * perStripeUnit) / 10 ** Math.max(shift, 0))
  if (THREE_DECIMAL.has(code)) {
    rules.push({
      step: ofOurs(10),
      refusal: (amount) =>
        `Stripe takes ${code} amounts ending in 0: ${describeAmount(amount, code)} cannot be charged.`,
    })
  }
  if (use === 'transfer' && WHOLE_UNIT_PAYOUTS.has(code)) {
    rules.push({
      step: ofOurs(100),
      refusal: (amount) =>
        `Stripe pays ${code} out in whole units only: ${describeAmount(amount, code)} cannot be sent.`,
    })
  }
  return rules
}

/**
 * The smallest amount of `currency`, in our ISO minor units, that Stripe takes for `use`; every amount it takes is a
 * multiple of it (100 for a HUF or TWD transfer, 10 for BHD, 100 for MGA, 1 for most). A payout is rounded down to it
 * at settlement, the rest carried to the next (domain/settlements/settlement-math.ts).
 */
export function stripeAmountUnit(currency: string, use: StripeUse = 'charge'): number {
  // Every step is a power of ten, so the largest is a multiple of the others.
  return amountRules(currency.toUpperCase(), use).reduce((unit, rule) => Math.max(unit, rule.step), 1)
}

/**
 * Our amount (ISO minor units) in Stripe's units.
 * @returns the amount to send, or why Stripe cannot take it (a sentence naming the amount)
 */
export function toStripeAmount(
  amount: number,
  currency: string,
  use: StripeUse = 'charge'
): { amount: number } | { refused: string } {
  const code = currency.toUpperCase()
  const broken = amountRules(code, use).find((rule) => amount % rule.step !== 0)
  if (broken) return { refused: broken.refusal(amount) }
  const shift = stripeExponent(code) - minorUnitExponent(code)
  const factor = 10 ** Math.abs(shift)
  return { amount: shift >= 0 ? amount * factor : amount / factor }
}

/** `toStripeAmount`, throwing what Stripe cannot take (the callers checked it before anything was recorded). */
export function stripeAmountOf(amount: number, currency: string, use: StripeUse = 'charge'): number {
  const converted = toStripeAmount(amount, currency, use)
  if ('refused' in converted) throw new RangeError(converted.refused)
  return converted.amount
}

/**
 * Stripe's amount (its units) in our ISO minor units. One in a currency no record of ours can have is left as it is:
 * its currency already tells it apart (an event about it is a mismatch).
 */
export function fromStripeAmount(amount: number, currency: string): number {
  const code = currency.toUpperCase()
  if (!isCurrency(code)) return amount
  const shift = minorUnitExponent(code) - stripeExponent(code)
  const factor = 10 ** Math.abs(shift)
  if (shift >= 0) return amount * factor
  // Stripe's ISK amounts end in 00 (its own rule): anything else is not an amount of ours.
  if (amount % factor !== 0) throw new RangeError(`Stripe's ${amount} ${code} is not a whole ${code} amount`)
  return amount / factor
}
