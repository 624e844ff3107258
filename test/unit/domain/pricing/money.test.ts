import { describe, expect, it } from 'vitest'
import {
  describeAmount,
  formatAmount,
  isAmount,
  MAX_AMOUNT,
  multiplyAmount,
  sumAmounts,
} from '../../../../domain/pricing/money.ts'

describe('sumAmounts', () => {
  it('adds a million one-cent amounts to exactly 1,000,000 cents, where floating-point dollars drift', () => {
    const cents = Array.from({ length: 1_000_000 }, () => 1)
    expect(sumAmounts(cents)).toBe(1_000_000)
    expect(formatAmount(sumAmounts(cents), 'USD')).toBe('10000.00')

    // The same sum in dollars as floats is not exact: why amounts are integer minor units.
    let dollars = 0
    for (let i = 0; i < 1_000_000; i += 1) dollars += 0.01
    expect(dollars).not.toBe(10_000)
  })

  it('is exact for many mixed small amounts, in any order', () => {
    const amounts = Array.from({ length: 10_000 }, (_, i) => (i * 7919) % 997)
    const expected = amounts.reduce((sum, a) => sum + a, 0)
    expect(sumAmounts(amounts)).toBe(expected)
    expect(sumAmounts([...amounts].reverse())).toBe(expected)
    expect(sumAmounts([10, 20])).toBe(30)
    expect(sumAmounts([])).toBe(0)
  })

  it('refuses to round: non-integers and unsafe results throw', () => {
    expect(() => sumAmounts([1, 0.5])).toThrow(RangeError)
    expect(() => sumAmounts([Number.MAX_SAFE_INTEGER, 1])).toThrow(RangeError)
    expect(() => multiplyAmount(Number.MAX_SAFE_INTEGER, 2)).toThrow(RangeError)
    expect(() => multiplyAmount(100, 1.5)).toThrow(RangeError)
    expect(multiplyAmount(12_345, 3)).toBe(37_035)
  })
})

describe('isAmount', () => {
  it('accepts integers from 0 to the storable maximum', () => {
    expect(isAmount(0)).toBe(true)
    expect(isAmount(MAX_AMOUNT)).toBe(true)
    expect(isAmount(MAX_AMOUNT + 1)).toBe(false)
    expect(isAmount(-1)).toBe(false)
    expect(isAmount(10.01)).toBe(false)
  })
})

describe('formatAmount', () => {
  it("places the decimal point by the currency's exponent, without floats", () => {
    expect(formatAmount(12_345, 'USD')).toBe('123.45')
    expect(formatAmount(5, 'USD')).toBe('0.05')
    expect(formatAmount(0, 'EUR')).toBe('0.00')
    expect(formatAmount(500, 'JPY')).toBe('500')
    expect(formatAmount(1_005, 'BHD')).toBe('1.005')
    expect(formatAmount(7, 'KWD')).toBe('0.007')
    expect(formatAmount(-250, 'USD')).toBe('-2.50')
    expect(formatAmount(MAX_AMOUNT, 'USD')).toBe('90071992547409.91') // 2^53 - 1 cents (issue 46)
    expect(describeAmount(6_000, 'USD')).toBe('60.00 USD')
  })
})
