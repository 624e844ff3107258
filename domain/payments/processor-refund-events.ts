/**
 * @module A refund's events applied to our refunds (docs/payments.md, "Processor events"): ours move through the
 * refund machine (refund-state.ts), one made in the processor's dashboard is recorded as a refund of the payment its
 * intent paid, and of two events about one refund the one the processor created later says its state. A refund event
 * that would move one of our FAILED refunds again is checked against the processor first (refundAsHeld).
 */
import type { OrderWithLines } from '../orders/order-service.ts'
import type { Payment } from '../../generated/prisma/client.ts'
import { runInUnitOfWork, type UnitOfWork } from '../../infra/unit-of-work.ts'
import { newId } from '../ids.ts'
import {
  isStale,
  lockedPayment,
  mismatch,
  type Kind,
  type ProcessorEventContext,
  type ProcessorEventOutcome,
} from './processor-event-context.ts'
import type { ProcessorEventEnvelope } from './online-processor-events.ts'
import { moveRefund } from './refund-state.ts'
import { refundableOf } from './refund-transitions.ts'

/**
 * A refund event that would move one of our FAILED refunds again. At the processor a failed refund is final, so such
 * an event is older than the failure (whole-second timestamps cannot always tell: a `refund.created` that said
 * succeeded, delivered after the `refund.failed` of the same second, revived the refund), or our FAILED was our own
 * (we gave up asking). In doubt, the processor is asked for the refund as it holds it now, and that state is applied
 * instead of the event's word (issue 46).
 */
export async function refundAsHeld(
  ctx: ProcessorEventContext,
  tenantId: string,
  event: Kind<'refund.updated'>
): Promise<Kind<'refund.updated'>> {
  const retrieve = ctx.processor.retrieveRefund
  if (event.status === 'FAILED' || !retrieve) return event
  const ours = await runInUnitOfWork(ctx.db, tenantId, ({ tx }) =>
    tx.refund.findFirst({
      where: {
        tenantId,
        OR: [
          { processorReference: event.processorRefundId },
          ...(event.subject ? [{ id: event.subject.refundId }] : []),
        ],
      },
      select: { status: true, settledCurrency: true, payment: { select: { settledCurrency: true } } },
    })
  )
  // A success of a converted payment's refund whose movement on the balance we have not read (issue 58): the event's
  // refund does not carry its balance transaction, the processor's answer to a read does.
  const unread =
    event.status === 'SUCCEEDED' && !event.settled && ours?.payment.settledCurrency && !ours.settledCurrency
  if (ours?.status !== 'FAILED' && !unread) return event
  const held = await retrieve(event.processorRefundId)
  return {
    ...event,
    status: held.status,
    failureMessage: held.failureMessage,
    ...(held.settled && { settled: held.settled }),
  }
}

/** A refund's state at the processor, applied to our refund of the payment (its order locked). */
export async function applyRefundEvent(
  uow: UnitOfWork,
  ctx: ProcessorEventContext,
  envelope: ProcessorEventEnvelope,
  event: Kind<'refund.updated'>
): Promise<ProcessorEventOutcome> {
  const byPayment = event.subject
    ? { id: event.subject.paymentId }
    : event.intentId
      ? { processorReference: event.intentId }
      : undefined
  const found = byPayment && (await lockedPayment(uow, ctx.processor.name, byPayment))
  if (!found) return 'unknown_record'
  const { payment, order } = found
  if (await isStale(uow, ctx, envelope)) return 'unchanged'
  const refund = await uow.tx.refund.findFirst({
    where: {
      tenantId: uow.tenantId,
      paymentId: payment.id,
      OR: [{ processorReference: event.processorRefundId }, ...(event.subject ? [{ id: event.subject.refundId }] : [])],
    },
  })
  const subject = {
    objectType: 'REFUND' as const,
    objectId: refund?.id ?? null,
    processorReference: event.processorRefundId,
  }
  if (event.currency !== payment.currency || (refund && refund.amount !== event.amount)) {
    return mismatch(uow, ctx, subject, refund ?? payment, event, 'refund event')
  }
  if (refund?.status === 'FAILED' && event.status === 'SUCCEEDED') {
    // Stripe's later word that a refund we had given up on did go through: it counts again only if the payment still
    // has room for it (another refund may have taken that room meanwhile); else the books and Stripe disagree.
    const withRefunds = await uow.tx.payment.findFirstOrThrow({
      where: { id: payment.id, tenantId: uow.tenantId },
      include: { refunds: true, disputes: true },
    })
    const room = refundableOf(withRefunds)
    if (refund.amount > room) return mismatch(uow, ctx, subject, { ...payment, amount: room }, event, 'refund event')
  }
  if (refund) {
    const moved = await moveRefund(uow, order, refund, event.status, ctx.now, {
      processorReference: event.processorRefundId,
      failureMessage: event.failureMessage,
      settled: event.settled,
    })
    return moved ? 'applied' : 'unchanged'
  }
  if (event.subject) return 'unknown_record'
  return recordDashboardRefund(uow, ctx, order, payment, event)
}

/**
 * A refund made at the processor directly (its dashboard): recorded as a refund of the payment, origin PROCESSOR, and
 * moved to the state the processor reports. One the payment cannot hold (more than is left to refund) is reported
 * instead of recorded. A failed one is recorded too, though it moved no money: its event, applied, is what makes an
 * older word about the refund stale (a `refund.created` that said succeeded, delivered after the `refund.failed`),
 * and its row is what has that doubt asked of the processor (refundAsHeld); ignored, the older success counted money
 * that never left (issue 58).
 */
async function recordDashboardRefund(
  uow: UnitOfWork,
  ctx: ProcessorEventContext,
  order: OrderWithLines,
  payment: Payment,
  event: Kind<'refund.updated'>
): Promise<ProcessorEventOutcome> {
  const withRefunds = await uow.tx.payment.findFirstOrThrow({
    where: { id: payment.id, tenantId: uow.tenantId },
    include: { refunds: true, disputes: true },
  })
  // A failed refund holds no room and moves no money: there is nothing for the payment to be unable to hold.
  const heldOrCounted = event.status !== 'FAILED'
  if (heldOrCounted && (payment.status !== 'SUCCEEDED' || event.amount > refundableOf(withRefunds))) {
    const subject = { objectType: 'REFUND' as const, objectId: null, processorReference: event.processorRefundId }
    const refundable = payment.status === 'SUCCEEDED' ? refundableOf(withRefunds) : 0
    return mismatch(uow, ctx, subject, { amount: refundable, currency: payment.currency }, event, 'refund event')
  }
  const refund = await uow.tx.refund.create({
    data: {
      id: newId('refund'),
      tenantId: uow.tenantId,
      paymentId: payment.id,
      orderId: order.id,
      amount: event.amount,
      currency: payment.currency,
      reason: 'OTHER',
      method: payment.method,
      status: 'PENDING',
      origin: 'PROCESSOR',
      processorReference: event.processorRefundId,
    },
  })
  await moveRefund(uow, order, refund, event.status, ctx.now, {
    failureMessage: event.failureMessage,
    settled: event.settled,
  })
  return 'applied'
}
