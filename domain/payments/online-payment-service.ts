/**
 * @module Online payments and their refunds through the configured processor (docs/payments.md, "Online payments").
 * A network call never runs inside a transaction that holds the order's lock, so each operation is in phases:
 *
 * 1. Under the order's lock: the checks, then the record (a PENDING payment, or a PENDING refund holding its amount)
 *    with the idempotency key we send the processor and, in the same transaction, the workflow that finishes the work
 *    durably (the payment's expiry; the refund's call, started with a delay). It commits with the request's
 *    idempotency claim before the processor is called (`UnitOfWork.release`).
 * 2. The processor call with that key: a request retried after a crash or a lost answer (same Idempotency-Key) finds
 *    the record and sends the same key with the same parameters, and the processor answers with what it did the
 *    first time, never a second charge or refund.
 * 3. Its answer, applied under the order's lock again (refund-state.ts for refunds).
 *
 * Nothing is undone when the call fails: a payment whose intent was never handed out holds nothing and expires; a
 * refund stays PENDING (answered 202) and its workflow asks the processor again (online-refunds.ts).
 */
import type { Db } from '../../infra/db.ts'
import { runInUnitOfWork, type UnitOfWork } from '../../infra/unit-of-work.ts'
import {
  dependencyUnavailable,
  processorRefused,
  idempotencyKeyReused,
  invalidStateTransition,
  notFound,
  validationError,
} from '../errors.ts'
import { newId } from '../ids.ts'
import { lockOrder } from '../orders/order-service.ts'
import { nextPaymentStatus } from './online-payment-transitions.ts'
import type { PaymentFlows } from './payment-flows.ts'
import { ProcessorLimitError, type OnlinePaymentProcessor } from './online-processor.ts'
import { getPayment, lockOrderForPayment, paymentOfOrder, type PaymentWithRefunds } from './payment-service.ts'
import { keyBeforeCallers, processorKey, type RequestKey } from './processor-keys.ts'
import { applyIntentSucceeded, intentMismatch } from './intent-outcomes.ts'

export interface OnlinePaymentInput {
  orderId: string
  amount: number
  currency: string
  /**
   * The request's Idempotency-Key and its caller: a retry of the same request by the same caller reuses the payment
   * its first attempt made.
   */
  requestKey?: RequestKey
}

/**
 * Calls the processor. Its refusal of the amount or currency under its own limits is the caller's to fix (422
 * `processor_refused`, issue 58); any other failure is the processor being unavailable (503, retry with the key).
 */
async function callProcessor<T>(uow: UnitOfWork, call: () => Promise<T>): Promise<T> {
  try {
    return await uow.release(call)
  } catch (error) {
    if (error instanceof ProcessorLimitError) throw processorRefused(error.field, error.limit, error.message, error)
    throw dependencyUnavailable('The payment processor', error)
  }
}

/** How long after a payment started its request may be retried with the same processor key (the processor keeps
 * keys 24 hours; an hour's margin for clocks and the expiry's own delay). */
const KEY_REUSE_MS = 23 * 3600 * 1000

/**
 * Starts an online payment: a PENDING payment and the processor's intent for it, and the workflow that cancels the
 * intent at `expiresAt` unless the payer completed it.
 * @returns the payment and the client secret the payer's browser or app confirms the intent with
 * @throws AppError as `recordPayment` does, `invalid_state_transition` when the request's earlier attempt made a
 *   payment that has since settled or been cancelled, and `dependency_unavailable` when the processor cannot be
 *   reached (the payment is kept, holding nothing: a retry with the same key reuses it)
 */
export async function startOnlinePayment(
  uow: UnitOfWork,
  input: OnlinePaymentInput,
  processor: OnlinePaymentProcessor,
  flows: PaymentFlows,
  now: Date
): Promise<{ payment: PaymentWithRefunds; clientSecret: string }> {
  const { tx, tenantId } = uow
  const retried = input.requestKey
    ? ((await tx.payment.findFirst({
        where: { tenantId, processorIdempotencyKey: processorKey('payment', tenantId, input.requestKey, '') },
      })) ??
      (await tx.payment.findFirst({
        where: {
          tenantId,
          processorIdempotencyKey: keyBeforeCallers('payment', tenantId, input.requestKey),
          orderId: input.orderId,
          amount: input.amount,
          currency: input.currency,
        },
      })))
    : null
  // The caller's key on another request (its stored answer has lapsed, so the idempotency layer no longer tells them
  // apart): never answered with the payment of another order or amount.
  if (
    retried &&
    (retried.orderId !== input.orderId || retried.amount !== input.amount || retried.currency !== input.currency)
  ) {
    throw idempotencyKeyReused()
  }
  if (retried && retried.status !== 'PENDING' && retried.status !== 'FAILED') {
    throw invalidStateTransition(
      `Payment ${retried.id}, made by an earlier attempt of this request, is ${retried.status}; ` +
        'start another payment with a new Idempotency-Key.'
    )
  }
  if (retried && now.getTime() - retried.createdAt.getTime() > KEY_REUSE_MS) {
    // The processor forgets a key after 24 hours: sent again later, it would make a second intent for this payment.
    throw invalidStateTransition(
      `Payment ${retried.id}, made by an earlier attempt of this request, was started more than 23 hours ago; ` +
        'start another payment with a new Idempotency-Key.'
    )
  }
  // The processor's own currency rules (Stripe takes MGA in whole ariary, BHD in amounts ending in 0): refused here,
  // before any payment or intent exists (issue 46).
  const unchargeable = processor.unchargeable(input.amount, input.currency)
  if (unchargeable) throw validationError([{ path: 'amount', code: 'amount_not_chargeable', message: unchargeable }])
  const order = await lockOrderForPayment(uow, input, retried?.id)
  const id = retried?.id ?? newId('payment')
  // A retry sends the key its first attempt stored (one made before keys named their caller has the older form).
  const key = retried?.processorIdempotencyKey ?? processorKey('payment', tenantId, input.requestKey, id)
  if (!retried) {
    const expiresAt = new Date(now.getTime() + flows.settings.expirySeconds * 1000)
    await tx.payment.create({
      data: {
        id,
        tenantId,
        ...paymentOfOrder(order, input),
        status: 'PENDING',
        method: 'CARD_ONLINE',
        processor: processor.name,
        processorIdempotencyKey: key,
        expiresAt,
      },
    })
    await flows.enqueueExpiry(uow, id, expiresAt)
  }
  const amount = retried?.amount ?? input.amount
  const intent = await callProcessor(uow, () =>
    processor.createPaymentIntent({
      tenantId,
      paymentId: id,
      orderId: order.id,
      amount,
      currency: input.currency,
      idempotencyKey: key,
    })
  )
  // Only now, with the intent handed out, does the payment hold its amount against the order's balance. An intent id
  // recorded before is never replaced: within the key's window the processor answers that same intent.
  const { count } = await tx.payment.updateMany({
    where: { id, tenantId, status: 'PENDING', processorReference: null },
    data: { processorReference: intent.id },
  })
  if (count === 0) {
    const current = await tx.payment.findFirstOrThrow({ where: { id, tenantId } })
    if (current.status === 'CANCELED' && current.processorReference === null) {
      // Cancelled while its intent was being created: the cancellation saw no intent to cancel at the processor, so
      // it is cancelled there now and its client secret is never handed out (issue 46). Should the payer have paid it
      // anyway, its success is recorded unapplied and refunded (intent-outcomes.ts).
      await callProcessor(uow, () =>
        processor.cancelPaymentIntent({ intentId: intent.id, idempotencyKey: `cancel:${tenantId}:${id}` })
      )
      throw invalidStateTransition(
        `Payment ${id} was cancelled while its intent was being created; the intent is cancelled at the processor.`
      )
    }
  }
  return { payment: await getPayment(uow, id), clientSecret: intent.clientSecret }
}

/**
 * Cancels an online payment the payer has not completed: its intent is cancelled at the processor, then the payment is
 * CANCELED (what it held of the order's balance released). Holds no transaction during the call. When the processor
 * had already taken the money, the success is applied instead, checked as its webhook's is: one of another amount or
 * currency than the payment's is applied to nothing and reported (`MISMATCH`: the payment stays PENDING, holding its
 * amount, for an operator; issue 58).
 * @returns the payment's status afterwards, or `MISMATCH`
 * @throws AppError `not_found`; what the processor threw when it may succeed on a retry
 */
export async function cancelOnlinePayment(
  db: Db,
  tenantId: string,
  paymentId: string,
  processor: OnlinePaymentProcessor,
  flows: PaymentFlows,
  now: () => Date
): Promise<'SUCCEEDED' | 'CANCELED' | 'MISMATCH'> {
  // Twice at most: an intent recorded between our read and our write (its request was creating it) is cancelled at
  // the processor on the second pass, never left payable behind a CANCELED payment (issue 46).
  for (let pass = 1; ; pass++) {
    const payment = await runInUnitOfWork(db, tenantId, ({ tx }) =>
      tx.payment.findFirst({ where: { id: paymentId, tenantId } })
    )
    if (!payment) throw notFound('payment', paymentId)
    if (payment.status === 'SUCCEEDED' || payment.status === 'CANCELED') return payment.status
    if (payment.method !== 'CARD_ONLINE' || payment.processor !== processor.name) {
      throw invalidStateTransition(`Payment ${paymentId} is not an online payment of ${processor.name}.`)
    }
    const outcome = payment.processorReference
      ? await processor.cancelPaymentIntent({
          intentId: payment.processorReference,
          idempotencyKey: `cancel:${tenantId}:${paymentId}`,
        })
      : // No intent recorded: none was handed out, and the request creating one cancels it should we win the race
        // (startOnlinePayment).
        ({ status: 'canceled' } as const)
    const done = await runInUnitOfWork(db, tenantId, async (uow) => {
      const order = await lockOrder(uow, payment.orderId)
      const current = await uow.tx.payment.findFirstOrThrow({ where: { id: paymentId, tenantId } })
      if (outcome.status === 'succeeded') {
        const report = {
          ...outcome,
          intentId: current.processorReference ?? '',
          fee: outcome.charge?.fee ?? null,
          settled: outcome.charge?.settled ?? null,
        }
        if (await intentMismatch(uow, current, report, 'answer to a cancellation', now())) return 'MISMATCH'
        await applyIntentSucceeded(uow, order, current, report, flows, now())
        return 'SUCCEEDED'
      }
      if (!nextPaymentStatus(current.status, 'CANCELED'))
        return current.status === 'SUCCEEDED' ? 'SUCCEEDED' : 'CANCELED'
      // Only if the intent is still the one we cancelled (or still none): a row lock decides against the request
      // recording its intent, whichever commits first.
      const { count } = await uow.tx.payment.updateMany({
        where: { id: paymentId, tenantId, status: current.status, processorReference: payment.processorReference },
        data: { status: 'CANCELED', expiresAt: null },
      })
      return count === 1 ? 'CANCELED' : undefined
    })
    if (done) return done
    if (pass >= 3) throw new Error(`payment ${paymentId}: its intent kept changing while it was being cancelled`)
  }
}
