/**
 * What a reconciliation repairs by itself (domain/reconciliation/repairs.ts): the events the processor's state now
 * calls for, and nothing an operator should decide.
 */
import { describe, expect, it } from 'vitest'
import type { PlatformRecords } from '../../../../domain/reconciliation/platform-records.ts'
import { emptySnapshot, type ProcessorSnapshot } from '../../../../domain/reconciliation/processor-snapshot.ts'
import { repairsOf } from '../../../../domain/reconciliation/repairs.ts'

const created = new Date('2026-11-21T10:00:00Z')
const payment = (id: string, status: 'PENDING' | 'SUCCEEDED' | 'FAILED', intent: string, amount = 5_000) => ({
  id,
  orderId: 'ord_1',
  amount,
  currency: 'USD',
  status,
  processorReference: intent,
  unapplied: false,
  createdAt: created,
  processorFee: 0,
  settledCurrency: null,
  settledAmount: null,
  settledFee: null,
})
const heldDispute = (processorReference: string, status: 'OPEN' | 'WON' | 'LOST' | 'CLOSED', amount = 5_000) => ({
  id: `dsp_${processorReference}`,
  paymentId: 'pay_2',
  intentId: 'pi_2',
  processorReference,
  amount,
  currency: 'USD',
  status,
  fundsWithdrawn: true,
  createdAt: created,
})
const ours = (): PlatformRecords => ({
  payments: [payment('pay_1', 'PENDING', 'pi_1'), payment('pay_2', 'SUCCEEDED', 'pi_2')],
  disputes: [],
  refunds: [
    {
      id: 'ref_1',
      paymentId: 'pay_2',
      amount: 1_000,
      currency: 'USD',
      status: 'SUCCEEDED',
      processorReference: 're_1',
      createdAt: created,
      settledCurrency: null,
      settledAmount: null,
    },
  ],
  transfers: [],
})
const intent = (id: string, status: string, amount = 5_000) => ({
  id,
  amount,
  currency: 'USD',
  status,
  lastPaymentError: false,
  paymentId: null,
  created,
})
const refund = (id: string, status: string, refundId: string | null, amount = 1_000) => ({
  id,
  amount,
  currency: 'USD',
  status,
  paymentIntentId: 'pi_2',
  paymentId: null,
  refundId,
  created,
})

describe('reconciliation repairs (issue 46, item 8)', () => {
  it('applies a success never heard of, a refund Stripe failed later, and records a Dashboard refund', () => {
    const theirs: ProcessorSnapshot = {
      ...emptySnapshot(),
      intents: [intent('pi_1', 'succeeded'), intent('pi_2', 'succeeded')],
      refunds: [refund('re_1', 'failed', 'ref_1'), refund('re_9', 'succeeded', null, 300)],
    }
    expect(
      repairsOf('ten_1', ours(), theirs).map((r) => [
        r.objectId,
        r.event.kind,
        'status' in r.event ? r.event.status : '',
      ])
    ).toEqual([
      ['pi_1', 'payment.succeeded', ''],
      ['re_1', 'refund.updated', 'FAILED'],
      ['re_9', 'refund.updated', 'SUCCEEDED'],
    ])
    const dashboard = repairsOf('ten_1', ours(), theirs)[2]!.event
    expect(dashboard).not.toHaveProperty('subject')
  })

  it("records Stripe's processing fee on a success applied without it, with the success it repeats (issue 58)", () => {
    const theirs: ProcessorSnapshot = {
      ...emptySnapshot(),
      intents: [
        { ...intent('pi_1', 'succeeded'), fee: 175 },
        { ...intent('pi_2', 'succeeded'), fee: 175 },
      ],
    }
    const repairs = repairsOf('ten_1', ours(), theirs)
    // The missed success carries its fee; the one applied with none records it.
    expect(repairs.map((r) => [r.objectId, r.event.kind, 'fee' in r.event ? r.event.fee : undefined])).toEqual([
      ['pi_1', 'payment.succeeded', 175],
      ['pi_2', 'payment.succeeded', 175],
    ])
    const recorded = ours()
    recorded.payments[1]!.processorFee = 175
    expect(repairsOf('ten_1', recorded, theirs).map((r) => r.objectId)).toEqual(['pi_1'])
    // A read that did not expand the fee says nothing of it.
    expect(repairsOf('ten_1', ours(), { ...theirs, intents: [intent('pi_2', 'succeeded')] })).toEqual([])
  })

  it('records what a charge moved on a balance in another currency, when ours says otherwise (issue 58)', () => {
    const settled = { currency: 'EUR', amount: 4_610, fee: 160 }
    const theirs: ProcessorSnapshot = {
      ...emptySnapshot(),
      intents: [{ ...intent('pi_2', 'succeeded'), fee: 175, settled }],
    }
    const recorded = ours()
    recorded.payments[1]!.processorFee = 175
    const [repair] = repairsOf('ten_1', recorded, theirs)
    expect(repair?.event).toMatchObject({ kind: 'payment.succeeded', intentId: 'pi_2', fee: 175, settled })
    Object.assign(recorded.payments[1]!, { settledCurrency: 'EUR', settledAmount: 4_610, settledFee: 160 })
    expect(repairsOf('ten_1', recorded, theirs)).toEqual([])
    // Kept as charged at the processor, converted here: the success again, saying so.
    expect(
      repairsOf('ten_1', recorded, { ...theirs, intents: [{ ...intent('pi_2', 'succeeded'), fee: 175 }] })[0]?.event
    ).toMatchObject({ fee: 175, settled: null })
  })

  it('records what a refund moved on a balance in another currency, its state the same (issue 58)', () => {
    const settled = { currency: 'EUR', amount: -910, fee: 0 }
    const refund = (extra: object = {}): ProcessorSnapshot['refunds'][number] => ({
      id: 're_1',
      amount: 1_000,
      currency: 'USD',
      status: 'succeeded',
      paymentIntentId: 'pi_2',
      paymentId: 'pay_2',
      refundId: 'ref_1',
      created,
      ...extra,
    })
    const theirs = { ...emptySnapshot(), intents: [{ ...intent('pi_2', 'succeeded') }], refunds: [refund({ settled })] }
    const recorded = ours()
    expect(repairsOf('ten_1', recorded, theirs).map((r) => r.event)).toEqual([
      expect.objectContaining({ kind: 'refund.updated', status: 'SUCCEEDED', settled }),
    ])
    Object.assign(recorded.refunds[0]!, { settledCurrency: 'EUR', settledAmount: -910 })
    expect(repairsOf('ten_1', recorded, theirs)).toEqual([])
    // Not read (no balance transaction expanded): nothing to repair.
    expect(repairsOf('ten_1', ours(), { ...theirs, refunds: [refund()] })).toEqual([])
  })

  it('records a dispute Stripe holds in another state, a lost one whose funds came back as won', () => {
    const dispute = {
      id: 'dp_1',
      amount: 5_000,
      currency: 'USD',
      status: 'lost',
      paymentIntentId: 'pi_2',
      paymentId: null,
      created,
      fee: 1_500,
    }
    const theirs = { ...emptySnapshot(), intents: [intent('pi_2', 'succeeded')], disputes: [dispute] }
    expect(repairsOf('ten_1', ours(), theirs).map((r) => r.event)).toEqual([
      expect.objectContaining({ kind: 'dispute.updated', disputeId: 'dp_1', status: 'LOST', fee: 1_500 }),
    ])
    const held = { ...ours(), disputes: [heldDispute('dp_1', 'LOST')] }
    expect(repairsOf('ten_1', held, theirs)).toEqual([])
    const reinstated = { ...theirs, disputes: [{ ...dispute, fundsReinstated: true }] }
    expect(repairsOf('ten_1', held, reinstated).map((r) => r.event)).toEqual([
      expect.objectContaining({ kind: 'dispute.updated', status: 'WON' }),
    ])
  })

  // Issue 58, item 3: a dispute with another id than the payment's one was skipped, so a chargeback lost after an
  // inquiry closed on the same charge was never applied.
  it("applies a charge's second dispute to its own row, whatever the first one's state", () => {
    const inquiry = {
      id: 'dp_1',
      amount: 5_000,
      currency: 'USD',
      status: 'warning_closed',
      paymentIntentId: 'pi_2',
      paymentId: null,
      created,
    }
    const chargeback = { ...inquiry, id: 'dp_2', amount: 4_000, status: 'lost' }
    const theirs = { ...emptySnapshot(), intents: [intent('pi_2', 'succeeded')], disputes: [inquiry, chargeback] }
    const held = { ...ours(), disputes: [heldDispute('dp_1', 'CLOSED')] }
    expect(repairsOf('ten_1', held, theirs)).toEqual([
      {
        objectId: 'dp_2',
        event: expect.objectContaining({ kind: 'dispute.updated', disputeId: 'dp_2', status: 'LOST', amount: 4_000 }),
      },
    ])
    // A dispute id we hold for another payment is an operator's.
    const elsewhere = { ...held, disputes: [...held.disputes, { ...heldDispute('dp_2', 'OPEN'), paymentId: 'pay_1' }] }
    expect(repairsOf('ten_1', elsewhere, theirs)).toEqual([])
  })

  // Issue 58, item 4: an inquiry's escalation whose event was lost leaves the same state, but its funds withdrawn.
  it('records a withdrawal we missed: an inquiry held here that Stripe has escalated to a chargeback', () => {
    const escalated = {
      id: 'dp_1',
      amount: 5_000,
      currency: 'USD',
      status: 'needs_response',
      paymentIntentId: 'pi_2',
      paymentId: null,
      created,
    }
    const theirs = { ...emptySnapshot(), intents: [intent('pi_2', 'succeeded')], disputes: [escalated] }
    const inquiry = { ...ours(), disputes: [{ ...heldDispute('dp_1', 'OPEN'), fundsWithdrawn: false }] }
    expect(repairsOf('ten_1', inquiry, theirs).map((r) => r.event)).toEqual([
      expect.objectContaining({ kind: 'dispute.updated', status: 'OPEN', fundsWithdrawn: true }),
    ])
    const stillInquiry = { ...theirs, disputes: [{ ...escalated, status: 'warning_under_review' }] }
    expect(repairsOf('ten_1', inquiry, stillInquiry)).toEqual([])
  })

  it('applies a reversal of a paid transfer that we do not know of, with what the platform recovered', () => {
    const send = {
      id: 'pyx_1',
      transferId: 'pyt_1',
      amount: 3_000,
      amountReversed: 0,
      currency: 'USD',
      status: 'PAID' as const,
      processorReference: 'tr_1',
      createdAt: created,
    }
    const transfer = { id: 'tr_1', amount: 3_000, amountReversed: 1_200, currency: 'USD', transferId: 'pyt_1', created }
    const mine = { ...ours(), transfers: [send] }
    expect(
      repairsOf('ten_1', mine, { ...emptySnapshot(), transfers: [{ ...transfer, amountRecovered: 200 }] })
    ).toEqual([
      {
        objectId: 'tr_1',
        event: expect.objectContaining({ kind: 'transfer.reversed', amountReversed: 1_200, amountRecovered: 200 }),
      },
    ])
    const known = { ...mine, transfers: [{ ...send, amountReversed: 1_200 }] }
    expect(repairsOf('ten_1', known, { ...emptySnapshot(), transfers: [transfer] })).toEqual([])
  })

  it('leaves amounts that differ, pending objects and states that agree to an operator or to time', () => {
    const theirs: ProcessorSnapshot = {
      ...emptySnapshot(),
      intents: [intent('pi_1', 'succeeded', 4_000), intent('pi_2', 'succeeded')],
      refunds: [
        refund('re_1', 'succeeded', 'ref_1'),
        refund('re_8', 'pending', null),
        refund('re_9', 'failed', null),
        refund('re_7', 'succeeded', 'ref_gone'),
        { ...refund('re_6', 'failed', 'ref_1', 999) },
      ],
    }
    expect(repairsOf('ten_1', ours(), theirs)).toEqual([])
  })
})
