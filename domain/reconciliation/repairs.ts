/**
 * @module What a reconciliation repairs by itself (docs/payments.md, "Reconciliation"), pure: the differences the
 * processor's events would have settled had they come, or had the order been able to take them when they came. Each
 * is an event built from the object as the processor holds it now, applied through the same rules as its webhook
 * (domain/payments/processor-events.ts), so a repair can do nothing a webhook could not:
 *
 * - a payment the processor took that is still PENDING or FAILED here (its webhook never came): the success;
 * - a payment that succeeded here at another cost than the processor's charge carries (another processing fee, or
 *   another amount on a balance kept in another currency; unknown when the success was applied, or the payment older
 *   than their record, issue 58): the success again, which records the processor's and books the difference;
 * - a refund of ours in another final state at the processor (failed days later, or succeeded after we gave up, or
 *   a success stored as `mismatch` because the payment had no room then): the processor's state, through the refund
 *   machine, which checks again whether the payment has room;
 * - a refund the processor made of one of our payments (in its Dashboard) that no record of ours is: recorded;
 * - a dispute of one of our payments in another state here, or not recorded at all (opened, lost, won, reinstated;
 *   a second dispute of a charge too), or whose funds the processor withdrew unbeknown to us (an inquiry escalated):
 *   the processor's state, through the dispute machine, on that dispute's own row (a lost one is charged back, a
 *   reinstated one given back);
 * - a paid payout transfer the processor reversed further than we know (its `transfer.reversed` lost): the reversal,
 *   a recovery or owed to the provider again by the same rules.
 *
 * Everything else (amounts or currencies that differ, objects missing on one side) is left to an operator as a
 * finding.
 */
import { chargeCostChange } from '../payments/intent-outcomes.ts'
import type { OnlineProcessorEvent } from '../payments/online-processor-events.ts'
import {
  intentStatusAsOurs,
  processorDisputeAsOurs,
  processorDisputeWithdrawn,
  refundStatusAsOurs,
} from './processor-statuses.ts'
import type { PlatformRecords } from './platform-records.ts'
import type { ProcessorSnapshot } from './processor-snapshot.ts'

/** A repair: the event to apply, and the processor's object it is about. */
export interface Repair {
  objectId: string
  event: OnlineProcessorEvent
}

/** The repairs a comparison of `ours` with `theirs` allows, for one tenant. */
export function repairsOf(tenantId: string, ours: PlatformRecords, theirs: ProcessorSnapshot): Repair[] {
  const repairs: Repair[] = []
  const intents = new Map(theirs.intents.map((i) => [i.id, i]))
  for (const payment of ours.payments) {
    const intent = payment.processorReference === null ? undefined : intents.get(payment.processorReference)
    if (!intent || intentStatusAsOurs(intent) !== 'SUCCEEDED') continue
    const costDiffers = payment.status === 'SUCCEEDED' && chargeCostChange(payment, intent.fee, intent.settled)
    if (payment.status !== 'PENDING' && payment.status !== 'FAILED' && !costDiffers) continue
    if (intent.amount !== payment.amount || intent.currency !== payment.currency) continue
    repairs.push({
      objectId: intent.id,
      event: {
        kind: 'payment.succeeded',
        eventId: intent.id,
        intentId: intent.id,
        amount: intent.amount,
        currency: intent.currency,
        tenantId,
        paymentId: payment.id,
        ...(intent.fee === undefined ? {} : { fee: intent.fee, settled: intent.settled ?? null }),
      },
    })
  }
  const ourIntents = new Map(
    ours.payments.filter((p) => p.processorReference !== null).map((p) => [p.processorReference!, p])
  )
  for (const refund of theirs.refunds) {
    const status = refundStatusAsOurs(refund.status)
    const mine = ours.refunds.find(
      (r) => r.processorReference === refund.id || (refund.refundId !== null && r.id === refund.refundId)
    )
    const payment = refund.paymentIntentId === null ? undefined : ourIntents.get(refund.paymentIntentId)
    if (!payment || status === 'PENDING' || refund.currency !== payment.currency) continue
    // The same state, but what it moved on a balance in another currency not as we booked it (issue 58): the state
    // again, with that movement.
    const settledDiffers =
      refund.settled !== undefined &&
      (mine?.settledCurrency !== refund.settled.currency || mine.settledAmount !== refund.settled.amount)
    if (mine && ((mine.status === status && !settledDiffers) || mine.amount !== refund.amount)) continue
    // A refund we have no record of is recorded only once it succeeded, and never one that names a refund of ours.
    if (!mine && (status !== 'SUCCEEDED' || refund.refundId !== null)) continue
    repairs.push({
      objectId: refund.id,
      event: {
        kind: 'refund.updated',
        eventId: refund.id,
        ...(mine ? { subject: { tenantId, paymentId: mine.paymentId, refundId: mine.id } } : {}),
        processorRefundId: refund.id,
        intentId: refund.paymentIntentId,
        amount: refund.amount,
        currency: refund.currency,
        status,
        failureMessage: null,
        ...(refund.settled && { settled: refund.settled }),
      },
    })
  }
  const sends = new Map(
    ours.transfers.filter((t) => t.processorReference !== null).map((t) => [t.processorReference!, t])
  )
  for (const transfer of theirs.transfers) {
    const send = sends.get(transfer.id)
    if (send?.status !== 'PAID' || transfer.currency !== send.currency || transfer.amount !== send.amount) continue
    if (transfer.amountReversed <= send.amountReversed) continue
    repairs.push({
      objectId: transfer.id,
      event: {
        kind: 'transfer.reversed',
        eventId: transfer.id,
        tenantId,
        transferId: send.transferId,
        processorReference: transfer.id,
        amountReversed: transfer.amountReversed,
        amountRecovered: transfer.amountRecovered ?? 0,
      },
    })
  }
  const held = new Map(ours.disputes.map((d) => [d.processorReference, d]))
  for (const dispute of theirs.disputes) {
    const payment = dispute.paymentIntentId === null ? undefined : ourIntents.get(dispute.paymentIntentId)
    if (!payment || dispute.currency !== payment.currency || dispute.amount > payment.amount) continue
    const mine = held.get(dispute.id)
    // A dispute id we hold for another payment is an operator's (a finding), never moved by a repair.
    if (mine && mine.paymentId !== payment.id) continue
    const status = processorDisputeAsOurs(dispute)
    const fundsWithdrawn = processorDisputeWithdrawn(dispute)
    // The same state but a withdrawal we never recorded (an inquiry escalated, its event lost) holds no reserve.
    if (mine?.status === status && (mine.fundsWithdrawn || !fundsWithdrawn)) continue
    repairs.push({
      objectId: dispute.id,
      event: {
        kind: 'dispute.updated',
        eventId: dispute.id,
        disputeId: dispute.id,
        intentId: dispute.paymentIntentId,
        amount: dispute.amount,
        currency: dispute.currency,
        status,
        fee: dispute.fee ?? 0,
        fundsWithdrawn,
        ...(dispute.settled && { settled: dispute.settled }),
      },
    })
  }
  return repairs
}
