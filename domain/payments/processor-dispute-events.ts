/**
 * @module A dispute's events applied to the payment it disputes (docs/payments.md, "Processor events"; the dispute
 * machine: dispute-transitions.ts): its state, amounts and fee on the payment, what a lost dispute took on the order,
 * and a `payment.disputed` event. An event that would undo a loss is checked against the processor first
 * (disputeAsHeld).
 */
import { runInUnitOfWork, type UnitOfWork } from '../../infra/unit-of-work.ts'
import { recordEvent } from '../events/record-event.ts'
import { chargedBackDelta, disputeStep } from './dispute-transitions.ts'
import type { ProcessorEventEnvelope } from './online-processor-events.ts'
import {
  isStale,
  lockedPayment,
  mismatch,
  type Kind,
  type ProcessorEventContext,
  type ProcessorEventOutcome,
} from './processor-event-context.ts'

/**
 * A dispute event that would undo a loss (a lost dispute reported won or closed). At the processor a lost dispute
 * stays lost unless its funds are reinstated, and money moves back to the provider with it: in that doubt the
 * processor is asked for the dispute as it holds it now, and that is applied instead of the event's word (issue 46).
 */
export async function disputeAsHeld(
  ctx: ProcessorEventContext,
  tenantId: string,
  event: Kind<'dispute.updated'>
): Promise<Kind<'dispute.updated'>> {
  const retrieve = ctx.processor.retrieveDispute
  if (!retrieve || !event.intentId) return event
  const intentId = event.intentId
  const ours = await runInUnitOfWork(ctx.db, tenantId, ({ tx }) =>
    tx.payment.findFirst({
      where: { tenantId, processor: ctx.processor.name, processorReference: intentId },
      select: { disputeStatus: true },
    })
  )
  if (!ours || disputeStep(ours.disputeStatus, event.status) !== 'ask') return event
  return { ...event, ...(await retrieve(event.disputeId)) }
}

/** A dispute opened, changed or closed, applied to the payment it disputes (its order locked). */
export async function applyDisputeEvent(
  uow: UnitOfWork,
  ctx: ProcessorEventContext,
  envelope: ProcessorEventEnvelope,
  event: Kind<'dispute.updated'>
): Promise<ProcessorEventOutcome> {
  const found = event.intentId && (await lockedPayment(uow, ctx.processor.name, { processorReference: event.intentId }))
  if (!found) return 'unknown_record'
  const { payment, order } = found
  if (await isStale(uow, ctx, envelope)) return 'unchanged'
  if (event.currency !== payment.currency || event.amount > payment.amount) {
    const subject = { objectType: 'DISPUTE' as const, objectId: payment.id, processorReference: event.disputeId }
    return mismatch(uow, ctx, subject, payment, event, 'dispute event')
  }
  // The dispute's own states order its events (whole-second timestamps cannot): a decided dispute never reopens, a
  // final one never moves. An event that would undo a loss was checked against the processor before the unit
  // (disputeAsHeld), so it carries the processor's current word and is applied.
  if (disputeStep(payment.disputeStatus, event.status) === 'stale') return 'unchanged'
  const amountLost = event.status === 'LOST' ? event.amount : 0
  if (
    payment.disputeStatus === event.status &&
    payment.disputeReference === event.disputeId &&
    payment.amountDisputed === event.amount &&
    payment.amountLost === amountLost &&
    payment.disputeFee === event.fee
  ) {
    return 'unchanged'
  }
  const wasLost = payment.disputeStatus === 'LOST'
  const lost = event.status === 'LOST'
  await uow.tx.payment.update({
    where: { id: payment.id },
    data: {
      disputeStatus: event.status,
      disputeReference: event.disputeId,
      amountDisputed: event.amount,
      amountLost,
      disputeFee: event.fee,
      // The instants settlements count a chargeback between (written when they happen, never back-dated).
      ...(lost && !wasLost ? { disputeLostAt: ctx.now } : {}),
      ...(wasLost && !lost ? { disputeReinstatedAt: ctx.now } : {}),
    },
  })
  // What the payer's bank took back shows on the order, for a payment the order applied (an unapplied one never
  // counted there). The order's status keeps what was paid: the session was delivered, and the dispute is its own.
  const chargedBack = chargedBackDelta(payment.disputeStatus, event.status, payment.amountLost, amountLost)
  if (chargedBack !== 0 && !payment.unapplied) {
    await uow.tx.order.update({
      where: { id: order.id },
      data: { amountChargedBack: { increment: chargedBack } },
    })
  }
  await recordEvent(
    uow,
    'payment.disputed',
    {
      paymentId: payment.id,
      orderId: order.id,
      status: event.status,
      amount: event.amount,
      amountLost,
      fee: event.fee,
      currency: payment.currency,
    },
    { createdAt: ctx.now }
  )
  return 'applied'
}
