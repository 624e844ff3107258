/**
 * @module Online payments and their refunds through the configured processor (docs/payments.md, "Online payments").
 * Two phases, because a network call never runs inside a transaction that holds the order's lock:
 *
 * 1. Under the order's lock: the checks of any payment, then a PENDING payment (or a PENDING refund, its amount
 *    counted as refunded at once so that concurrent refunds cannot together exceed the payment). It commits, with the
 *    request's idempotency claim, before the processor is called (`UnitOfWork.release`).
 * 2. The processor call, with an idempotency key stored on our record in phase 1: a request retried after a crash
 *    (same Idempotency-Key) finds that record and sends the same key again, and the processor answers with what it
 *    did the first time instead of charging or refunding twice. Its answer is written in a new transaction. If the
 *    call fails, the request answers 503 and the record made in phase 1 is undone (`UnitOfWork.compensate`).
 *
 * The outcome of a payment comes later, from the processor's signed webhook (processor-events.ts).
 */
import type { RefundReason } from '../../generated/prisma/enums.ts'
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import { dependencyUnavailable } from '../errors.ts'
import { newId } from '../ids.ts'
import { applyOrderMoney, lockOrder } from '../orders/order-service.ts'
import type { OnlinePaymentProcessor } from './payment-processor.ts'
import { getPayment, lockOrderForPayment, paymentOfOrder, type PaymentWithRefunds } from './payment-service.ts'

export interface OnlinePaymentInput {
  orderId: string
  amount: number
  currency: string
  /** The request's Idempotency-Key: a retry of the same request reuses the payment its first attempt made. */
  idempotencyKey?: string
}

/** The processor's idempotency key of a record: the caller's key (scoped to the tenant), else the record's id. */
const processorKey = (kind: 'payment' | 'refund', tenantId: string, requestKey: string | undefined, id: string) =>
  requestKey ? `${kind}:${tenantId}:${requestKey}` : `${kind}:${tenantId}:${id}`

/** Calls the processor; any failure is the processor being unavailable to the caller (503, retry with the key). */
async function callProcessor<T>(uow: UnitOfWork, call: () => Promise<T>): Promise<T> {
  try {
    return await uow.release(call)
  } catch (error) {
    throw dependencyUnavailable('The payment processor', error)
  }
}

/**
 * Starts an online payment: a PENDING payment and the processor's intent for it.
 * @returns the payment and the client secret the payer's browser or app confirms the intent with
 * @throws AppError as `recordPayment` does, and `dependency_unavailable` when the processor cannot be reached
 */
export async function startOnlinePayment(
  uow: UnitOfWork,
  input: OnlinePaymentInput,
  processor: OnlinePaymentProcessor
): Promise<{ payment: PaymentWithRefunds; clientSecret: string }> {
  const { tx, tenantId } = uow
  const retried = input.idempotencyKey
    ? await tx.payment.findFirst({
        where: { tenantId, processorIdempotencyKey: processorKey('payment', tenantId, input.idempotencyKey, '') },
      })
    : null
  const order = await lockOrderForPayment(uow, input, retried?.id)
  const id = retried?.id ?? newId('payment')
  const key = processorKey('payment', tenantId, input.idempotencyKey, id)
  if (!retried) {
    await tx.payment.create({
      data: {
        id,
        tenantId,
        ...paymentOfOrder(order, input),
        status: 'PENDING',
        method: 'CARD_ONLINE',
        processor: processor.name,
        processorIdempotencyKey: key,
      },
    })
    // The payer never got an intent to confirm: nothing is owed to this payment.
    uow.compensate(async (undo) => {
      await undo.tx.payment.deleteMany({ where: { id, tenantId: undo.tenantId, processorReference: null } })
    })
  }
  const intent = await callProcessor(uow, () =>
    processor.createPaymentIntent({
      tenantId,
      paymentId: id,
      orderId: order.id,
      amount: input.amount,
      currency: input.currency,
      idempotencyKey: key,
    })
  )
  await tx.payment.update({ where: { id }, data: { processorReference: intent.id } })
  return { payment: await getPayment(uow, id), clientSecret: intent.clientSecret }
}

/** The refund an earlier attempt of this request made (it crashed before answering), if any. */
export function retriedRefundOf(payment: PaymentWithRefunds, tenantId: string, idempotencyKey: string | undefined) {
  if (!idempotencyKey) return undefined
  const key = processorKey('refund', tenantId, idempotencyKey, '')
  return payment.refunds.find((r) => r.processorIdempotencyKey === key)
}

export interface OnlineRefundInput {
  paymentId: string
  amount: number
  reason: RefundReason
  reference?: string
  idempotencyKey?: string
}

/**
 * Undoes a refund the processor could not make: FAILED, and its amount no longer counts as refunded on the payment
 * and the order. Locks the order. Does nothing to a refund already FAILED.
 */
export async function failRefund(uow: UnitOfWork, refundId: string, now: Date): Promise<void> {
  const { tx, tenantId } = uow
  const found = await tx.refund.findFirst({ where: { id: refundId, tenantId }, select: { orderId: true } })
  if (!found) return
  const order = await lockOrder(uow, found.orderId)
  const refund = await tx.refund.findFirst({ where: { id: refundId, tenantId } })
  if (!refund || refund.status === 'FAILED') return
  await tx.refund.update({ where: { id: refundId }, data: { status: 'FAILED' } })
  await tx.payment.update({ where: { id: refund.paymentId }, data: { amountRefunded: { decrement: refund.amount } } })
  await applyOrderMoney(
    uow,
    order,
    { amountPaid: order.amountPaid, amountRefunded: order.amountRefunded - refund.amount },
    now,
    true
  )
}

/**
 * Refunds part or all of an online payment through its processor. The caller (refund-service.ts) has locked the
 * order, re-read the payment and checked the amount; this records the refund PENDING with its amount counted as
 * refunded, then asks the processor.
 * @returns the refund's id
 */
export async function refundOnline(
  uow: UnitOfWork,
  payment: PaymentWithRefunds,
  order: Awaited<ReturnType<typeof lockOrder>>,
  input: OnlineRefundInput,
  processor: OnlinePaymentProcessor,
  now: Date
): Promise<string> {
  const { tx, tenantId } = uow
  if (!payment.processorReference) {
    throw new Error(`payment ${payment.id}: a SUCCEEDED online payment without the processor's reference`)
  }
  const retried = retriedRefundOf(payment, tenantId, input.idempotencyKey)
  const id = retried?.id ?? newId('refund')
  const key = processorKey('refund', tenantId, input.idempotencyKey, id)
  if (!retried) {
    await tx.refund.create({
      data: {
        id,
        tenantId,
        paymentId: payment.id,
        orderId: order.id,
        amount: input.amount,
        currency: payment.currency,
        reason: input.reason,
        method: payment.method,
        reference: input.reference ?? null,
        status: 'PENDING',
        processorIdempotencyKey: key,
      },
    })
    await tx.payment.update({ where: { id: payment.id }, data: { amountRefunded: { increment: input.amount } } })
    await applyOrderMoney(
      uow,
      order,
      { amountPaid: order.amountPaid, amountRefunded: order.amountRefunded + input.amount },
      now
    )
    uow.compensate((undo) => failRefund(undo, id, now))
  }
  const made = await callProcessor(uow, () =>
    processor.createRefund({
      tenantId,
      paymentId: payment.id,
      refundId: id,
      intentId: payment.processorReference!,
      amount: input.amount,
      idempotencyKey: key,
    })
  )
  await tx.refund.update({
    where: { id },
    data: { processorReference: made.id, status: made.status === 'SUCCEEDED' ? 'SUCCEEDED' : 'PENDING' },
  })
  if (made.status === 'FAILED') await failRefund(uow, id, now)
  return id
}
