/**
 * Online payments' pure rules: what a processor's confirmation does to a payment or refund in any order and however
 * often it is redelivered. How Stripe's signed events map to them: test/unit/adapters/stripe/stripe-processor.test.ts.
 */
import { describe, expect, it } from 'vitest'
import { nextPaymentStatus } from '../../../../domain/payments/online-payment-transitions.ts'
import { nextRefundStatus, refundableOf, refundedDelta } from '../../../../domain/payments/refund-transitions.ts'

describe('payment transitions', () => {
  it('settles a pending payment either way, and never moves a succeeded one', () => {
    expect(nextPaymentStatus('PENDING', 'SUCCEEDED')).toBe('SUCCEEDED')
    expect(nextPaymentStatus('PENDING', 'FAILED')).toBe('FAILED')
    expect(nextPaymentStatus('SUCCEEDED', 'SUCCEEDED')).toBeUndefined() // a redelivery
    expect(nextPaymentStatus('SUCCEEDED', 'FAILED')).toBeUndefined() // an earlier attempt's failure, late
  })

  it('lets a failed payment succeed (the payer tried the intent again), but not fail twice', () => {
    expect(nextPaymentStatus('FAILED', 'SUCCEEDED')).toBe('SUCCEEDED')
    expect(nextPaymentStatus('FAILED', 'FAILED')).toBeUndefined()
  })

  it('cancels a pending or failed payment for good, and never a succeeded one', () => {
    expect(nextPaymentStatus('PENDING', 'CANCELED')).toBe('CANCELED')
    expect(nextPaymentStatus('FAILED', 'CANCELED')).toBe('CANCELED')
    expect(nextPaymentStatus('SUCCEEDED', 'CANCELED')).toBeUndefined()
    expect(nextPaymentStatus('CANCELED', 'SUCCEEDED')).toBeUndefined()
    expect(nextPaymentStatus('CANCELED', 'FAILED')).toBeUndefined()
  })
})

describe('the refund machine', () => {
  it('settles a pending refund either way; the later word wins between succeeded and failed; pending moves nothing', () => {
    expect(nextRefundStatus('PENDING', 'SUCCEEDED')).toBe('SUCCEEDED')
    expect(nextRefundStatus('PENDING', 'FAILED')).toBe('FAILED')
    expect(nextRefundStatus('SUCCEEDED', 'FAILED')).toBe('FAILED')
    expect(nextRefundStatus('FAILED', 'SUCCEEDED')).toBe('SUCCEEDED')
    expect(nextRefundStatus('SUCCEEDED', 'SUCCEEDED')).toBeUndefined()
    expect(nextRefundStatus('SUCCEEDED', 'PENDING')).toBeUndefined() // a stale answer never undoes a settled refund
    expect(nextRefundStatus('FAILED', 'PENDING')).toBeUndefined()
  })

  it('moves the refunded amount exactly once into SUCCEEDED and once out of it', () => {
    expect(refundedDelta(null, 'SUCCEEDED', 40)).toBe(40) // a recorded refund
    expect(refundedDelta(null, 'PENDING', 40)).toBe(0)
    expect(refundedDelta('PENDING', 'SUCCEEDED', 40)).toBe(40)
    expect(refundedDelta('PENDING', 'FAILED', 40)).toBe(0)
    expect(refundedDelta('SUCCEEDED', 'FAILED', 40)).toBe(-40)
    expect(refundedDelta('FAILED', 'SUCCEEDED', 40)).toBe(40)
    // Any path through the machine nets the refunded amount to what its last status counts.
    const statuses = ['PENDING', 'SUCCEEDED', 'FAILED'] as const
    for (const a of statuses)
      for (const b of statuses)
        for (const c of statuses) {
          const net = refundedDelta(null, a, 7) + refundedDelta(a, b, 7) + refundedDelta(b, c, 7)
          expect(net).toBe(c === 'SUCCEEDED' ? 7 : 0)
        }
  })

  it('holds pending refunds against what is refundable', () => {
    const refunds = [
      { status: 'SUCCEEDED' as const, amount: 1_000 },
      { status: 'PENDING' as const, amount: 500 },
      { status: 'FAILED' as const, amount: 2_000 },
    ]
    expect(refundableOf({ amount: 4_000, amountRefunded: 1_000, refunds, disputes: [] })).toBe(2_500)
  })

  it("holds what the payer's bank took or holds against what is refundable, never below nothing", () => {
    const dispute = { status: 'OPEN' as const, amount: 1_500, amountLost: 0, fundsWithdrawnAt: null }
    const payment = { amount: 4_000, amountRefunded: 1_000, refunds: [] }
    // An inquiry (no funds withdrawn) and a dispute won hold nothing; a chargeback holds its amount; a loss its loss.
    expect(refundableOf({ ...payment, disputes: [dispute] })).toBe(3_000)
    expect(refundableOf({ ...payment, disputes: [{ ...dispute, status: 'WON', fundsWithdrawnAt: new Date() }] })).toBe(
      3_000
    )
    expect(refundableOf({ ...payment, disputes: [{ ...dispute, fundsWithdrawnAt: new Date() }] })).toBe(1_500)
    expect(refundableOf({ ...payment, disputes: [{ ...dispute, status: 'LOST', amountLost: 1_200 }] })).toBe(1_800)
    expect(refundableOf({ ...payment, disputes: [{ ...dispute, status: 'LOST', amountLost: 4_000 }] })).toBe(0)
  })
})
