/**
 * @module Recording payments against orders (docs/payments.md). A payment locks its order's row first, so concurrent
 * payments queue and each sees the balance the previous one left: two payments can never together exceed the total.
 * The payment row, the order's new amounts and status, and the `payment.succeeded` event are one transaction.
 */
import type { Payment, PaymentMethod, Prisma } from '../../generated/prisma/client.ts'
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import { recordEvent } from '../events/record-event.ts'
import { AppError, notFound, validationError } from '../errors.ts'
import { newId } from '../ids.ts'
import { applyOrderMoney, lockOrder, type OrderWithLines } from '../orders/order-service.ts'
import { assertAcceptsPayment } from '../orders/order-status.ts'
import { isCurrency } from '../pricing/currencies.ts'
import { bookNewPayment } from './collection-ledger.ts'
import { amountExceedsBalance } from './payment-errors.ts'
import { processorFor, type PaymentFailureCode, type PaymentProcessor } from './payment-processor.ts'

export interface RecordPaymentInput {
  orderId: string
  /** Integer minor units; must not exceed the order's balance. */
  amount: number
  currency: string
  method: PaymentMethod
  reference?: string
  /** When the money was received; defaults to now. */
  receivedAt?: Date
  /** A failed attempt the centre records (a declined card): stored FAILED, no money moves. */
  failure?: { code: PaymentFailureCode; message?: string }
}

export const withRefunds = {
  refunds: {
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    // The lines a refund names (issue 58), as the request listed them.
    include: { lines: { orderBy: { position: 'asc' } } },
  },
  // Each processor dispute of it, oldest first (issue 58: a charge can be disputed again).
  disputes: { orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] },
} as const satisfies Prisma.PaymentInclude

export type PaymentWithRefunds = Prisma.PaymentGetPayload<{ include: typeof withRefunds }>

/**
 * Locks and reads a payment's order; a hidden or unknown order is a field error like any bad reference (the lock's
 * own miss says so, without a statement of its own before it).
 */
async function lockReferencedOrder(uow: UnitOfWork, orderId: string): Promise<OrderWithLines> {
  try {
    return await lockOrder(uow, orderId)
  } catch (error) {
    if (error instanceof AppError && error.code === 'not_found') {
      throw validationError([{ path: 'orderId', code: 'not_found', message: 'No order with this id.' }])
    }
    throw error
  }
}

/**
 * What the order's online payments still waiting on the payer hold of its balance (they may yet succeed): only those
 * whose intent was handed out. A payment whose intent never reached the payer (the processor did not answer, or we
 * crashed before recording its answer) cannot be paid, so it holds nothing, and a retry of its request checks the
 * balance again (online-payment-service.ts).
 */
async function pendingOnlineAmount({ tx, tenantId }: UnitOfWork, orderId: string, except?: string): Promise<number> {
  const pending = await tx.payment.aggregate({
    where: {
      tenantId,
      orderId,
      status: 'PENDING',
      processorReference: { not: null },
      ...(except ? { id: { not: except } } : {}),
    },
    _sum: { amount: true },
  })
  return pending._sum.amount ?? 0
}

/** A new payment row's ids and money, from the order it pays (locked by {@link lockOrderForPayment}) and the request. */
export const paymentOfOrder = (
  order: Pick<OrderWithLines, 'id' | 'locationId' | 'clientId'>,
  input: { amount: number; currency: string }
) => ({
  orderId: order.id,
  locationId: order.locationId,
  clientId: order.clientId,
  amount: input.amount,
  currency: input.currency,
})

/**
 * Checks a payment of `amount` in `currency` against its order and locks the order until the unit commits, so
 * concurrent payments and refunds queue and each sees the balance the previous one left. The balance a payment may
 * take is what is left to pay less what pending online payments hold.
 * @param except - a pending payment being retried, whose own amount is not counted against it
 * @throws AppError `validation_error` (unknown order or currency, `currency_mismatch`), `invalid_state_transition`
 *   (order not payable), `amount_exceeds_balance`
 */
export async function lockOrderForPayment(
  uow: UnitOfWork,
  input: { orderId: string; amount: number; currency: string },
  except?: string
): Promise<OrderWithLines> {
  if (!isCurrency(input.currency)) {
    throw validationError([{ path: 'currency', code: 'unknown_currency', message: 'Not an ISO 4217 currency code.' }])
  }
  const order = await lockReferencedOrder(uow, input.orderId)
  if (input.currency !== order.currency) {
    throw validationError([
      {
        path: 'currency',
        code: 'currency_mismatch',
        message: `The order is in ${order.currency}; pay it in ${order.currency}.`,
      },
    ])
  }
  assertAcceptsPayment(order.status)
  const payable = order.balance - (await pendingOnlineAmount(uow, order.id, except))
  if (input.amount > payable) throw amountExceedsBalance(order.id, payable, order.currency)
  return order
}

/**
 * Records a payment: SUCCEEDED (the order's amounts and status move, `payment.succeeded` is emitted) or FAILED (kept
 * for the record with its failure code; nothing else changes).
 * @param processors - the configured processors; the first that handles `method` takes the payment
 * @throws AppError `validation_error` (unknown order or currency, `currency_mismatch`, `method_not_available`,
 *   `in_future`), `invalid_state_transition` (order not payable), `amount_exceeds_balance`
 */
export async function recordPayment(
  uow: UnitOfWork,
  input: RecordPaymentInput,
  processors: readonly PaymentProcessor[],
  now: Date
): Promise<PaymentWithRefunds> {
  const { tx, tenantId } = uow
  if (input.receivedAt && input.receivedAt.getTime() > now.getTime()) {
    throw validationError([
      { path: 'receivedAt', code: 'in_future', message: 'A payment cannot be received in the future.' },
    ])
  }
  const processor = processorFor(input.method, processors)
  if (!processor) {
    throw validationError([
      { path: 'method', code: 'method_not_available', message: 'No configured processor takes this method.' },
    ])
  }
  const order = await lockOrderForPayment(uow, input)

  const id = newId('payment')
  const outcome = await processor.collect({
    paymentId: id,
    orderId: order.id,
    amount: input.amount,
    currency: input.currency,
    method: input.method,
    reference: input.reference,
    reportedFailure: input.failure,
  })
  const succeeded = outcome.status === 'SUCCEEDED'
  const payment = await tx.payment.create({
    data: {
      id,
      tenantId,
      ...paymentOfOrder(order, input),
      status: outcome.status,
      method: input.method,
      processor: processor.name,
      processorReference: outcome.processorReference,
      reference: input.reference ?? null,
      failureCode: succeeded ? null : outcome.failureCode,
      failureMessage: succeeded ? null : outcome.failureMessage,
      receivedAt: succeeded ? (input.receivedAt ?? now) : null,
    },
  })
  if (succeeded) {
    await countOnOrder(uow, order, payment, now)
    await bookNewPayment(uow, payment, now)
  }
  // As getPayment would read it back: a payment created in this transaction has no refund or dispute yet.
  return { ...payment, refunds: [], disputes: [] }
}

/**
 * Counts a payment that succeeded on its locked order: the order's paid amount, balance and status move, and
 * `payment.succeeded` is emitted, in the unit's transaction (once: the callers move the payment to SUCCEEDED with it).
 */
export async function countOnOrder(
  uow: UnitOfWork,
  order: OrderWithLines,
  payment: Pick<Payment, 'id' | 'amount' | 'currency'>,
  now: Date
): Promise<void> {
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
}

/** One payment of the unit's tenant, with its refunds. @throws AppError `not_found` */
export async function getPayment({ tx, tenantId }: UnitOfWork, id: string): Promise<PaymentWithRefunds> {
  const payment = await tx.payment.findFirst({ where: { id, tenantId }, include: withRefunds })
  if (!payment) throw notFound('payment', id)
  return payment
}
