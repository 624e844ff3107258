import { describe, expect, it } from 'vitest'
import {
  fromStripeAmount,
  stripeAmountUnit,
  stripeExponent,
  toStripeAmount,
} from '../../../../adapters/stripe/stripe-currencies.ts'
import { CURRENCY_CODES } from '../../../../domain/pricing/currencies.ts'

describe("Stripe's currency rules", () => {
  it('converts ISO minor units to and from Stripe units, both ways', () => {
    const cases: Array<[number, string, number]> = [
      [12_000, 'USD', 12_000],
      [5_000, 'JPY', 5_000],
      [5, 'ISK', 500], // no minor unit in ISO, hundredths at Stripe
      [150_000, 'MGA', 1_500], // two-decimal in ISO, zero-decimal at Stripe
      [1_010, 'BHD', 1_010],
      [3_000_000_000, 'IDR', 3_000_000_000],
    ]
    for (const [ours, currency, theirs] of cases) {
      expect(toStripeAmount(ours, currency), currency).toEqual({ amount: theirs })
      expect(fromStripeAmount(theirs, currency), currency).toBe(ours)
    }
    expect([stripeExponent('ugx'), stripeExponent('KWD'), stripeExponent('HUF')]).toEqual([0, 3, 2])
  })

  it('refuses, naming the amount, what Stripe cannot take', () => {
    expect(toStripeAmount(150_050, 'MGA')).toEqual({ refused: expect.stringContaining('1500.50 MGA') })
    expect(toStripeAmount(1_005, 'BHD')).toEqual({ refused: expect.stringContaining('1.005 BHD') })
    expect(toStripeAmount(12_345, 'HUF')).toEqual({ amount: 12_345 }) // charged in two decimals
    expect(toStripeAmount(12_345, 'HUF', 'transfer')).toEqual({ refused: expect.stringContaining('123.45 HUF') })
    expect(toStripeAmount(12_300, 'TWD', 'transfer')).toEqual({ amount: 12_300 })
    expect(() => fromStripeAmount(550, 'ISK')).toThrow(RangeError)
  })

  // Issue 58, item 1: the unit a payout is rounded down to at settlement is the rule that refuses a transfer.
  it('names the smallest amount Stripe takes, for charges and transfers', () => {
    expect(stripeAmountUnit('HUF', 'transfer')).toBe(100)
    expect(stripeAmountUnit('twd', 'transfer')).toBe(100)
    expect(stripeAmountUnit('HUF')).toBe(1)
    expect(stripeAmountUnit('MGA', 'transfer')).toBe(100)
    expect(['BHD', 'JOD', 'KWD', 'OMR', 'TND'].map((c) => stripeAmountUnit(c, 'transfer'))).toEqual([
      10, 10, 10, 10, 10,
    ])
    expect(['USD', 'JPY', 'ISK', 'EUR'].map((c) => stripeAmountUnit(c, 'transfer'))).toEqual([1, 1, 1, 1])
  })

  it('takes exactly the multiples of that unit, in every currency, for charges and transfers', () => {
    const disagreements: string[] = []
    for (const currency of CURRENCY_CODES) {
      for (const use of ['charge', 'transfer'] as const) {
        const unit = stripeAmountUnit(currency, use)
        for (let amount = 1; amount <= 250; amount++) {
          const taken = !('refused' in toStripeAmount(amount, currency, use))
          if (taken !== (amount % unit === 0)) disagreements.push(`${amount} ${currency} ${use}`)
        }
      }
    }
    expect(disagreements).toEqual([])
  })
})
