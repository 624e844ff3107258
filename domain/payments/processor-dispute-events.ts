/**
 * @module A dispute's events applied to the dispute they are about (docs/payments.md, "Processor events"; the dispute
 * machine: dispute-transitions.ts): each processor dispute is a row of its own (`payment_disputes`), found by the
 * processor's dispute id or made by its first event, so a charge disputed again (an inquiry closed, then a chargeback)
 * runs a second machine from the start rather than the first one's final state. Its state, amounts, instants and fee
 * go on its row; what a lost dispute took moves the order's `amountChargedBack`; each change emits `payment.disputed`.
 * A loss that would make the payment's lost disputes exceed what it kept (its amount net of refunds) is a mismatch.
 * An event that would undo a loss is checked against the processor first (disputeAsHeld).
 */
import type { Payment, PaymentDispute } from '../../generated/prisma/client.ts'
import { runInUnitOfWork, type UnitOfWork } from '../../infra/unit-of-work.ts'
import { recordEvent } from '../events/record-event.ts'
import { newId } from '../ids.ts'
import type { OrderWithLines } from '../orders/order-service.ts'
import { bookPaymentMoney } from './collection-ledger.ts'
import { chargedBackDelta, disputeChange, disputeStep } from './dispute-transitions.ts'
import type { ProcessorEventEnvelope } from './online-processor-events.ts'
import { recordOnlineRefund } from './online-refunds.ts'
import {
  isStale,
  lockedPayment,
  mismatch,
  type Kind,
  type ProcessorEventContext,
  type ProcessorEventOutcome,
} from './processor-event-context.ts'
import { refundableOf } from './refund-transitions.ts'

/**
 * A dispute event that would undo a loss (a lost dispute reported won or closed). At the processor a lost dispute
 * stays lost unless its funds are reinstated, and money moves back to the provider with it: in that doubt the
 * processor is asked for the dispute as it holds it now, and that is applied instead of the event's word (issue 46).
 */
export async function disputeAsHeld(
  ctx: ProcessorEventContext,
  tenantId: string,
  event: Kind<'dispute.updated'>
): Promise<Kind<'dispute.updated'>> {
  const retrieve = ctx.processor.retrieveDispute
  if (!retrieve) return event
  const ours = await runInUnitOfWork(ctx.db, tenantId, ({ tx }) =>
    tx.paymentDispute.findFirst({
      where: { tenantId, processorReference: event.disputeId },
      select: { status: true },
    })
  )
  if (!ours || disputeStep(ours.status, event.status) !== 'ask') return event
  return { ...event, ...(await retrieve(event.disputeId)) }
}

/** A dispute opened, changed or closed, applied to its own row (the disputed payment's order locked). */
export async function applyDisputeEvent(
  uow: UnitOfWork,
  ctx: ProcessorEventContext,
  envelope: ProcessorEventEnvelope,
  event: Kind<'dispute.updated'>
): Promise<ProcessorEventOutcome> {
  const found = event.intentId && (await lockedPayment(uow, ctx.processor.name, { processorReference: event.intentId }))
  if (!found) return 'unknown_record'
  const { payment, order } = found
  if (await isStale(uow, ctx, envelope)) return 'unchanged'
  // Read under the order's lock: a concurrent event about the same dispute has committed, or waits for us.
  const dispute = await uow.tx.paymentDispute.findFirst({
    where: { tenantId: uow.tenantId, processorReference: event.disputeId },
  })
  const subject = { objectType: 'DISPUTE' as const, objectId: payment.id, processorReference: event.disputeId }
  if (
    event.currency !== payment.currency ||
    event.amount > payment.amount ||
    (dispute && dispute.paymentId !== payment.id)
  ) {
    return mismatch(uow, ctx, subject, payment, event, 'dispute event')
  }
  // The dispute's own states order its events (whole-second timestamps cannot): a decided dispute never reopens, a
  // final one never moves. An event that would undo a loss was checked against the processor before the unit
  // (disputeAsHeld), so it carries the processor's current word and is applied.
  const change = disputeChange(dispute, event, ctx.now)
  if (!change) return 'unchanged'
  const chargedBack = chargedBackDelta(
    dispute?.status ?? null,
    change.status,
    dispute?.amountLost ?? 0,
    change.amountLost
  )
  // The processor never lets a charge be disputed for more than it kept (its amount net of refunds), so losses beyond
  // that, across all the payment's disputes, are a bug or a forged or misrouted event: applied, they would charge back
  // (and take from the provider) money the payment never brought in.
  if (chargedBack > 0) {
    const left = payment.amount - payment.amountRefunded - (await lostByOthers(uow, payment.id, dispute?.id))
    if (change.amountLost > left) {
      const ours = { amount: Math.max(left, 0), currency: payment.currency }
      return mismatch(uow, ctx, subject, ours, { amount: change.amountLost, currency: event.currency }, 'lost dispute')
    }
  }
  const saved = dispute
    ? await uow.tx.paymentDispute.update({ where: { id: dispute.id }, data: change })
    : await uow.tx.paymentDispute.create({
        data: {
          id: newId('paymentDispute'),
          tenantId: uow.tenantId,
          paymentId: payment.id,
          processorReference: event.disputeId,
          ...change,
        },
      })
  // Funds withdrawn or reinstated, and the dispute's fee, move the money held at the processor.
  await bookPaymentMoney(uow, payment.id, ctx.now)
  // What the payer's bank took back shows on the order, for a payment the order applied (an unapplied one never
  // counted there). The order's status keeps what was paid: the session was delivered, and the dispute is its own.
  if (chargedBack !== 0 && !payment.unapplied) {
    await uow.tx.order.update({
      where: { id: order.id },
      data: { amountChargedBack: { increment: chargedBack } },
    })
  }
  await recordEvent(uow, 'payment.disputed', disputedEvent(saved, order.id, payment.currency), { createdAt: ctx.now })
  if (payment.unapplied && payment.status === 'SUCCEEDED' && (saved.status === 'WON' || saved.status === 'CLOSED')) {
    await refundReturnedMoney(uow, ctx, order, payment, saved.id)
  }
  return 'applied'
}

/**
 * Unapplied money is the payer's. While the payer's bank held it the processor refused its automatic refund
 * (`charge_disputed`), so it ended FAILED; once the dispute gives the money back (won, or closed), what is refundable
 * again is refunded automatically, with a key of its own for this dispute. A refund still in flight holds its amount,
 * so nothing is refunded twice.
 */
async function refundReturnedMoney(
  uow: UnitOfWork,
  ctx: ProcessorEventContext,
  order: OrderWithLines,
  payment: Payment,
  disputeId: string
): Promise<void> {
  const held = await uow.tx.payment.findFirstOrThrow({
    where: { id: payment.id, tenantId: uow.tenantId },
    include: { refunds: true, disputes: true },
  })
  const amount = refundableOf(held)
  if (amount === 0) return
  const requestKey = { caller: 'auto', key: `${payment.id}:${disputeId}` }
  const input = { paymentId: payment.id, amount, reason: 'OTHER' as const, requestKey, origin: 'AUTOMATIC' as const }
  await recordOnlineRefund(uow, payment, order, input, ctx.flows, ctx.now)
}

/** What the payment's other disputes (all but `exceptId`, the one being applied) have lost. */
async function lostByOthers(uow: UnitOfWork, paymentId: string, exceptId: string | undefined): Promise<number> {
  const lost = await uow.tx.paymentDispute.aggregate({
    where: { tenantId: uow.tenantId, paymentId, status: 'LOST', ...(exceptId ? { id: { not: exceptId } } : {}) },
    _sum: { amountLost: true },
  })
  return lost._sum.amountLost ?? 0
}

/** The `payment.disputed` event of a dispute as it now stands. */
const disputedEvent = (d: PaymentDispute, orderId: string, currency: string) => ({
  paymentId: d.paymentId,
  disputeId: d.id,
  orderId,
  status: d.status,
  amount: d.amount,
  amountLost: d.amountLost,
  fee: d.fee,
  currency,
})
