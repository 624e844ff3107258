/**
 * @module Refunds (docs/payments.md): money handed back from a succeeded payment, as its own record linked to the
 * payment and its order. Partial or full, several per payment, never more in total than the payment. Like payments,
 * a refund locks the order first, so concurrent refunds of one payment cannot together exceed it.
 */
import type { PaymentMethod, RefundReason } from '../../generated/prisma/enums.ts'
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import { invalidStateTransition, validationError } from '../errors.ts'
import { newId } from '../ids.ts'
import { applyOrderMoney, lockOrder } from '../orders/order-service.ts'
import { amountExceedsRefundable } from './payment-errors.ts'
import { refundOnline, retriedRefundOf } from './online-payment-service.ts'
import type { OnlinePaymentProcessor, PaymentProcessor } from './payment-processor.ts'
import { getPayment, type PaymentWithRefunds } from './payment-service.ts'

type RefundRow = PaymentWithRefunds['refunds'][number]

export interface RefundInput {
  /** Integer minor units; defaults to everything not yet refunded. */
  amount?: number
  /** Optional; when given it must be the payment's currency. */
  currency?: string
  reason: RefundReason
  /** How the money went back; defaults to the payment's method. */
  method?: PaymentMethod
  reference?: string
}

/**
 * Refunds (part of) a payment and updates its order's refunded amount and status.
 * @returns the new refund and the payment after it
 * @throws AppError `not_found` (payment), `validation_error` (`currency_mismatch`), `invalid_state_transition`
 *   (payment not SUCCEEDED, or nothing left to refund), `amount_exceeds_refundable`
 */
export async function refundPayment(
  uow: UnitOfWork,
  paymentId: string,
  input: RefundInput,
  processors: readonly PaymentProcessor[],
  now: Date,
  online?: { processor: OnlinePaymentProcessor; idempotencyKey?: string }
): Promise<{ refund: RefundRow; payment: PaymentWithRefunds }> {
  const { tx, tenantId } = uow
  const { orderId } = await getPayment(uow, paymentId)
  const order = await lockOrder(uow, orderId)
  // Read again under the order's lock: a refund that committed while we waited is counted.
  const payment = await getPayment(uow, paymentId)
  const onlineProcessor = online?.processor.name === payment.processor ? online.processor : undefined
  // A retry of a request whose first attempt reached the processor: its refund is already counted, so it is finished
  // rather than checked again (online-payment-service.ts).
  const retried = onlineProcessor && retriedRefundOf(payment, tenantId, online?.idempotencyKey)
  if (onlineProcessor && retried) {
    const input2 = { ...input, paymentId, amount: retried.amount, idempotencyKey: online?.idempotencyKey }
    return refundedOnline(uow, await refundOnline(uow, payment, order, input2, onlineProcessor, now), paymentId)
  }
  if (payment.status !== 'SUCCEEDED') {
    throw invalidStateTransition(`Payment ${paymentId} is ${payment.status}; only a SUCCEEDED payment is refunded.`)
  }
  if (input.currency !== undefined && input.currency !== payment.currency) {
    throw validationError([
      { path: 'currency', code: 'currency_mismatch', message: `The payment is in ${payment.currency}.` },
    ])
  }
  const refundable = payment.amount - payment.amountRefunded
  if (refundable === 0) throw invalidStateTransition(`Payment ${paymentId} is already fully refunded.`)
  const amount = input.amount ?? refundable
  if (amount > refundable) throw amountExceedsRefundable(paymentId, refundable, payment.currency)

  if (onlineProcessor) {
    const onlineInput = { ...input, paymentId, amount, idempotencyKey: online?.idempotencyKey }
    return refundedOnline(uow, await refundOnline(uow, payment, order, onlineInput, onlineProcessor, now), paymentId)
  }
  const processor = processors.find((p) => p.name === payment.processor)
  // A payment's processor is one this deployment configured when it was taken; losing it is an operator error.
  if (!processor) throw new Error(`payment ${paymentId}: processor ${payment.processor} is not configured`)
  const id = newId('refund')
  const outcome = await processor.refund({
    refundId: id,
    paymentId,
    amount,
    currency: payment.currency,
    processorReference: payment.processorReference,
  })
  const refund = await tx.refund.create({
    data: {
      id,
      tenantId,
      paymentId,
      orderId,
      amount,
      currency: payment.currency,
      reason: input.reason,
      method: input.method ?? payment.method,
      reference: input.reference ?? outcome.processorReference,
    },
  })
  await tx.payment.update({ where: { id: paymentId }, data: { amountRefunded: payment.amountRefunded + amount } })
  await applyOrderMoney(
    uow,
    order,
    { amountPaid: order.amountPaid, amountRefunded: order.amountRefunded + amount },
    now
  )
  return { refund, payment: await getPayment(uow, paymentId) }
}

/** The refund `refundId` and its payment, read after an online refund. */
async function refundedOnline(uow: UnitOfWork, refundId: string, paymentId: string) {
  const payment = await getPayment(uow, paymentId)
  const refund = payment.refunds.find((r) => r.id === refundId)
  if (!refund) throw new Error(`refund ${refundId} vanished after it was made`)
  return { refund, payment }
}
