/**
 * @module Recording payments against orders (docs/payments.md). A payment locks its order's row first, so concurrent
 * payments queue and each sees the balance the previous one left: two payments can never together exceed the total.
 * The payment row, the order's new amounts and status, and the `payment.succeeded` event are one transaction.
 */
import { Prisma, type Payment, type PaymentMethod } from '../../generated/prisma/client.ts'
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import { recordEvent } from '../events/record-event.ts'
import { AppError, notFound, validationError } from '../errors.ts'
import { newId } from '../ids.ts'
import { applyOrderMoney, lockOrderMoney, type OrderMoney } from '../orders/order-service.ts'
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
async function lockReferencedOrder(uow: UnitOfWork, orderId: string): Promise<OrderMoney> {
  try {
    return await lockOrderMoney(uow, orderId)
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
async function pendingOnlineAmount(uow: UnitOfWork, orderId: string, except?: string): Promise<number> {
  const [row] = await uow.query<{ pending: number }>(Prisma.sql`
    SELECT COALESCE(SUM(amount), 0)::float8 AS pending FROM payments
    WHERE tenant_id = ${uow.tenantId} AND order_id = ${orderId} AND status = 'PENDING'
      AND processor_reference IS NOT NULL ${except ? Prisma.sql`AND id <> ${except}` : Prisma.empty}`)
  return row?.pending ?? 0
}

/** A new payment row's ids and money, from the order it pays (locked by {@link lockOrderForPayment}) and the request. */
export const paymentOfOrder = (
  order: Pick<OrderMoney, 'id' | 'locationId' | 'clientId'>,
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
): Promise<OrderMoney> {
  if (!isCurrency(input.currency)) {
    throw validationError([{ path: 'currency', code: 'unknown_currency', message: 'Not an ISO 4217 currency code.' }])
  }
  // One round trip: the sum is a statement of its own behind the lock, so it reads what was committed before the lock
  // was granted (in one statement with the lock, its snapshot would predate the wait for it). Its answer is used only
  // once the order has passed its checks, whose errors come first.
  const [order, pending] = await Promise.all([
    lockReferencedOrder(uow, input.orderId),
    pendingOnlineAmount(uow, input.orderId, except),
  ])
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
  const payable = order.balance - pending
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
  const { tenantId } = uow
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
  const payment: Payment = {
    id,
    tenantId,
    ...paymentOfOrder(order, input),
    status: outcome.status,
    method: input.method,
    processor: processor.name,
    processorReference: outcome.processorReference,
    processorIdempotencyKey: null,
    reference: input.reference ?? null,
    failureCode: succeeded ? null : outcome.failureCode,
    failureMessage: succeeded ? null : outcome.failureMessage,
    amountRefunded: 0,
    processorFee: 0,
    settledCurrency: null,
    settledAmount: null,
    settledFee: null,
    receivedAt: succeeded ? (input.receivedAt ?? now) : null,
    expiresAt: null,
    unapplied: false,
    createdAt: now,
    updatedAt: now,
  }
  // A succeeded payment's writes go out together, the payment's first, in one round trip: none reads what another
  // writes (the analytics roll-up waits for the commit), and the ledger entry names the payment without a foreign key.
  await Promise.all([
    insertPayment(uow, payment),
    ...(succeeded
      ? [
          countOnOrder(uow, order, { id, amount: input.amount, currency: input.currency }, now),
          bookNewPayment(uow, { id, amount: input.amount, currency: input.currency, processor: processor.name }, now),
        ]
      : []),
  ])
  // As getPayment would read it back: a payment created in this transaction has no refund or dispute yet.
  return { ...payment, refunds: [], disputes: [] }
}

/**
 * Inserts a payment row as given, every column set, straight through the driver: each recorded payment makes one, and
 * Prisma's create cost the request more CPU than the statement (docs/benchmarks.md). Typed as the whole row, so a
 * column added to the schema must be given here too; `payments_money_check` checks the amounts as for any write.
 */
async function insertPayment(uow: UnitOfWork, p: Payment): Promise<void> {
  await uow.query(Prisma.sql`
    INSERT INTO payments (id, tenant_id, order_id, location_id, client_id, amount, currency, status, method, processor,
      processor_reference, processor_idempotency_key, reference, failure_code, failure_message, amount_refunded,
      processor_fee, settled_currency, settled_amount, settled_fee, received_at, expires_at, unapplied, created_at,
      updated_at)
    VALUES (${p.id}, ${p.tenantId}, ${p.orderId}, ${p.locationId}, ${p.clientId}, ${p.amount}::bigint, ${p.currency},
      ${p.status}::"PaymentStatus", ${p.method}::"PaymentMethod", ${p.processor}, ${p.processorReference},
      ${p.processorIdempotencyKey}, ${p.reference}, ${p.failureCode}, ${p.failureMessage}, ${p.amountRefunded}::bigint,
      ${p.processorFee}::bigint, ${p.settledCurrency}, ${p.settledAmount}::bigint, ${p.settledFee}::bigint,
      ${p.receivedAt}::timestamptz, ${p.expiresAt}::timestamptz, ${p.unapplied}, ${p.createdAt}::timestamptz,
      ${p.updatedAt}::timestamptz)`)
}

/**
 * Counts a payment that succeeded on its locked order: the order's paid amount, balance and status move, and
 * `payment.succeeded` is emitted, in the unit's transaction (once: the callers move the payment to SUCCEEDED with it).
 */
export async function countOnOrder(
  uow: UnitOfWork,
  order: OrderMoney,
  payment: Pick<Payment, 'id' | 'amount' | 'currency'>,
  now: Date
): Promise<void> {
  // Both at once (one round trip): the event does not depend on the order's new amounts.
  await Promise.all([
    applyOrderMoney(
      uow,
      order,
      { amountPaid: order.amountPaid + payment.amount, amountRefunded: order.amountRefunded },
      now
    ),
    recordEvent(uow, 'payment.succeeded', {
      paymentId: payment.id,
      orderId: order.id,
      amount: payment.amount,
      currency: payment.currency,
    }),
  ])
}

/** One payment of the unit's tenant, with its refunds. @throws AppError `not_found` */
export async function getPayment({ tx, tenantId }: UnitOfWork, id: string): Promise<PaymentWithRefunds> {
  const payment = await tx.payment.findFirst({ where: { id, tenantId }, include: withRefunds })
  if (!payment) throw notFound('payment', id)
  return payment
}
