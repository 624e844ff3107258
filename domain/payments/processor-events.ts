/**
 * @module Applying an online processor's signed confirmation (its webhook) to our records, each in a unit of work of
 * its own under the order's lock: a payment SUCCEEDED (the order's money moves and `payment.succeeded` is emitted,
 * in the same transaction, exactly once) or FAILED; a refund confirmed or undone. Payout accounts and transfers
 * (Connect) have their own rules in domain/payouts. Redelivered and out-of-order
 * confirmations change nothing (online-payment-transitions.ts). The caller answers the processor 2xx only after this
 * returned, so a confirmation lost to a crash is delivered again.
 */
import type { Db } from '../../infra/db.ts'
import { runInUnitOfWork, type UnitOfWork } from '../../infra/unit-of-work.ts'
import { recordEvent } from '../events/record-event.ts'
import { applyOrderMoney, lockOrder, type OrderWithLines } from '../orders/order-service.ts'
import { applyAccountUpdated } from '../payouts/payout-accounts.ts'
import { applyTransferReversed } from '../payouts/payout-transfers.ts'
import { failRefund } from './online-payment-service.ts'
import { nextPaymentStatus, nextRefundStatus } from './online-payment-transitions.ts'
import type { OnlineProcessorEvent } from './payment-processor.ts'

/** What a confirmation did: `applied` a change, left things `unchanged` (a repeat), or named no record of ours. */
export type ProcessorEventOutcome = 'applied' | 'unchanged' | 'ignored' | 'unknown_record'

type PaymentEvent = Extract<OnlineProcessorEvent, { kind: 'payment.succeeded' | 'payment.failed' }>
type RefundEvent = Extract<OnlineProcessorEvent, { kind: 'refund.succeeded' | 'refund.failed' }>

/**
 * Applies one verified confirmation.
 * @param processorName - the processor it came from; a payment taken by another one is not touched
 */
export async function applyProcessorEvent(
  db: Db,
  processorName: string,
  event: OnlineProcessorEvent,
  now: Date
): Promise<ProcessorEventOutcome> {
  if (event.kind === 'ignored') return 'ignored'
  if (event.kind === 'account.updated') return applyAccountUpdated(db, event)
  if (event.kind === 'transfer.reversed') return applyTransferReversed(db, event)
  return runInUnitOfWork(db, event.tenantId, async (uow) => {
    const found = await uow.tx.payment.findFirst({
      where: { id: event.paymentId, tenantId: uow.tenantId, processor: processorName },
      select: { orderId: true },
    })
    if (!found) return 'unknown_record'
    const order = await lockOrder(uow, found.orderId)
    return event.kind === 'refund.succeeded' || event.kind === 'refund.failed'
      ? applyRefundEvent(uow, event, now)
      : applyPaymentEvent(uow, order, event, now)
  })
}

async function applyRefundEvent(uow: UnitOfWork, event: RefundEvent, now: Date): Promise<ProcessorEventOutcome> {
  const { tx, tenantId } = uow
  const refund = await tx.refund.findFirst({ where: { id: event.refundId, tenantId, paymentId: event.paymentId } })
  if (!refund) return 'unknown_record'
  const next = nextRefundStatus(refund.status, event.kind === 'refund.succeeded' ? 'SUCCEEDED' : 'FAILED')
  if (!next) return 'unchanged'
  if (next === 'FAILED') await failRefund(uow, refund.id, now)
  else await tx.refund.update({ where: { id: refund.id }, data: { status: 'SUCCEEDED' } })
  return 'applied'
}

/** @param order - locked by the caller */
async function applyPaymentEvent(
  uow: UnitOfWork,
  order: OrderWithLines,
  event: PaymentEvent,
  now: Date
): Promise<ProcessorEventOutcome> {
  const { tx, tenantId } = uow
  // Read under the order's lock: a concurrent confirmation of the same payment has committed or waits for us.
  const payment = await tx.payment.findFirstOrThrow({ where: { id: event.paymentId, tenantId } })
  // The intent is ours only if it is the one we made for this payment (or, after a crash before we stored its id,
  // the metadata we gave it says so: the signature proves the processor sent it).
  if (payment.processorReference && payment.processorReference !== event.intentId) return 'unknown_record'
  const next = nextPaymentStatus(payment.status, event.kind === 'payment.succeeded' ? 'SUCCEEDED' : 'FAILED')
  if (!next) return 'unchanged'
  if (event.kind === 'payment.failed') {
    await tx.payment.update({
      where: { id: payment.id },
      data: {
        status: 'FAILED',
        processorReference: event.intentId,
        failureCode: event.failureCode,
        failureMessage: event.failureMessage,
      },
    })
    return 'applied'
  }
  await tx.payment.update({
    where: { id: payment.id },
    data: {
      status: 'SUCCEEDED',
      processorReference: event.intentId,
      failureCode: null,
      failureMessage: null,
      receivedAt: now,
    },
  })
  await applyOrderMoney(
    uow,
    order,
    { amountPaid: order.amountPaid + payment.amount, amountRefunded: order.amountRefunded },
    now
  )
  await recordEvent(uow, 'payment.succeeded', {
    paymentId: payment.id,
    orderId: order.id,
    amount: payment.amount,
    currency: payment.currency,
  })
  return 'applied'
}
