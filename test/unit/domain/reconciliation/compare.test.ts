/**
 * The reconciliation's comparison (domain/reconciliation/compare.ts and its compare-*.ts; the processor's states as
 * ours: processor-statuses.ts): every difference between our records and the processor's, and none where they agree,
 * whatever the order of either side.
 */
import { describe, expect, it } from 'vitest'
import { compareWithProcessor, unmatchedReferences } from '../../../../domain/reconciliation/compare.ts'
import type {
  OurDispute,
  OurPayment,
  OurRefund,
  OurTransfer,
  PlatformRecords,
} from '../../../../domain/reconciliation/platform-records.ts'
import {
  emptySnapshot,
  type ProcessorDispute,
  type ProcessorIntent,
  type ProcessorSnapshot,
} from '../../../../domain/reconciliation/processor-snapshot.ts'
import {
  disputeStatusAsOurs,
  intentStatusAsOurs,
  refundStatusAsOurs,
} from '../../../../domain/reconciliation/processor-statuses.ts'

const window = { from: new Date('2026-11-20T00:00:00Z'), to: new Date('2026-11-22T00:00:00Z') }
const inside = new Date('2026-11-21T10:00:00Z')
const before = new Date('2026-11-19T23:30:00Z')

const payment = (over: Partial<OurPayment> = {}): OurPayment => ({
  id: 'pay_1',
  orderId: 'ord_1',
  amount: 5000,
  currency: 'USD',
  status: 'SUCCEEDED',
  processorReference: 'pi_1',
  unapplied: false,
  createdAt: inside,
  processorFee: 0,
  settledCurrency: null,
  settledAmount: null,
  settledFee: null,
  ...over,
})
const ourDispute = (over: Partial<OurDispute> = {}): OurDispute => ({
  id: 'dsp_1',
  paymentId: 'pay_1',
  intentId: 'pi_1',
  processorReference: 'dp_1',
  amount: 5000,
  currency: 'USD',
  status: 'OPEN',
  fundsWithdrawn: true,
  createdAt: inside,
  ...over,
})
const intent = (over: Partial<ProcessorIntent> = {}): ProcessorIntent => ({
  id: 'pi_1',
  amount: 5000,
  currency: 'USD',
  status: 'succeeded',
  lastPaymentError: false,
  paymentId: 'pay_1',
  created: inside,
  ...over,
})
const refund = (over: Partial<OurRefund> = {}): OurRefund => ({
  id: 'ref_1',
  paymentId: 'pay_1',
  amount: 1000,
  currency: 'USD',
  status: 'SUCCEEDED',
  processorReference: 're_1',
  createdAt: inside,
  settledCurrency: null,
  settledAmount: null,
  ...over,
})
const send = (over: Partial<OurTransfer> = {}): OurTransfer => ({
  id: 'pyx_1',
  transferId: 'pyt_1',
  amount: 3000,
  amountReversed: 0,
  currency: 'USD',
  status: 'PAID',
  processorReference: 'tr_1',
  createdAt: inside,
  ...over,
})
const ours = (over: Partial<PlatformRecords> = {}): PlatformRecords => ({
  payments: [],
  disputes: [],
  refunds: [],
  transfers: [],
  ...over,
})
const theirs = (over: Partial<ProcessorSnapshot> = {}): ProcessorSnapshot => ({ ...emptySnapshot(), ...over })
const theirDispute = (over: Partial<ProcessorDispute> = {}): ProcessorDispute => ({
  id: 'dp_1',
  amount: 5000,
  currency: 'USD',
  status: 'needs_response',
  paymentIntentId: 'pi_1',
  paymentId: 'pay_1',
  created: inside,
  ...over,
})
const kinds = (o: PlatformRecords, t: ProcessorSnapshot) =>
  compareWithProcessor(o, t, window).differences.map(
    (d) => `${d.kind} ${d.objectType} ${d.objectId ?? d.processorReference}`
  )

describe("the processor's statuses read as ours", () => {
  it('maps payment intents, a failed attempt being requires_payment_method with an error', () => {
    expect(intentStatusAsOurs({ status: 'succeeded', lastPaymentError: false })).toBe('SUCCEEDED')
    expect(intentStatusAsOurs({ status: 'canceled', lastPaymentError: true })).toBe('CANCELED')
    expect(intentStatusAsOurs({ status: 'requires_payment_method', lastPaymentError: true })).toBe('FAILED')
    for (const status of ['requires_payment_method', 'requires_confirmation', 'requires_action', 'processing']) {
      expect(intentStatusAsOurs({ status, lastPaymentError: false }), status).toBe('PENDING')
    }
  })

  it('maps refunds and disputes', () => {
    expect(['pending', 'requires_action', 'succeeded', 'failed', 'canceled'].map(refundStatusAsOurs)).toEqual([
      'PENDING',
      'PENDING',
      'SUCCEEDED',
      'FAILED',
      'FAILED',
    ])
    expect(
      [
        'needs_response',
        'under_review',
        'warning_needs_response',
        'won',
        'lost',
        'warning_closed',
        'charge_refunded',
      ].map(disputeStatusAsOurs)
    ).toEqual(['OPEN', 'OPEN', 'OPEN', 'WON', 'LOST', 'CLOSED', 'CLOSED'])
  })
})

describe('compareWithProcessor', () => {
  it('finds nothing when both sides agree, and counts what it compared', () => {
    const o = ours({
      payments: [payment()],
      disputes: [ourDispute({ status: 'LOST' })],
      refunds: [refund()],
      transfers: [send({ amountReversed: 500 })],
    })
    const t = theirs({
      intents: [intent()],
      refunds: [
        { ...refund(), id: 're_1', status: 'succeeded', paymentIntentId: 'pi_1', refundId: 'ref_1', created: inside },
      ],
      disputes: [
        {
          id: 'dp_1',
          amount: 5000,
          currency: 'USD',
          status: 'lost',
          paymentIntentId: 'pi_1',
          paymentId: 'pay_1',
          created: inside,
        },
      ],
      transfers: [
        { id: 'tr_1', amount: 3000, amountReversed: 500, currency: 'USD', transferId: 'pyt_1', created: inside },
      ],
    })
    const comparison = compareWithProcessor(o, t, window)
    expect(comparison.differences).toEqual([])
    expect(comparison.checked).toEqual({ payments: 1, refunds: 1, disputes: 1, transfers: 1 })
  })

  it('reports ours missing at the processor only when the processor should hold it', () => {
    const o = ours({
      payments: [
        payment(),
        // Never reached the processor (its call failed before an intent existed): nothing to miss.
        payment({ id: 'pay_2', status: 'PENDING', processorReference: null }),
        payment({ id: 'pay_3', status: 'CANCELED', processorReference: 'pi_3' }),
      ],
    })
    expect(kinds(o, theirs())).toEqual(['MISSING_AT_PROCESSOR PAYMENT pay_1', 'MISSING_AT_PROCESSOR PAYMENT pay_3'])
  })

  it("reports the tenant's objects no record of ours names, inside the window only", () => {
    const t = theirs({
      intents: [intent({ id: 'pi_9', paymentId: null }), intent({ id: 'pi_8', paymentId: 'pay_8', created: before })],
      refunds: [
        {
          id: 're_9',
          amount: 100,
          currency: 'USD',
          status: 'succeeded',
          paymentIntentId: 'pi_1',
          paymentId: 'pay_1',
          refundId: null,
          created: inside,
        },
      ],
      transfers: [{ id: 'tr_9', amount: 10, amountReversed: 0, currency: 'USD', transferId: null, created: inside }],
      disputes: [
        {
          id: 'dp_9',
          amount: 5000,
          currency: 'USD',
          status: 'needs_response',
          paymentIntentId: 'pi_1',
          paymentId: 'pay_1',
          created: inside,
        },
      ],
    })
    expect(kinds(ours({ payments: [payment()] }), { ...t, intents: [...t.intents, intent()] })).toEqual([
      'MISSING_IN_PLATFORM PAYMENT pi_9',
      'MISSING_IN_PLATFORM REFUND re_9',
      // Keyed by the processor's id: a payment's second dispute is a finding of its own.
      'MISSING_IN_PLATFORM DISPUTE dp_9',
      'MISSING_IN_PLATFORM TRANSFER tr_9',
    ])
  })

  it('matches an intent by the payment id in its metadata when ours has no intent id yet', () => {
    const o = ours({ payments: [payment({ status: 'PENDING', processorReference: null })] })
    expect(kinds(o, theirs({ intents: [intent({ status: 'requires_payment_method' })] }))).toEqual([])
    expect(kinds(o, theirs({ intents: [intent()] }))).toEqual(['STATUS_MISMATCH PAYMENT pay_1'])
  })

  it('reports amount, currency and status mismatches, and not amounts in two currencies', () => {
    expect(kinds(ours({ payments: [payment()] }), theirs({ intents: [intent({ amount: 4500 })] }))).toEqual([
      'AMOUNT_MISMATCH PAYMENT pay_1',
    ])
    expect(
      kinds(ours({ payments: [payment()] }), theirs({ intents: [intent({ amount: 4500, currency: 'EUR' })] }))
    ).toEqual(['CURRENCY_MISMATCH PAYMENT pay_1'])
    const comparison = compareWithProcessor(
      ours({ payments: [payment({ status: 'PENDING' })] }),
      theirs({ intents: [intent({ amount: 4000 })] }),
      window
    )
    expect(comparison.differences.map((d) => d.kind)).toEqual(['AMOUNT_MISMATCH', 'STATUS_MISMATCH'])
    expect(comparison.differences[1]).toMatchObject({
      objectId: 'pay_1',
      processorReference: 'pi_1',
      ours: { amount: 5000, currency: 'USD', status: 'PENDING' },
      theirs: { amount: 4000, currency: 'USD', status: 'succeeded' },
      detail: 'Payment pay_1 (intent pi_1) is PENDING here and succeeded at the processor.',
    })
  })

  it('treats PENDING and FAILED payments as the same money', () => {
    const failedThere = intent({ status: 'requires_payment_method', lastPaymentError: true })
    expect(kinds(ours({ payments: [payment({ status: 'PENDING' })] }), theirs({ intents: [failedThere] }))).toEqual([])
    expect(
      kinds(
        ours({ payments: [payment({ status: 'FAILED' })] }),
        theirs({ intents: [intent({ status: 'processing' })] })
      )
    ).toEqual([])
    expect(kinds(ours({ payments: [payment({ status: 'CANCELED' })] }), theirs({ intents: [failedThere] }))).toEqual([
      'STATUS_MISMATCH PAYMENT pay_1',
    ])
  })

  it('compares refunds by status and a refund made at the processor is matched by our id in its metadata', () => {
    const theirsRefund = {
      id: 're_1',
      amount: 1000,
      currency: 'USD',
      status: 'pending',
      paymentIntentId: 'pi_1',
      paymentId: 'pay_1',
      refundId: 'ref_1',
      created: inside,
    }
    expect(kinds(ours({ refunds: [refund()] }), theirs({ refunds: [theirsRefund] }))).toEqual([
      'STATUS_MISMATCH REFUND ref_1',
    ])
    expect(
      kinds(
        ours({ refunds: [refund({ status: 'PENDING', processorReference: null })] }),
        theirs({ refunds: [theirsRefund] })
      )
    ).toEqual([])
  })

  it('compares transfers net of reversals, and a send we think failed that the processor made', () => {
    const transfer = {
      id: 'tr_1',
      amount: 3000,
      amountReversed: 1000,
      currency: 'USD',
      transferId: 'pyt_1',
      created: inside,
    }
    const differences = compareWithProcessor(
      ours({ transfers: [send()] }),
      theirs({ transfers: [transfer] }),
      window
    ).differences
    expect(differences).toEqual([
      expect.objectContaining({
        kind: 'AMOUNT_MISMATCH',
        objectType: 'TRANSFER',
        objectId: 'pyt_1',
        ours: { amount: 3000, currency: 'USD', status: 'PAID' },
        theirs: { amount: 2000, currency: 'USD', status: 'PAID' },
      }),
    ])
    expect(
      kinds(ours({ transfers: [send({ status: 'FAILED', amountReversed: 1000 })] }), theirs({ transfers: [transfer] }))
    ).toEqual(['STATUS_MISMATCH TRANSFER pyt_1'])
  })

  it('compares disputes: status, amount, and one we recorded the processor does not have', () => {
    const dispute = theirDispute({ status: 'won' })
    const disputed = ours({ payments: [payment()], disputes: [ourDispute({ amount: 4000 })] })
    expect(kinds(disputed, theirs({ intents: [intent()], disputes: [dispute] }))).toEqual([
      'AMOUNT_MISMATCH DISPUTE dsp_1',
      'STATUS_MISMATCH DISPUTE dsp_1',
    ])
    expect(kinds(disputed, theirs({ intents: [intent()] }))).toEqual(['MISSING_AT_PROCESSOR DISPUTE dsp_1'])
  })

  // Issue 58, item 3: a payment held one dispute, and a dispute with another id was skipped.
  it("compares each of a charge's disputes with its own row, and reports one we lack whenever it was created", () => {
    const closed = theirDispute({ status: 'warning_closed' })
    const second = theirDispute({ id: 'dp_2', status: 'lost', amount: 3000, created: before })
    const t = theirs({ intents: [intent()], disputes: [closed, second] })
    const both = ours({
      payments: [payment()],
      disputes: [
        ourDispute({ status: 'CLOSED' }),
        ourDispute({ id: 'dsp_2', processorReference: 'dp_2', status: 'LOST', amount: 3000, createdAt: before }),
      ],
    })
    expect(kinds(both, t)).toEqual([])
    expect(compareWithProcessor(both, t, window).checked.disputes).toBe(2)
    // The second one's events never came: created before the window, it is still a charge we hold disputes of.
    const firstOnly = ours({ payments: [payment()], disputes: [ourDispute({ status: 'CLOSED' })] })
    expect(kinds(firstOnly, t)).toEqual(['MISSING_IN_PLATFORM DISPUTE dp_2'])
    // Of a charge we hold no dispute of, one created before the window is left to the run whose window holds it.
    expect(kinds(ours({ payments: [payment()] }), t)).toEqual(['MISSING_IN_PLATFORM DISPUTE dp_1'])
  })

  it('gives the same differences whatever the order of either side', () => {
    const o = ours({ payments: [payment(), payment({ id: 'pay_2', processorReference: 'pi_2' })] })
    const t = theirs({
      intents: [
        intent({ id: 'pi_2', paymentId: 'pay_2', amount: 1 }),
        intent({ amount: 2 }),
        intent({ id: 'pi_3', paymentId: null }),
      ],
    })
    const forward = kinds(o, t)
    const backward = kinds({ ...o, payments: [...o.payments].reverse() }, { ...t, intents: [...t.intents].reverse() })
    expect(new Set(backward)).toEqual(new Set(forward))
    expect(forward).toHaveLength(3)
  })
})

describe('unmatchedReferences', () => {
  it('names what ours point at and the listing did not show', () => {
    const o = ours({
      payments: [payment(), payment({ id: 'pay_2', processorReference: 'pi_2' })],
      disputes: [ourDispute({ id: 'dsp_2', paymentId: 'pay_2', intentId: 'pi_2', processorReference: 'dp_2' })],
      refunds: [refund({ processorReference: 're_5' }), refund({ id: 'ref_2', processorReference: null })],
      transfers: [send({ processorReference: 'tr_7' })],
    })
    // Every dispute of a charge we hold disputes of is read; and a dispute or refund that changed that we hold no row
    // of (a Dashboard refund of an older intent is in no listing of the tenant's: issue 76).
    const changed = { intents: [], refunds: ['re_9'], disputes: ['dp_8'], transfers: [] }
    expect(unmatchedReferences(o, theirs({ intents: [intent()] }), changed)).toEqual({
      intents: ['pi_2'],
      refunds: ['re_5', 're_9'],
      disputes: ['dp_2', 'dp_8'],
      transfers: ['tr_7'],
      disputedIntents: ['pi_2'],
    })
  })
})
