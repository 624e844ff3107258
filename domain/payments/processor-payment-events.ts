/**
 * @module A payment intent's events applied to its payment (docs/payments.md, "Processor events"): a success moves the
 * order's money once (or, when the order can no longer take it, is recorded unapplied and refunded:
 * intent-outcomes.ts); a failure or a cancellation releases what the payment held. An event about another intent than
 * the payment's, or with another amount or currency, changes nothing.
 */
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import { applyIntentSucceeded, intentMismatch } from './intent-outcomes.ts'
import { nextPaymentStatus } from './online-payment-transitions.ts'
import {
  lockedPayment,
  type Kind,
  type ProcessorEventContext,
  type ProcessorEventOutcome,
} from './processor-event-context.ts'

type PaymentEvent = Kind<'payment.succeeded' | 'payment.failed' | 'payment.canceled'>

/**
 * A payment's success with the processor's cost of it (issue 58: its processing fee, and what it moved on a balance in
 * another currency), which its event does not carry: asked before the unit, as a doubtful dispute is. If the
 * processor cannot be asked, the event fails and the processor delivers it again.
 */
export async function paymentAsHeld(
  ctx: ProcessorEventContext,
  event: Kind<'payment.succeeded'>
): Promise<Kind<'payment.succeeded'>> {
  const ask = ctx.processor.intentCharge
  if (!ask) return event
  const charge = await ask(event.intentId)
  return { ...event, fee: charge?.fee ?? null, settled: charge?.settled ?? null }
}

/** A payment intent's success, failure or cancellation, applied to our payment (its order locked). */
export async function applyPaymentEvent(
  uow: UnitOfWork,
  ctx: ProcessorEventContext,
  event: PaymentEvent
): Promise<ProcessorEventOutcome> {
  const found = await lockedPayment(uow, ctx.processor.name, { id: event.paymentId })
  if (!found) return 'unknown_record'
  const { payment, order } = found
  // The intent is ours only if it is the one we made for this payment (or, after a crash before we stored its id,
  // the metadata we gave it says so: the signature proves the processor sent it).
  if (payment.processorReference && payment.processorReference !== event.intentId) return 'unknown_record'
  if (event.kind !== 'payment.canceled') {
    const disagrees = await intentMismatch(uow, payment, event, event.kind, ctx.now)
    if (disagrees) return disagrees
  }
  if (event.kind === 'payment.succeeded') {
    return (await applyIntentSucceeded(uow, order, payment, event, ctx.flows, ctx.now)) ? 'applied' : 'unchanged'
  }
  const outcome = event.kind === 'payment.failed' ? 'FAILED' : 'CANCELED'
  if (!nextPaymentStatus(payment.status, outcome)) return 'unchanged'
  await uow.tx.payment.update({
    where: { id: payment.id },
    data:
      event.kind === 'payment.failed'
        ? {
            status: 'FAILED',
            processorReference: event.intentId,
            failureCode: event.failureCode,
            failureMessage: event.failureMessage,
          }
        : { status: 'CANCELED', processorReference: event.intentId, expiresAt: null },
  })
  return 'applied'
}
