/**
 * @module Refunds of online payments through the processor (docs/payments.md, "Refunds"): recorded PENDING under the
 * order's lock with their workflow, then the processor asked with the stored key, by the request that recorded the
 * refund or, should that request not get an answer, by the refund's workflow (workflows/refund.ts). Every status
 * change goes through the refund machine (refund-state.ts), so its money moves exactly once.
 */
import type { RefundReason } from '../../generated/prisma/enums.ts'
import type { Db } from '../../infra/db.ts'
import { runInUnitOfWork, type UnitOfWork } from '../../infra/unit-of-work.ts'
import { AppError, idempotencyKeyReused, notFound } from '../errors.ts'
import { newId } from '../ids.ts'
import { lockOrder, type OrderWithLines } from '../orders/order-service.ts'
import type { PaymentFlows } from './payment-flows.ts'
import { ProcessorRefusedError, type OnlinePaymentProcessor, type ProcessorRefundAnswer } from './online-processor.ts'
import type { PaymentWithRefunds } from './payment-service.ts'
import { keyBeforeCallers, processorKey, type RequestKey } from './processor-keys.ts'
import { refundLineRows, type RefundLineInput } from './refund-lines.ts'
import { moveRefund } from './refund-state.ts'

/**
 * The refund an earlier attempt of this request made (it crashed or lost its answer), if any.
 * @throws AppError `idempotency_key_reused` when the caller's key made a refund of another payment: the same key on
 *   another request (its stored answer has lapsed, so the API's idempotency layer no longer tells them apart)
 */
export async function retriedRefundOf(
  { tx, tenantId }: UnitOfWork,
  payment: PaymentWithRefunds,
  request: RequestKey | undefined
) {
  if (!request) return undefined
  const key = processorKey('refund', tenantId, request, '')
  const found = await tx.refund.findFirst({ where: { tenantId, processorIdempotencyKey: key } })
  if (found && found.paymentId !== payment.id) throw idempotencyKeyReused()
  if (found) return found
  const legacy = keyBeforeCallers('refund', tenantId, request)
  return payment.refunds.find((r) => r.processorIdempotencyKey === legacy)
}

export interface OnlineRefundInput {
  paymentId: string
  amount: number
  reason: RefundReason
  reference?: string
  /** The order lines it gives back (checked by the caller), adding up to `amount`; none: shared by weight. */
  lines?: readonly RefundLineInput[]
  /** The request's Idempotency-Key and its caller (`auto` with the payment's id for an automatic refund). */
  requestKey?: RequestKey
}

/**
 * Records a PENDING refund of an online payment, holding its amount, with the workflow that will ask the processor
 * should this request not get its answer. The caller (refund-service.ts) has locked the order and checked the amount.
 * @returns the refund's id
 */
export async function recordOnlineRefund(
  uow: UnitOfWork,
  payment: Pick<PaymentWithRefunds, 'id' | 'currency' | 'method'>,
  order: OrderWithLines,
  input: OnlineRefundInput & { origin?: 'API' | 'AUTOMATIC' },
  flows: PaymentFlows,
  now: Date
): Promise<string> {
  const id = newId('refund')
  await uow.tx.refund.create({
    data: {
      id,
      tenantId: uow.tenantId,
      paymentId: payment.id,
      orderId: order.id,
      amount: input.amount,
      currency: payment.currency,
      reason: input.reason,
      method: payment.method,
      reference: input.reference ?? null,
      status: 'PENDING',
      origin: input.origin ?? 'API',
      processorIdempotencyKey: processorKey('refund', uow.tenantId, input.requestKey, id),
      lines: { create: refundLineRows(uow.tenantId, input.lines ?? []) },
    },
  })
  const delay = input.origin === 'AUTOMATIC' ? 0 : flows.settings.refundTakeoverSeconds
  await flows.enqueueRefund(uow, id, now, delay)
  return id
}

/**
 * How long after a refund is recorded its key is sent without looking at the processor first: Stripe keeps keys for
 * at least 24 hours; an hour's margin for clocks.
 */
const KEY_WINDOW_MS = 23 * 3600 * 1000

type RefundAnswer = Omit<ProcessorRefundAnswer, 'id' | 'settled'> &
  Partial<Pick<ProcessorRefundAnswer, 'id' | 'settled'>>

/**
 * The processor's answer with what the refund moved on its balance, when the payment's charge was converted (issue
 * 58): an answer to a create does not carry it (its balance transaction is not expanded, and asking for that would
 * change the parameters of a request the processor may be replaying by its key), so the refund is read once more.
 * A read that fails leaves it unsaid: the refund is booked at its payment's rate, and the reconciliation corrects it.
 */
async function withSettled(
  processor: OnlinePaymentProcessor,
  payment: { settledCurrency: string | null },
  answer: RefundAnswer
): Promise<RefundAnswer> {
  if (payment.settledCurrency === null || answer.settled || !answer.id || answer.status === 'FAILED') return answer
  try {
    return { ...answer, settled: (await processor.retrieveRefund(answer.id)).settled }
  } catch {
    return answer
  }
}

/** Sends the refund; the processor's refusal of the refund itself is its FAILED answer. */
async function createRefund(
  processor: OnlinePaymentProcessor,
  input: Parameters<OnlinePaymentProcessor['createRefund']>[0]
): Promise<RefundAnswer> {
  try {
    return await processor.createRefund(input)
  } catch (error) {
    if (!(error instanceof ProcessorRefusedError)) throw error
    return { status: 'FAILED', failureMessage: error.message.slice(0, 500) }
  }
}

/** A refund with its payment, read in a short unit of its own (the processor is called outside any transaction). */
async function refundWithPayment(db: Db, tenantId: string, refundId: string) {
  return runInUnitOfWork(db, tenantId, async ({ tx }) => {
    const refund = await tx.refund.findFirst({ where: { id: refundId, tenantId } })
    const payment = refund && (await tx.payment.findFirst({ where: { id: refund.paymentId, tenantId } }))
    return refund && payment ? { refund, payment } : undefined
  })
}

/**
 * Asks the processor for a PENDING refund with its stored key and applies the answer, unless it was answered
 * already. Holds no transaction during the call. Used by the API request that recorded the refund (through its
 * unit's release) and by the refund's workflow.
 * @returns whether the processor has answered (false: the refund is PENDING with no answer yet)
 * @throws what the processor threw when it may succeed on a retry
 */
export async function sendRefund(
  db: Db,
  tenantId: string,
  refundId: string,
  processor: OnlinePaymentProcessor,
  now: () => Date
): Promise<boolean> {
  const found = await refundWithPayment(db, tenantId, refundId)
  if (!found) throw notFound('refund', refundId)
  const { refund, payment } = found
  if (refund.status !== 'PENDING' || refund.processorReference) return true
  if (!payment.processorReference || !refund.processorIdempotencyKey) {
    throw new Error(`refund ${refundId}: an online refund without its payment's intent or its key`)
  }
  const intentId = payment.processorReference
  const idempotencyKey = refund.processorIdempotencyKey
  // Past the processor's idempotency window (a first answer lost, the workflow delayed for a day), the stored key may
  // be forgotten and a resend would refund a second time: the processor's refunds of the intent are asked first, as
  // payout transfers are (issue 46). A refund is first sent right after it is recorded, so its age is its key's.
  const made =
    now().getTime() - refund.createdAt.getTime() > KEY_WINDOW_MS
      ? await processor.findRefund({ intentId, refundId })
      : undefined
  const sent =
    made ??
    (await createRefund(processor, {
      tenantId,
      paymentId: payment.id,
      refundId,
      intentId,
      amount: refund.amount,
      currency: refund.currency,
      idempotencyKey,
    }))
  const answer = await withSettled(processor, payment, sent)
  await runInUnitOfWork(db, tenantId, async (uow) => {
    const order = await lockOrder(uow, refund.orderId)
    const current = await uow.tx.refund.findFirstOrThrow({ where: { id: refundId, tenantId } })
    // The answer is Stripe's word when it made the refund. Whatever moved it meanwhile is as new or newer: the other
    // caller's answer (the request and the workflow ask with one key) or an event, such as a `refund.failed` that
    // overtook this answer. So only a refund still PENDING takes it; a FAILED one revived here would count money
    // that never left, without the room check Stripe's later success goes through (processor-refund-events.ts).
    const reported = current.status === 'PENDING' ? answer.status : current.status
    await moveRefund(uow, order, current, reported, now(), {
      processorReference: answer.id,
      failureMessage: answer.failureMessage,
      settled: answer.settled,
    })
  })
  return true
}

/**
 * The refund's workflow gave up asking (the processor unreachable, or its answers lost, until its idempotency window
 * nearly closed). The processor is asked first for the refunds of the intent (issue 58, "events as hints, objects as
 * truth"): our call may have reached it with only its answer lost, and a refund marked FAILED tells the centre to
 * refund the payment again, so the payer would be refunded twice. The one it made for this refund is recorded as its
 * answer would have been (SUCCEEDED, counted once; or PENDING with its id, for its events to settle); only when it
 * made none is the refund FAILED with the reason, its hold released. A later word from the processor still counts
 * (refund-transitions.ts). Holds no transaction during the call; a processor that does not answer throws, and the
 * activity asks again (the refund keeps holding its amount meanwhile: it may have been made).
 * @param reason - why it failed, when the processor made no refund of it
 */
export async function giveUpRefund(
  db: Db,
  tenantId: string,
  refundId: string,
  processor: OnlinePaymentProcessor,
  reason: string,
  now: () => Date
): Promise<void> {
  const found = await refundWithPayment(db, tenantId, refundId)
  if (found?.refund.status !== 'PENDING' || found.refund.processorReference) return
  const { refund, payment } = found
  const made = payment.processorReference
    ? await processor.findRefund({ intentId: payment.processorReference, refundId })
    : undefined
  await runInUnitOfWork(db, tenantId, async (uow) => {
    const order = await lockOrder(uow, refund.orderId)
    const current = await uow.tx.refund.findFirstOrThrow({ where: { id: refundId, tenantId } })
    // Answered meanwhile (the workflow's last call, or an event): that word is as new as the processor's.
    if (current.status !== 'PENDING' || current.processorReference) return
    await moveRefund(
      uow,
      order,
      current,
      made?.status ?? 'FAILED',
      now(),
      made
        ? { processorReference: made.id, failureMessage: made.failureMessage, settled: made.settled }
        : { failureMessage: reason }
    )
  })
}

/** A unit-of-work-bound {@link sendRefund} for the API: the call runs released, its answer is read back. */
export async function sendRefundNow(
  uow: UnitOfWork,
  db: Db,
  refundId: string,
  processor: OnlinePaymentProcessor,
  now: () => Date
): Promise<boolean> {
  try {
    return await uow.release(() => sendRefund(db, uow.tenantId, refundId, processor, now))
  } catch (error) {
    if (error instanceof AppError) throw error
    // The processor did not answer: the refund stays PENDING and its workflow asks again (the client gets 202).
    return false
  }
}
