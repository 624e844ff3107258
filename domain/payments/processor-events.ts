/**
 * @module Applying an online processor's signed events (its webhooks) to our records (docs/payments.md, "Processor
 * events"). Each event is stored once by its id (`processor_events`) in the same transaction as what it changes, so
 * processing is idempotent by the event's id: a redelivery finds its row and changes nothing, and a crash before the
 * commit leaves neither, for the processor to deliver again. Before anything is applied the event is checked against
 * what we hold: its mode (live or test), the account it came from, and its amount and currency; an event that
 * disagrees is stored as `mismatch`, applied to nothing, and reported as a finding. Of two events about one refund or
 * dispute, the one the processor created later says its state: an older one arriving late changes nothing.
 *
 * Payments: a success moves the order's money once (or, when the order can no longer take it, is recorded unapplied
 * and refunded: intent-outcomes.ts); a failure or a cancellation releases what the payment held. Refunds, including
 * those made in the processor's dashboard, move through the refund machine (refund-state.ts). Each dispute moves
 * through the dispute machine on its own row and emits `payment.disputed`. Payout accounts and transfers (Connect) have their own rules in domain/payouts.
 *
 * This file dispatches: it finds the tenant, stores the event once and hands it to the rules of its kind, one file
 * each (processor-payment-events.ts, processor-refund-events.ts, processor-dispute-events.ts,
 * processor-connect-events.ts), over what they share (processor-event-context.ts).
 */
import { runInUnitOfWork, type UnitOfWork } from '../../infra/unit-of-work.ts'
import { applyPayoutFailed } from '../payouts/payout-accounts.ts'
import type { OnlineProcessorEvent, ParsedProcessorEvent, ProcessorEventEnvelope } from './online-processor-events.ts'
import { accountAsHeld, applyAccountEvent, applyTransferReversal } from './processor-connect-events.ts'
import { applyDisputeEvent, disputeAsHeld } from './processor-dispute-events.ts'
import { rowOf, type ProcessorEventContext, type ProcessorEventOutcome } from './processor-event-context.ts'
import { applyPaymentEvent, paymentAsHeld } from './processor-payment-events.ts'
import { applyRefundEvent, refundAsHeld } from './processor-refund-events.ts'

/**
 * Applies one verified event, once.
 * @returns what it did, and the tenant it concerned (for the log line; never the payer's details)
 */
export async function applyProcessorEvent(
  ctx: ProcessorEventContext,
  { envelope, event }: ParsedProcessorEvent
): Promise<{ outcome: ProcessorEventOutcome; tenantId: string | null }> {
  const tenantId = await tenantOf(ctx, event)
  if (envelope.livemode !== ctx.processor.livemode || !accountMatches(envelope, event)) {
    // Another mode's event (a test event at a live endpoint, or the reverse), or about another account than it names:
    // nothing of it is applied.
    await storeOutsideTenant(ctx, envelope, null, 'mismatch')
    return { outcome: 'mismatch', tenantId: null }
  }
  if (!tenantId) {
    const outcome = event.kind === 'ignored' ? 'ignored' : 'unknown_record'
    return { outcome: (await storeOutsideTenant(ctx, envelope, null, outcome)) ? outcome : 'duplicate', tenantId }
  }
  if (event.kind === 'transfer.reversed') {
    // In a unit of its own (processor-connect-events.ts).
    return { outcome: await applyTransferReversal(ctx, tenantId, envelope, event), tenantId }
  }
  // Asked before the unit: the processor is never called while the order's lock is held.
  const checked = await asHeld(ctx, tenantId, envelope, event)
  const outcome = await runInUnitOfWork(ctx.db, tenantId, async (uow) => {
    const fresh = await uow.tx.processorEvent.createMany({
      data: [rowOf(ctx, envelope, uow.tenantId, 'pending')],
      skipDuplicates: true,
    })
    if (fresh.count === 0) return 'duplicate' as const
    const result = await applyInTenant(uow, ctx, envelope, checked)
    await uow.tx.processorEvent.update({
      where: { processor_eventId: { processor: ctx.processor.name, eventId: envelope.eventId } },
      data: { outcome: result },
    })
    return result
  })
  return { outcome, tenantId }
}

/**
 * The event, or, when its word is in doubt, the object as the processor holds it now; a payment's success with the
 * fee the processor charged on it (asked before any unit).
 */
function asHeld(
  ctx: ProcessorEventContext,
  tenantId: string,
  envelope: ProcessorEventEnvelope,
  event: OnlineProcessorEvent
): Promise<OnlineProcessorEvent> {
  switch (event.kind) {
    case 'payment.succeeded':
      return paymentAsHeld(ctx, event)
    case 'refund.updated':
      return refundAsHeld(ctx, tenantId, event)
    case 'dispute.updated':
      return disputeAsHeld(ctx, tenantId, event)
    case 'account.updated':
      return accountAsHeld(ctx, tenantId, envelope, event)
    default:
      return Promise.resolve(event)
  }
}

/** Stores an event no tenant of ours owns, through the platform's own connection. @returns whether it was new */
async function storeOutsideTenant(
  ctx: ProcessorEventContext,
  envelope: ProcessorEventEnvelope,
  tenantId: string | null,
  outcome: ProcessorEventOutcome
): Promise<boolean> {
  const stored = await ctx.db.processorEvent.createMany({
    data: [rowOf(ctx, envelope, tenantId, outcome)],
    skipDuplicates: true,
  })
  return stored.count === 1
}

/**
 * The connected account an event comes from must be the one it is about: a Connect event about a provider's account
 * comes from that account, and the platform's own payments, refunds, disputes and transfers from none.
 */
function accountMatches(envelope: ProcessorEventEnvelope, event: OnlineProcessorEvent): boolean {
  if (event.kind === 'account.updated') return envelope.account === null || envelope.account === event.accountId
  if (event.kind === 'payout.failed') return envelope.account === event.accountId
  if (event.kind === 'ignored') return true
  return envelope.account === null
}

/**
 * The tenant an event is about: from the metadata we gave the object, else (a refund made in the processor's
 * dashboard, a dispute) from the payment its intent paid, looked up by the intent's id, which the processor made
 * unique. That one lookup reads across tenants, through the platform's own connection, and returns only the tenant.
 */
async function tenantOf(ctx: ProcessorEventContext, event: OnlineProcessorEvent): Promise<string | null> {
  switch (event.kind) {
    case 'ignored':
      return null
    case 'refund.updated':
      if (event.subject) return event.subject.tenantId
      return event.intentId ? tenantOfIntent(ctx, event.intentId) : null
    case 'dispute.updated':
      return event.intentId ? tenantOfIntent(ctx, event.intentId) : null
    case 'payout.failed': {
      // A payout carries none of our metadata: the connected account it comes from is a provider's of one tenant.
      const account = await ctx.db.providerPayoutAccount.findFirst({
        where: { processor: ctx.processor.name, accountId: event.accountId },
        select: { tenantId: true },
      })
      return account?.tenantId ?? null
    }
    default:
      return event.tenantId
  }
}

async function tenantOfIntent(ctx: ProcessorEventContext, intentId: string): Promise<string | null> {
  const payment = await ctx.db.payment.findFirst({
    where: { processor: ctx.processor.name, processorReference: intentId },
    select: { tenantId: true },
  })
  return payment?.tenantId ?? null
}

async function applyInTenant(
  uow: UnitOfWork,
  ctx: ProcessorEventContext,
  envelope: ProcessorEventEnvelope,
  event: OnlineProcessorEvent
): Promise<ProcessorEventOutcome> {
  switch (event.kind) {
    case 'ignored':
      return 'ignored'
    case 'account.updated':
      return applyAccountEvent(uow, ctx, envelope, event)
    case 'payout.failed':
      return applyPayoutFailed(uow, event, envelope.occurredAt)
    case 'transfer.reversed':
      throw new Error('transfer reversals are applied in their own unit (applyProcessorEvent)')
    case 'refund.updated':
      return applyRefundEvent(uow, ctx, envelope, event)
    case 'dispute.updated':
      return applyDisputeEvent(uow, ctx, envelope, event)
    default:
      return applyPaymentEvent(uow, ctx, event)
  }
}
