/**
 * @module The one place a refund's status changes and its money moves (the machine of refund-transitions.ts). Called
 * under the order's lock by every path: a recorded refund, the processor's answer to our request, its webhook, the
 * refund workflow giving up, a refund made in the processor's dashboard. Each move changes the payment's and the
 * order's `amountRefunded` by exactly the transition's delta; an unapplied payment (money the order could not take,
 * refunded automatically) never counted on its order, so its refunds move only the payment.
 */
import type { Refund, RefundStatus } from '../../generated/prisma/client.ts'
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import { applyOrderMoney, type OrderWithLines } from '../orders/order-service.ts'
import { bookPaymentMoney } from './collection-ledger.ts'
import type { SettledMoney } from './online-processor-events.ts'
import { nextRefundStatus, refundedDelta } from './refund-transitions.ts'

/** What a move may record besides the status. */
export interface RefundMoveDetails {
  processorReference?: string
  failureMessage?: string | null
  /** What it moved on a processor's balance kept in another currency, when the processor's word said (issue 58). */
  settled?: SettledMoney | null
}

/** The settled columns a processor's word about a refund changes, or none (it said nothing, or what is recorded). */
function settledChange(refund: Refund, settled: SettledMoney | null | undefined) {
  if (!settled || (refund.settledCurrency === settled.currency && refund.settledAmount === settled.amount)) return
  return { settledCurrency: settled.currency, settledAmount: settled.amount }
}

/**
 * Moves a refund to the status the processor (or our give-up) reports, with its money, once.
 * @param order - the refund's order, locked by the caller in this unit of work (`lockOrder`)
 * @returns whether anything changed (false: a repeat, or a report that changes nothing)
 */
export async function moveRefund(
  uow: UnitOfWork,
  order: OrderWithLines,
  refund: Refund,
  reported: RefundStatus,
  now: Date,
  details: RefundMoveDetails = {}
): Promise<boolean> {
  const next = nextRefundStatus(refund.status, reported)
  const reference = details.processorReference && !refund.processorReference ? details.processorReference : undefined
  const settled = settledChange(refund, details.settled)
  if (!next) {
    if (reference || settled) {
      await uow.tx.refund.update({
        where: { id: refund.id },
        data: { ...(reference ? { processorReference: reference } : {}), ...settled },
      })
    }
    // What it moved on the balance, known now: the books move from the estimate to it.
    if (settled) await bookPaymentMoney(uow, refund.paymentId, now)
    return Boolean(settled)
  }
  await uow.tx.refund.update({
    where: { id: refund.id },
    data: {
      status: next,
      ...(reference ? { processorReference: reference } : {}),
      ...settled,
      ...(next === 'SUCCEEDED' ? { succeededAt: now, failedAt: null, failureMessage: null } : {}),
      ...(next === 'FAILED' ? { failedAt: now, failureMessage: details.failureMessage ?? null } : {}),
    },
  })
  const delta = refundedDelta(refund.status, next, refund.amount)
  await applyRefundMoney(uow, order, refund.paymentId, delta, now)
  if (delta === 0 && settled) await bookPaymentMoney(uow, refund.paymentId, now)
  return true
}

/**
 * Adds `delta` to the refunded amounts of a payment and, unless the payment is unapplied, of its locked order (its
 * status following). A negative delta gives back a refund that had counted (it failed after succeeding).
 */
export async function applyRefundMoney(
  uow: UnitOfWork,
  order: OrderWithLines,
  paymentId: string,
  delta: number,
  now: Date
): Promise<void> {
  if (delta === 0) return
  const payment = await uow.tx.payment.update({
    where: { id: paymentId },
    data: { amountRefunded: { increment: delta } },
    select: { unapplied: true },
  })
  await bookPaymentMoney(uow, paymentId, now)
  if (payment.unapplied) return
  const money = { amountPaid: order.amountPaid, amountRefunded: order.amountRefunded + delta }
  const status = await applyOrderMoney(uow, order, money, now, delta < 0)
  // The caller's copy of the order is the one later moves in this unit read.
  Object.assign(order, money, { status })
}
