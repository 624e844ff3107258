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
import type { PaymentProcessor } from './payment-processor.ts'
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
  now: Date
): Promise<{ refund: RefundRow; payment: PaymentWithRefunds }> {
  const { tx, tenantId } = uow
  const { orderId } = await getPayment(uow, paymentId)
  const order = await lockOrder(uow, orderId)
  // Read again under the order's lock: a refund that committed while we waited is counted.
  const payment = await getPayment(uow, paymentId)
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
