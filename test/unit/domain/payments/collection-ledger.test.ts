/**
 * The books of money moving (domain/payments/collection-ledger.ts, domain/settlements/journal.ts): what a payment, its
 * refunds and its disputes have moved by their states, and the lines that bring the books to it.
 */
import { describe, expect, it } from 'vitest'
import { moneyMoved, type PaymentMoney } from '../../../../domain/payments/collection-ledger.ts'
import {
  CENTRE_FUNDS,
  CLEARING,
  collectionBalances,
  FX_CONVERSION,
  holdingAccount,
  linesBetween,
  PAYER_FUNDS,
  PROCESSOR_FEES,
  type AccountBalance,
  type JournalLine,
} from '../../../../domain/settlements/journal.ts'

const withdrawn = new Date('2026-11-28T10:00:00Z')

const KEPT_AS_CHARGED = { settledCurrency: null, settledAmount: null, settledFee: null }

const payment = (): PaymentMoney => ({
  id: 'pay_1',
  status: 'SUCCEEDED',
  amount: 10_000,
  processorFee: 320,
  ...KEPT_AS_CHARGED,
  refunds: [
    { id: 'ref_1', status: 'SUCCEEDED', amount: 2_000, settledCurrency: null, settledAmount: null },
    { id: 'ref_2', status: 'PENDING', amount: 1_000, settledCurrency: null, settledAmount: null },
    { id: 'ref_3', status: 'FAILED', amount: 500, settledCurrency: null, settledAmount: null },
  ],
  disputes: [
    // An inquiry: nothing withdrawn, no fee.
    {
      id: 'pdp_1',
      processorReference: 'dp_1',
      status: 'CLOSED',
      amount: 8_000,
      fee: 0,
      fundsWithdrawnAt: null,
      ...KEPT_AS_CHARGED,
    },
    {
      id: 'pdp_2',
      processorReference: 'dp_2',
      status: 'OPEN',
      amount: 8_000,
      fee: 1_500,
      fundsWithdrawnAt: withdrawn,
      ...KEPT_AS_CHARGED,
    },
  ],
})

const amounts = (p: PaymentMoney) => moneyMoved(p).map(({ subject, collected, fee }) => [subject, collected, fee])

describe('moneyMoved', () => {
  it('counts a succeeded payment in with its processing fee, succeeded refunds and withdrawn disputes out, and the dispute fee', () => {
    expect(amounts(payment())).toEqual([
      ['pay_1', 10_000, 320],
      ['ref_1', -2_000, 0],
      ['ref_2', 0, 0],
      ['ref_3', 0, 0],
      ['pdp_1', 0, 0],
      ['pdp_2', -8_000, 1_500],
    ])
  })

  it('gives back the funds of a dispute won, keeping its fee, and keeps them out of one lost', () => {
    const won = payment()
    won.disputes[1]!.status = 'WON'
    expect(amounts(won).at(-1)).toEqual(['pdp_2', 0, 1_500])
    const lost = payment()
    lost.disputes[1]!.status = 'LOST'
    expect(amounts(lost).at(-1)).toEqual(['pdp_2', -8_000, 1_500])
  })

  it('moves nothing for a payment that has not succeeded', () => {
    expect(amounts({ ...payment(), status: 'PENDING', refunds: [], disputes: [] })).toEqual([['pay_1', 0, 0]])
    expect(amounts({ ...payment(), status: 'FAILED', refunds: [], disputes: [] })).toEqual([['pay_1', 0, 0]])
  })
})

/** The lines that post a subject's balances from nothing. */
const postedFromNothing = (target: AccountBalance[]) => linesBetween([], target)

/** Each currency's debits less its credits: zero in every currency for lines that balance. */
const perCurrency = (lines: JournalLine[]) =>
  lines.reduce<Record<string, number>>((sums, l) => {
    const currency = l.currency ?? 'entry'
    return { ...sums, [currency]: (sums[currency] ?? 0) + l.debit - l.credit }
  }, {})

describe('moneyMoved, converted by the processor (FX)', () => {
  // Charged 100.00 EUR; Stripe's balance keeps USD: 108.37 in, a 3.44 USD fee.
  const converted = (): PaymentMoney => ({
    ...payment(),
    settledCurrency: 'USD',
    settledAmount: 10_837,
    settledFee: 344,
  })

  it('moves the payment on the balance as its balance transaction says, and refunds at its own rate', () => {
    const [paid, refunded, pending] = moneyMoved(converted())
    expect(paid!.settled).toEqual({ currency: 'USD', collected: 10_837, fee: 344 })
    // 20.00 EUR of 100.00 at the charge's 1.0837: 21.674, rounded.
    expect(refunded!.settled).toEqual({ currency: 'USD', collected: -2_167, fee: 0 })
    expect(pending!.settled).toEqual({ currency: 'USD', collected: 0, fee: 0 })
  })

  it("moves a refund as its own balance transaction says once read, at the day's rate", () => {
    const read = converted()
    read.refunds[0] = { ...read.refunds[0]!, settledCurrency: 'USD', settledAmount: -2_190 }
    expect(moneyMoved(read)[1]!.settled).toEqual({ currency: 'USD', collected: -2_190, fee: 0 })
    // Read, but failed since: nothing out.
    read.refunds[0].status = 'FAILED'
    expect(moneyMoved(read)[1]!.settled).toEqual({ currency: 'USD', collected: 0, fee: 0 })
  })

  it("moves a dispute as its own balance transactions say once read, at the payment's rate before", () => {
    const read = converted()
    read.disputes[1] = { ...read.disputes[1]!, settledCurrency: 'USD', settledAmount: -8_790, settledFee: 1_500 }
    expect(moneyMoved(read).at(-1)!.settled).toEqual({ currency: 'USD', collected: -8_790, fee: 1_500 })
    // Not read: 80.00 EUR and its 15.00 fee at 1.0837.
    expect(moneyMoved(converted()).at(-1)!.settled).toEqual({ currency: 'USD', collected: -8_670, fee: 1_626 })
  })

  it('leaves a payment that has not succeeded at nothing on the balance', () => {
    const failed = { ...converted(), status: 'FAILED' as const, refunds: [], disputes: [] }
    expect(moneyMoved(failed)[0]!.settled).toEqual({ currency: 'USD', collected: 0, fee: 0 })
  })
})

describe('collectionBalances and linesBetween', () => {
  it("holds a processor's payment in clearing and a recorded one in the centre's funds, owed to the payers", () => {
    expect(holdingAccount('stripe')).toBe(CLEARING)
    expect(holdingAccount('recorded')).toBe(CENTRE_FUNDS)
    expect(postedFromNothing(collectionBalances(CLEARING, 'EUR', 10_000, 0))).toEqual([
      { account: CLEARING, currency: 'EUR', debit: 10_000, credit: 0 },
      { account: PAYER_FUNDS, currency: 'EUR', debit: 0, credit: 10_000 },
    ])
  })

  it('takes a withdrawal and its fee out of clearing, and balances whatever the signs', () => {
    expect(postedFromNothing(collectionBalances(CLEARING, 'EUR', -8_000, 1_500))).toEqual([
      { account: CLEARING, currency: 'EUR', debit: 0, credit: 9_500 },
      { account: PAYER_FUNDS, currency: 'EUR', debit: 8_000, credit: 0 },
      { account: PROCESSOR_FEES, currency: 'EUR', debit: 1_500, credit: 0 },
    ])
    for (const [collected, fee] of [
      [3, -7],
      [-5, 0],
      [0, 2],
    ] as const) {
      expect(perCurrency(postedFromNothing(collectionBalances(CLEARING, 'EUR', collected, fee)))).toEqual({ EUR: 0 })
    }
    expect(postedFromNothing(collectionBalances(CLEARING, 'EUR', 0, 0))).toEqual([])
  })

  it('converts through fx_conversion, each currency balancing on its own', () => {
    const settled = { currency: 'USD', collected: 10_837, fee: 344 }
    const lines = postedFromNothing(collectionBalances(CLEARING, 'EUR', 10_000, 320, settled))
    expect(lines).toEqual([
      { account: PAYER_FUNDS, currency: 'EUR', debit: 0, credit: 10_000 },
      { account: FX_CONVERSION, currency: 'EUR', debit: 10_000, credit: 0 },
      { account: FX_CONVERSION, currency: 'USD', debit: 0, credit: 10_837 },
      // The balance's fee, not the charged currency's estimate of it.
      { account: CLEARING, currency: 'USD', debit: 10_493, credit: 0 },
      { account: PROCESSOR_FEES, currency: 'USD', debit: 344, credit: 0 },
    ])
    expect(perCurrency(lines)).toEqual({ EUR: 0, USD: 0 })
  })

  it('posts only the difference from what is held, and moves a payment booked as charged to its balance currency', () => {
    const asCharged = collectionBalances(CLEARING, 'EUR', 10_000, 320)
    expect(linesBetween(asCharged, asCharged)).toEqual([])
    const settled = { currency: 'USD', collected: 10_837, fee: 344 }
    const lines = linesBetween(asCharged, collectionBalances(CLEARING, 'EUR', 10_000, 320, settled))
    expect(perCurrency(lines)).toEqual({ EUR: 0, USD: 0 })
    // EUR's clearing and fee go back; payer_funds, already right, does not move.
    expect(lines.filter((l) => l.currency === 'EUR')).toEqual([
      { account: FX_CONVERSION, currency: 'EUR', debit: 10_000, credit: 0 },
      { account: CLEARING, currency: 'EUR', debit: 0, credit: 9_680 },
      { account: PROCESSOR_FEES, currency: 'EUR', debit: 0, credit: 320 },
    ])
  })
})
