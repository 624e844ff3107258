/**
 * @module Stripe's events as the platform's (`OnlineProcessorEvent`, domain/payments/online-processor-events.ts): one
 * mapper per kind of object an event carries (a payment intent, a refund or a charge's refunds, a dispute, a connected
 * account, a payout, a transfer), and {@link toProcessorEvent}, which picks it by the event's type. An event about an
 * object that carries none of our metadata, or of a type the platform does not act on, is `ignored`.
 */
import type Stripe from 'stripe'
import type { OnlineProcessorEvent } from '../../domain/payments/online-processor-events.ts'
import {
  currencyOf,
  disputeOf,
  embeddedReversals,
  failureCodeOf,
  idOf,
  metadataOf,
  ours,
  recoveredAmong,
  refundStatusOf,
  subjectOf,
} from './stripe-objects.ts'

type Ignored = Extract<OnlineProcessorEvent, { kind: 'ignored' }>

/** A payment intent's success, failure or cancellation. */
function intentEvent(
  eventId: string,
  type: 'payment_intent.succeeded' | 'payment_intent.payment_failed' | 'payment_intent.canceled',
  intent: Stripe.PaymentIntent,
  ignored: Ignored
): OnlineProcessorEvent {
  const subject = subjectOf(intent.metadata)
  if (!subject) return ignored
  if (type === 'payment_intent.canceled') {
    return { kind: 'payment.canceled', eventId, intentId: intent.id, ...subject }
  }
  const money = { amount: ours(intent.amount, intent.currency), currency: currencyOf(intent.currency) }
  if (type === 'payment_intent.succeeded') {
    return { kind: 'payment.succeeded', eventId, intentId: intent.id, ...money, ...subject }
  }
  return {
    kind: 'payment.failed',
    eventId,
    intentId: intent.id,
    ...money,
    failureCode: failureCodeOf(intent.last_payment_error),
    failureMessage: intent.last_payment_error?.message?.slice(0, 500) ?? null,
    ...subject,
  }
}

/** A Stripe refund object, as the platform's `refund.updated`. */
function refundEvent(eventId: string, refund: Stripe.Refund): OnlineProcessorEvent {
  const subject = subjectOf(refund.metadata)
  const refundId = refund.metadata?.refund_id
  return {
    kind: 'refund.updated',
    eventId,
    ...(subject && refundId ? { subject: { ...subject, refundId } } : {}),
    processorRefundId: refund.id,
    intentId: idOf(refund.payment_intent),
    amount: ours(refund.amount, refund.currency),
    currency: currencyOf(refund.currency),
    status: refundStatusOf(refund.status),
    failureMessage: refund.failure_reason ?? null,
  }
}

/**
 * A charge's `charge.refunded`. Stripe sends `refund.created` for each refund too; a charge's event adds nothing when
 * its refunds are not listed in it, and each refund listed is applied like its own event (by the refund's id, once).
 */
function chargeRefundedEvent(eventId: string, charge: Stripe.Charge, ignored: Ignored): OnlineProcessorEvent {
  const refunds = charge.refunds?.data ?? []
  const [latest] = [...refunds].sort((a, b) => b.created - a.created)
  return latest ? refundEvent(eventId, latest) : ignored
}

/** A provider's connected account changed (its metadata names the tenant and provider). */
function accountEvent(eventId: string, account: Stripe.Account, ignored: Ignored): OnlineProcessorEvent {
  const { tenant_id: tenantId, provider_id: providerId } = metadataOf(account)
  if (!tenantId || !providerId) return ignored
  return {
    kind: 'account.updated',
    eventId,
    tenantId,
    providerId,
    accountId: account.id,
    payoutsEnabled: account.payouts_enabled === true,
  }
}

/**
 * A connected account's payout to the provider's bank failed: the event comes from that account (Connect endpoint).
 */
function payoutFailedEvent(
  eventId: string,
  account: string | null | undefined,
  payout: Stripe.Payout,
  ignored: Ignored
): OnlineProcessorEvent {
  if (!account) return ignored
  return {
    kind: 'payout.failed',
    eventId,
    accountId: account,
    payoutId: payout.id,
    amount: ours(payout.amount, payout.currency),
    currency: currencyOf(payout.currency),
    failureCode: payout.failure_code ?? null,
    failureMessage: payout.failure_message ?? null,
  }
}

/**
 * A payout transfer Stripe took back, in part or whole (its metadata names the tenant and our transfer). The event's
 * transfer embeds only its ten most recent reversals: when there are more, what they recovered is a part only, and the
 * event says so (`reversalsUnlisted`) for the transfer to be read back from Stripe before it is applied.
 */
function transferReversedEvent(eventId: string, transfer: Stripe.Transfer, ignored: Ignored): OnlineProcessorEvent {
  const { tenant_id: tenantId, transfer_id: transferId } = metadataOf(transfer)
  if (!tenantId || !transferId) return ignored
  const { reversals, complete } = embeddedReversals(transfer)
  return {
    kind: 'transfer.reversed',
    eventId,
    tenantId,
    transferId,
    processorReference: transfer.id,
    // Cumulative for this Stripe transfer; a partial reversal leaves the rest paid.
    amountReversed:
      typeof transfer.amount_reversed === 'number' ? ours(transfer.amount_reversed, transfer.currency) : 0,
    amountRecovered: recoveredAmong(reversals, transfer.currency),
    ...(complete ? {} : { reversalsUnlisted: true }),
  }
}

/** Maps a verified Stripe event to what the platform acts on. */
export function toProcessorEvent(event: Stripe.Event): OnlineProcessorEvent {
  const ignored: Ignored = { kind: 'ignored', eventId: event.id, type: event.type }
  switch (event.type) {
    case 'payment_intent.succeeded':
    case 'payment_intent.payment_failed':
    case 'payment_intent.canceled':
      return intentEvent(event.id, event.type, event.data.object, ignored)
    case 'charge.dispute.created':
    case 'charge.dispute.updated':
    case 'charge.dispute.closed':
    case 'charge.dispute.funds_withdrawn':
    case 'charge.dispute.funds_reinstated': {
      const reinstated = event.type === 'charge.dispute.funds_reinstated'
      return { kind: 'dispute.updated', eventId: event.id, ...disputeOf(event.data.object, reinstated) }
    }
    case 'account.updated':
      return accountEvent(event.id, event.data.object, ignored)
    case 'payout.failed':
      return payoutFailedEvent(event.id, event.account, event.data.object, ignored)
    case 'transfer.reversed':
      return transferReversedEvent(event.id, event.data.object, ignored)
    case 'refund.created':
    case 'refund.updated':
    case 'refund.failed':
      return refundEvent(event.id, event.data.object)
    case 'charge.refunded':
      return chargeRefundedEvent(event.id, event.data.object, ignored)
    default:
      return ignored
  }
}
