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
import { nextRefundStatus, refundedDelta } from './refund-transitions.ts'

/** What a move may record besides the status. */
export interface RefundMoveDetails {
  processorReference?: string
  failureMessage?: string | null
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
  if (!next) {
    if (reference) await uow.tx.refund.update({ where: { id: refund.id }, data: { processorReference: reference } })
    return false
  }
  await uow.tx.refund.update({
    where: { id: refund.id },
    data: {
      status: next,
      ...(reference ? { processorReference: reference } : {}),
      ...(next === 'SUCCEEDED' ? { succeededAt: now, failedAt: null, failureMessage: null } : {}),
      ...(next === 'FAILED' ? { failedAt: now, failureMessage: details.failureMessage ?? null } : {}),
    },
  })
  await applyRefundMoney(uow, order, refund.paymentId, refundedDelta(refund.status, next, refund.amount), now)
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
