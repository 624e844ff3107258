import { describe, expect, it } from 'vitest'
import { fromStripeAmount, stripeExponent, toStripeAmount } from '../../../../adapters/stripe/stripe-currencies.ts'

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
})
