/**
 * @module Refunds (docs/payments.md): money handed back from a succeeded payment, as its own record linked to the
 * payment and its order. Partial or full, several per payment, never more in total than the payment (pending ones
 * included). Like payments, a refund locks the order first, so concurrent refunds of one payment cannot together
 * exceed it; its status and money move only through the refund machine (refund-state.ts).
 */
import type { PaymentMethod, RefundReason } from '../../generated/prisma/enums.ts'
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import { invalidStateTransition, validationError } from '../errors.ts'
import { newId } from '../ids.ts'
import type { Db } from '../../infra/db.ts'
import { lockOrder, type OrderWithLines } from '../orders/order-service.ts'
import { amountExceedsRefundable } from './payment-errors.ts'
import { recordOnlineRefund, retriedRefundOf, sendRefundNow } from './online-refunds.ts'
import type { PaymentFlows } from './payment-flows.ts'
import type { OnlinePaymentProcessor } from './online-processor.ts'
import type { PaymentProcessor } from './payment-processor.ts'
import { getPayment, type PaymentWithRefunds } from './payment-service.ts'
import { applyRefundMoney } from './refund-state.ts'
import type { RequestKey } from './processor-keys.ts'
import { refundableByLine } from './money-given-back.ts'
import { refundLineErrors, refundLineRows, type RefundLineInput } from './refund-lines.ts'
import { refundableOf, refundedDelta } from './refund-transitions.ts'

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
  /**
   * The order lines it gives back, each with its amount (issue 58); they add up to `amount`, which defaults to their
   * sum. None: the refund is shared among the order's lines by weight.
   */
  lines?: RefundLineInput[]
}

/**
 * Refunds (part of) a payment. A recorded payment's refund is SUCCEEDED at once (the centre handed the money back); an
 * online payment's is recorded PENDING, holding its amount, and sent to the processor (online-refunds.ts).
 * @returns the refund, the payment after it, and whether the processor has yet to answer (the API answers 202)
 * @throws AppError `not_found` (payment), `validation_error` (`currency_mismatch`; a line of another order, named
 *   twice, beyond what it still holds, or lines not adding up to `amount`), `invalid_state_transition`
 *   (payment not SUCCEEDED, or nothing left to refund), `amount_exceeds_refundable`
 */
export async function refundPayment(
  uow: UnitOfWork,
  paymentId: string,
  input: RefundInput,
  processors: readonly PaymentProcessor[],
  now: Date,
  online?: OnlineRefunds
): Promise<{ refund: RefundRow; payment: PaymentWithRefunds; awaitingProcessor: boolean }> {
  const { tx, tenantId } = uow
  const { orderId } = await getPayment(uow, paymentId)
  const order = await lockOrder(uow, orderId)
  // Read again under the order's lock: a refund that committed while we waited is counted.
  const payment = await getPayment(uow, paymentId)
  const onlineProcessor = online?.processor.name === payment.processor ? online.processor : undefined
  if (online && onlineProcessor) {
    // A retry of a request whose first attempt recorded its refund (it crashed, or the processor did not answer):
    // that refund is finished rather than a second one checked and made.
    const retried = await retriedRefundOf(uow, payment, online.requestKey)
    let refundId = retried?.id
    if (refundId === undefined) {
      const lines = await checkedLines(uow, payment, order, input)
      const amount = checkedAmount(payment, withLineSum(input, lines))
      // The processor's own currency rules, before anything is recorded (issue 46).
      const unchargeable = onlineProcessor.unchargeable(amount, payment.currency)
      if (unchargeable)
        throw validationError([{ path: 'amount', code: 'amount_not_chargeable', message: unchargeable }])
      refundId = await recordOnlineRefund(
        uow,
        payment,
        order,
        { ...input, paymentId, amount, lines, requestKey: online.requestKey },
        online.flows,
        now
      )
    }
    const answered = await sendRefundNow(uow, online.db, refundId, onlineProcessor, online.now)
    const after = await getPayment(uow, paymentId)
    const refund = after.refunds.find((r) => r.id === refundId)
    if (!refund) throw new Error(`refund ${refundId} vanished after it was made`)
    return { refund, payment: after, awaitingProcessor: !answered || refund.status === 'PENDING' }
  }
  const lines = await checkedLines(uow, payment, order, input)
  const amount = checkedAmount(payment, withLineSum(input, lines))
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
  await tx.refund.create({
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
      status: 'SUCCEEDED',
      succeededAt: now,
      lines: { create: refundLineRows(tenantId, lines) },
    },
  })
  await applyRefundMoney(uow, order, paymentId, refundedDelta(null, 'SUCCEEDED', amount), now)
  const after = await getPayment(uow, paymentId)
  const refund = after.refunds.find((r) => r.id === id)
  if (!refund) throw new Error(`refund ${id} vanished after it was made`)
  return { refund, payment: after, awaitingProcessor: false }
}

/** The input with its amount defaulting to its lines' sum, when it names lines. */
const withLineSum = (input: RefundInput, lines: readonly RefundLineInput[]): RefundInput =>
  lines.length > 0 && input.amount === undefined
    ? { ...input, amount: lines.reduce((sum, l) => sum + l.amount, 0) }
    : input

/**
 * The refund's lines, checked against its order, the order's earlier refunds and its lost disputes (read under the
 * order's lock, so a concurrent refund is counted): none when the request names none.
 * @throws AppError `validation_error` naming the line's field (refund-lines.ts)
 */
async function checkedLines(
  uow: UnitOfWork,
  payment: PaymentWithRefunds,
  order: OrderWithLines,
  input: RefundInput
): Promise<RefundLineInput[]> {
  if (!input.lines || input.lines.length === 0) return []
  // A payment that cannot be refunded at all is refused as such, by checkedAmount.
  if (payment.status !== 'SUCCEEDED') return input.lines
  if (payment.unapplied) {
    // Money the order never took: no line of it was paid with it.
    throw validationError([
      { path: 'lines', code: 'payment_unapplied', message: 'An unapplied payment paid for no line of the order.' },
    ])
  }
  // Earlier refunds and lost disputes hold the lines in the order their money went back (money-given-back.ts).
  const left = (await refundableByLine(uow, [order])).get(order.id)!
  const errors = refundLineErrors(input.lines, input.amount, left, payment.currency)
  if (errors.length > 0) throw validationError(errors)
  return input.lines
}

/** What an online refund needs besides the request: the processor, the durable flows, and the request's key. */
export interface OnlineRefunds {
  processor: OnlinePaymentProcessor
  flows: PaymentFlows
  db: Db
  now: () => Date
  /** The request's Idempotency-Key and its caller, when it has one. */
  requestKey?: RequestKey
}

/**
 * The amount a new refund may take of the payment (locked and read under the order's lock).
 * @throws AppError `invalid_state_transition`, `validation_error` (`currency_mismatch`), `amount_exceeds_refundable`
 */
function checkedAmount(payment: PaymentWithRefunds, input: RefundInput): number {
  if (payment.status !== 'SUCCEEDED') {
    throw invalidStateTransition(`Payment ${payment.id} is ${payment.status}; only a SUCCEEDED payment is refunded.`)
  }
  if (input.currency !== undefined && input.currency !== payment.currency) {
    throw validationError([
      { path: 'currency', code: 'currency_mismatch', message: `The payment is in ${payment.currency}.` },
    ])
  }
  const refundable = refundableOf(payment)
  if (refundable === 0) {
    throw invalidStateTransition(
      `Payment ${payment.id} is already fully refunded, or its refunds pending, or charged back.`
    )
  }
  const amount = input.amount ?? refundable
  if (amount > refundable) throw amountExceedsRefundable(payment.id, refundable, payment.currency)
  return amount
}
