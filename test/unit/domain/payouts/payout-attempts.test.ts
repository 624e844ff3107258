/**
 * A payout transfer's attempts (domain/payouts/payout-attempts.ts): what the provider holds, what a retry sends, the
 * status a transfer shows after a partial or full reversal, and when an attempt's idempotency key may be forgotten;
 * and the journal lines of money moving for a transfer.
 */
import { describe, expect, it } from 'vitest'
import {
  IDEMPOTENCY_WINDOW_MS,
  attemptKeyOf,
  outlivedKey,
  owedOf,
  paidOf,
  settledStatusOf,
  type AttemptMoney,
} from '../../../../domain/payouts/payout-attempts.ts'
import { CLEARING, inTransitAccount, journalLines, transferLines } from '../../../../domain/settlements/journal.ts'

const paid = (amount: number, amountReversed = 0): AttemptMoney => ({ status: 'PAID', amount, amountReversed })
const failed = (amount: number): AttemptMoney => ({ status: 'FAILED', amount, amountReversed: 0 })
const pending = (amount: number): AttemptMoney => ({ status: 'PENDING', amount, amountReversed: 0 })

describe('payout attempts', () => {
  it('owes the whole transfer until an attempt is paid, and only what was taken back after', () => {
    expect(owedOf(5_000, [])).toBe(5_000)
    expect(owedOf(5_000, [failed(5_000), pending(5_000)])).toBe(5_000)
    expect(owedOf(5_000, [paid(5_000)])).toBe(0)
    expect(owedOf(5_000, [paid(5_000, 2_000)])).toBe(2_000)
    expect(owedOf(5_000, [paid(5_000, 2_000), paid(2_000)])).toBe(0)
    expect(paidOf([paid(5_000, 2_000), paid(2_000, 2_000)])).toBe(3_000)
  })

  it('shows PAID, PARTIALLY_REVERSED or REVERSED by what the provider still holds', () => {
    expect(settledStatusOf(5_000, [paid(5_000)])).toBe('PAID')
    expect(settledStatusOf(5_000, [paid(5_000, 2_000)])).toBe('PARTIALLY_REVERSED')
    expect(settledStatusOf(5_000, [paid(5_000, 5_000)])).toBe('REVERSED')
    expect(settledStatusOf(5_000, [paid(5_000, 2_000), paid(2_000)])).toBe('PAID')
    expect(settledStatusOf(5_000, [paid(5_000, 5_000), paid(5_000, 5_000)])).toBe('REVERSED')
  })

  it('owes nothing again for what the platform took back to recover what the provider owed (issue 46)', () => {
    const recovered = { ...paid(5_000, 2_500), amountRecovered: 2_500 }
    expect(owedOf(5_000, [recovered])).toBe(0)
    expect(settledStatusOf(5_000, [recovered])).toBe('PAID')
    const both = { ...paid(5_000, 3_000), amountRecovered: 1_000 }
    expect(owedOf(5_000, [both])).toBe(2_000)
    expect(settledStatusOf(5_000, [both])).toBe('PARTIALLY_REVERSED')
  })

  it('gives each attempt its own key, and treats a key first sent over 24 hours ago as possibly forgotten', () => {
    expect(attemptKeyOf('ten_1', 'pyt_1', 3)).toBe('transfer:ten_1:pyt_1:3')
    const now = new Date('2026-11-30T12:00:00Z')
    expect(outlivedKey(null, now)).toBe(false)
    expect(outlivedKey(new Date(now.getTime() - IDEMPOTENCY_WINDOW_MS), now)).toBe(false)
    expect(outlivedKey(new Date(now.getTime() - IDEMPOTENCY_WINDOW_MS - 1), now)).toBe(true)
  })
})

describe('payout journal lines', () => {
  it('keeps a payout in transit when a transfer will pay it, and moves it out of clearing when paid', () => {
    expect(journalLines({ kind: 'PAYOUT', providerId: 'prv_1', amount: 8_300, fee: 0, inTransit: true })).toEqual([
      { account: 'provider_payable:prv_1', debit: 8_300, credit: 0 },
      { account: inTransitAccount('prv_1'), debit: 0, credit: 8_300 },
    ])
    expect(transferLines('PAID', 'prv_1', 8_300)).toEqual([
      { account: 'payouts_in_transit:prv_1', debit: 8_300, credit: 0 },
      { account: CLEARING, debit: 0, credit: 8_300 },
    ])
    expect(transferLines('REVERSED', 'prv_1', 2_000)).toEqual([
      { account: 'payouts_in_transit:prv_1', debit: 0, credit: 2_000 },
      { account: CLEARING, debit: 2_000, credit: 0 },
    ])
    // A recovery settles what the provider owed: back into clearing from their payable account, nothing in transit.
    expect(transferLines('RECOVERED', 'prv_1', 2_500)).toEqual([
      { account: CLEARING, debit: 2_500, credit: 0 },
      { account: 'provider_payable:prv_1', debit: 0, credit: 2_500 },
    ])
  })
})
