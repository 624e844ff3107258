/**
 * @module What an online payment's intent settling does to our books, applied under the order's lock, from the
 * processor's webhook or from its answer to a cancellation that came too late.
 *
 * Either way the processor's word counts only for what our payment asks: a success reported with another amount or
 * currency is applied to nothing and reported as an `EVENT_MISMATCH` finding ({@link intentMismatch}, issue 58).
 *
 * A success the order can take moves its money and emits `payment.succeeded`, once. A success the order can no longer
 * take (it was voided, or paid another way meanwhile) is still money received: the payment is recorded SUCCEEDED and
 * `unapplied` (it never counts on the order), a refund of all of it is recorded and sent durably by its workflow, and
 * an operator sees an UNAPPLIED_PAYMENT finding (with its `reconciliation.mismatch` event). The processor is answered
 * 2xx either way: what happened is recorded.
 *
 * So is a success for a payment cancelled here before any intent of it was recorded (cancelled while its intent was
 * being created, so the processor was never asked to cancel it): the money was taken, the payment was cancelled, and
 * it is recorded unapplied and refunded in full (issue 46). A payment whose intent the processor itself cancelled
 * (it has the intent's id) stays CANCELED: an intent cancelled there cannot have succeeded.
 */
import type { Payment } from '../../generated/prisma/client.ts'
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import type { OrderWithLines } from '../orders/order-service.ts'
import { ACCEPTS_PAYMENT } from '../orders/order-status.ts'
import { recordFinding } from '../reconciliation/findings.ts'
import { nextPaymentStatus } from './online-payment-transitions.ts'
import type { PaymentFlows } from './payment-flows.ts'
import { mismatch } from './processor-event-context.ts'
import { recordOnlineRefund } from './online-refunds.ts'
import { bookPaymentMoney } from './collection-ledger.ts'
import type { SettledMoney } from './online-processor-events.ts'
import { countOnOrder } from './payment-service.ts'

/** Whether a locked order can still take `amount` (a payment's own hold was on its balance, never a part of it). */
export const orderCanTake = (order: Pick<OrderWithLines, 'status' | 'balance'>, amount: number) =>
  ACCEPTS_PAYMENT.includes(order.status) && amount <= order.balance

/** What the processor reports of an intent of ours: its id, and the amount (ISO minor units) and currency it charged. */
export interface IntentReport {
  intentId: string
  amount: number
  currency: string
}

/**
 * Checks the processor's report of an intent (its webhook, or its answer to our cancellation) against our payment: one
 * of another amount or currency is recorded as an `EVENT_MISMATCH` finding and must not be applied, and the payment
 * keeps what it holds for an operator to look into.
 * @param source - what made the report, named in the finding (`payment.succeeded`, `answer to a cancellation`)
 * @returns `mismatch` when it disagrees (the finding recorded), undefined when it may be applied
 */
export async function intentMismatch(
  uow: UnitOfWork,
  payment: Payment,
  report: IntentReport,
  source: string,
  now: Date
): Promise<'mismatch' | undefined> {
  if (report.amount === payment.amount && report.currency === payment.currency) return undefined
  const subject = { objectType: 'PAYMENT' as const, objectId: payment.id, processorReference: report.intentId }
  return mismatch(uow, { now }, subject, payment, report, source)
}

/**
 * The columns of a payment's charge cost that the processor's word changes (issue 58): its processing fee and, when
 * its balance keeps another currency, what the charge moved there. None when the processor did not say, or said what
 * is recorded.
 */
export function chargeCostChange(
  payment: Pick<Payment, 'processorFee' | 'settledCurrency' | 'settledAmount' | 'settledFee'>,
  fee: number | null | undefined,
  settled: SettledMoney | null | undefined
) {
  if (fee === null || fee === undefined) return undefined
  const said = {
    processorFee: fee,
    settledCurrency: settled?.currency ?? null,
    settledAmount: settled?.amount ?? null,
    settledFee: settled?.fee ?? null,
  }
  const same = (Object.keys(said) as Array<keyof typeof said>).every((column) => payment[column] === said[column])
  return same ? undefined : said
}

/**
 * Applies an intent's success to its payment (read under the order's lock), with the processor's cost of it when
 * known: its fee, and what it moved on a balance in another currency.
 * @returns whether it changed anything (false: already SUCCEEDED at that cost, or CANCELED at the processor, which is
 *   final)
 */
export async function applyIntentSucceeded(
  uow: UnitOfWork,
  order: OrderWithLines,
  payment: Payment,
  { intentId, fee, settled }: { intentId: string; fee?: number | null; settled?: SettledMoney | null },
  flows: PaymentFlows,
  now: Date
): Promise<boolean> {
  const cancelledHere = payment.status === 'CANCELED' && payment.processorReference === null
  const cost = chargeCostChange(payment, fee, settled)
  if (payment.status === 'SUCCEEDED' && cost) {
    // Succeeded already, its cost then unknown or recorded before costs were (issue 58): the processor's now, and
    // the difference booked. Nothing else of the success moves again.
    await uow.tx.payment.update({ where: { id: payment.id }, data: cost })
    await bookPaymentMoney(uow, payment.id, now)
    return true
  }
  if (!cancelledHere && !nextPaymentStatus(payment.status, 'SUCCEEDED')) return false
  const unapplied = cancelledHere || !orderCanTake(order, payment.amount)
  await uow.tx.payment.update({
    where: { id: payment.id },
    data: {
      status: 'SUCCEEDED',
      processorReference: intentId || payment.processorReference,
      failureCode: null,
      failureMessage: null,
      receivedAt: now,
      expiresAt: null,
      unapplied,
      // The processor's cost of it, when it said (issue 58): booked with the payment's money below.
      ...cost,
    },
  })
  // At the processor, whether or not the order takes it (an unapplied payment's refund takes it back out).
  await bookPaymentMoney(uow, payment.id, now)
  if (unapplied) {
    await refundUnapplied(uow, order, payment, cancelledHere, flows, now)
    return true
  }
  await countOnOrder(uow, order, payment, now)
  return true
}

async function refundUnapplied(
  uow: UnitOfWork,
  order: OrderWithLines,
  payment: Payment,
  cancelled: boolean,
  flows: PaymentFlows,
  now: Date
): Promise<void> {
  const refunds = await uow.tx.payment.findFirstOrThrow({
    where: { id: payment.id, tenantId: uow.tenantId },
    include: { refunds: true },
  })
  const refundId = await recordOnlineRefund(
    uow,
    refunds,
    order,
    {
      paymentId: payment.id,
      amount: payment.amount,
      reason: 'OTHER',
      // One automatic refund per payment, whatever retries: the processor sees the same key.
      requestKey: { caller: 'auto', key: payment.id },
      origin: 'AUTOMATIC',
    },
    flows,
    now
  )
  const why = cancelled
    ? `did not take it: the payment was cancelled before its intent was recorded`
    : order.status === 'VOID'
      ? 'was voided'
      : `is ${order.status} with ${order.balance} left to pay`
  await recordFinding(
    uow,
    {
      kind: 'UNAPPLIED_PAYMENT',
      objectType: 'PAYMENT',
      objectId: payment.id,
      processorReference: payment.processorReference,
      ours: { amount: order.balance, currency: order.currency, status: order.status },
      theirs: { amount: payment.amount, currency: payment.currency, status: 'succeeded' },
      detail:
        `The processor confirmed payment ${payment.id} of ${payment.amount} ${payment.currency} for order ` +
        `${order.id}, which ${why}; it is refunded in full by refund ${refundId}.`,
    },
    now
  )
}
