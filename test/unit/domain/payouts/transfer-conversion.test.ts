/**
 * Payouts from a balance the processor converted (issue 78, item 1; domain/payouts/transfer-conversion.ts): the rate
 * and currency a settlement is sent in, what is sent, a reversal's share, and the books of a converted transfer.
 */
import { describe, expect, it } from 'vitest'
import {
  conversionOf,
  reversedShareOf,
  sendableOf,
  sentAmountOf,
} from '../../../../domain/payouts/transfer-conversion.ts'
import {
  FX_CONVERSION,
  inTransitAccount,
  payableAccount,
  transferLines,
} from '../../../../domain/settlements/journal.ts'

const charge = (orderId: string, amount: number, settledCurrency: string | null, settledAmount: number | null) => ({
  orderId,
  amount,
  settledCurrency,
  settledAmount,
})

describe('conversionOf', () => {
  it('values each session at the rate of the charges that paid its order, weighted by its gross', () => {
    const conversion = conversionOf(
      'USD',
      [
        { orderId: 'ord_a', amount: 10_000 },
        { orderId: 'ord_b', amount: 5_000 },
      ],
      [charge('ord_a', 10_000, 'EUR', 9_000), charge('ord_b', 5_000, 'EUR', 4_600)]
    )
    expect(conversion?.currency).toBe('EUR')
    expect(conversion?.rate).toBeCloseTo(13_600 / 15_000, 12)
  })

  it("weighs a session by its gross, not by its order's payment: a small line of a large order counts little", () => {
    const conversion = conversionOf(
      'USD',
      [
        { orderId: 'ord_a', amount: 1_000 },
        { orderId: 'ord_b', amount: 9_000 },
      ],
      [charge('ord_a', 50_000, 'EUR', 40_000), charge('ord_b', 9_000, 'EUR', 9_000)]
    )
    expect(conversion?.rate).toBeCloseTo((1_000 * 0.8 + 9_000 * 1) / 10_000, 12)
  })

  it('is none when the charges were kept in the settlement’s currency, or when nothing was charged', () => {
    expect(conversionOf('USD', [{ orderId: 'ord_a', amount: 100 }], [charge('ord_a', 100, null, null)])).toBeUndefined()
    expect(conversionOf('USD', [{ orderId: 'ord_a', amount: 100 }], [])).toBeUndefined()
    expect(conversionOf('USD', [], [charge('ord_a', 100, 'EUR', 90)])).toBeUndefined()
  })

  it('follows the balance currency most of the value was settled in, at the rate of that part alone', () => {
    const sessions = [
      { orderId: 'ord_a', amount: 3_000 },
      { orderId: 'ord_b', amount: 7_000 },
    ]
    const conversion = conversionOf('USD', sessions, [
      charge('ord_a', 3_000, null, null),
      charge('ord_b', 7_000, 'CAD', 9_450),
    ])
    expect(conversion?.currency).toBe('CAD')
    expect(conversion?.rate).toBeCloseTo(1.35, 12)
    // Mostly kept in dollars: sent in dollars.
    expect(
      conversionOf('USD', sessions, [charge('ord_a', 3_000, 'CAD', 4_050), charge('ord_b', 7_000, null, null)])
    ).toBeUndefined()
  })

  it('splits an order paid by two cards by what each paid', () => {
    const conversion = conversionOf(
      'USD',
      [{ orderId: 'ord_a', amount: 10_000 }],
      [charge('ord_a', 2_000, null, null), charge('ord_a', 8_000, 'EUR', 7_200)]
    )
    expect(conversion?.currency).toBe('EUR')
    expect(conversion?.rate).toBeCloseTo(0.9, 12)
  })
})

describe('what a converted transfer sends', () => {
  const eur = { currency: 'EUR', rate: 0.9 }

  it('is the amount at the rate to the nearest unit, rounded down to what the processor transfers', () => {
    expect(sentAmountOf(12_345, eur, 1)).toBe(11_111) // 11,110.5 → 11,111
    expect(sentAmountOf(12_345, { currency: 'HUF', rate: 3.6 }, 100)).toBe(44_400) // 44,442 → whole forints
  })

  it('sends nothing, and carries all, when the conversion would send nothing', () => {
    const unit = (currency: string) => (currency === 'HUF' ? 100 : 1)
    expect(sendableOf(20, unit, 'USD', { currency: 'HUF', rate: 3.6 })).toBe(0)
    expect(sendableOf(28, unit, 'USD', { currency: 'HUF', rate: 3.6 })).toBe(28)
    expect(sendableOf(20, unit, 'USD', undefined)).toBe(20)
  })

  it("maps what the processor took back to the same share of the settlement's amount, all of it when all", () => {
    expect(reversedShareOf(1_000, 13_600, 13_500)).toBe(993) // 992.6
    expect(reversedShareOf(13_600, 13_600, 13_500)).toBe(13_500)
    expect(reversedShareOf(0, 13_600, 13_500)).toBe(0)
  })
})

describe('the books of a converted transfer', () => {
  it('balance each currency on its own through fx_conversion', () => {
    const paid = transferLines('PAID', 'prv_1', 13_500, { currency: 'EUR', amount: 12_240 })
    expect(paid).toEqual([
      { account: inTransitAccount('prv_1'), debit: 13_500, credit: 0 },
      { account: FX_CONVERSION, debit: 0, credit: 13_500 },
      { account: FX_CONVERSION, debit: 12_240, credit: 0, currency: 'EUR' },
      { account: 'clearing', debit: 0, credit: 12_240, currency: 'EUR' },
    ])
    expect(transferLines('RECOVERED', 'prv_1', 100, { currency: 'EUR', amount: 90 })).toEqual([
      { account: payableAccount('prv_1'), debit: 0, credit: 100 },
      { account: FX_CONVERSION, debit: 100, credit: 0 },
      { account: FX_CONVERSION, debit: 0, credit: 90, currency: 'EUR' },
      { account: 'clearing', debit: 90, credit: 0, currency: 'EUR' },
    ])
  })
})
