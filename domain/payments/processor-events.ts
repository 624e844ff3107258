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
 * those made in the processor's dashboard, move through the refund machine (refund-state.ts). Disputes mark the
 * payment and emit `payment.disputed`. Payout accounts and transfers (Connect) have their own rules in domain/payouts.
 */
import type { Payment } from '../../generated/prisma/client.ts'
import type { Db } from '../../infra/db.ts'
import { runInUnitOfWork, type UnitOfWork } from '../../infra/unit-of-work.ts'
import { recordEvent } from '../events/record-event.ts'
import { newId } from '../ids.ts'
import { lockOrder, type OrderWithLines } from '../orders/order-service.ts'
import { applyAccountUpdated, applyPayoutFailed } from '../payouts/payout-accounts.ts'
import { applyTransferReversed } from '../payouts/payout-transfers.ts'
import { recordFinding } from '../reconciliation/findings.ts'
import { chargedBackDelta, disputeStep } from './dispute-transitions.ts'
import { applyIntentSucceeded } from './intent-outcomes.ts'
import { nextPaymentStatus } from './online-payment-transitions.ts'
import type { PaymentFlows } from './payment-flows.ts'
import type { OnlineProcessorEvent, ParsedProcessorEvent, ProcessorEventEnvelope } from './online-processor-events.ts'
import type { OnlinePaymentProcessor } from './online-processor.ts'
import type { PayoutProcessor } from '../payouts/payout-processor.ts'
import { moveRefund } from './refund-state.ts'
import { refundableOf } from './refund-transitions.ts'

/**
 * What an event did: `applied` a change; left things `unchanged` (a repeat of a state, or older than the state we
 * hold); `duplicate` (this very event was processed before); `ignored` (nothing we act on); `unknown_record` (it
 * names no record of ours); `mismatch` (it disagrees with our record: not applied, reported as a finding).
 */
export type ProcessorEventOutcome = 'applied' | 'unchanged' | 'duplicate' | 'ignored' | 'unknown_record' | 'mismatch'

type Kind<K extends OnlineProcessorEvent['kind']> = Extract<OnlineProcessorEvent, { kind: K }>
type PaymentEvent = Kind<'payment.succeeded' | 'payment.failed' | 'payment.canceled'>

export interface ProcessorEventContext {
  db: Db
  /**
   * The processor; `retrieveRefund`, `retrieveDispute` and `retrieveAccount` ask it for a refund, dispute or account
   * whose event is in doubt (without them, the event is taken).
   */
  processor: { name: string; livemode: boolean } & Partial<
    Pick<OnlinePaymentProcessor, 'retrieveRefund' | 'retrieveDispute'> & Pick<PayoutProcessor, 'retrieveAccount'>
  >
  flows: PaymentFlows
  now: Date
}

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
    // Payout transfers apply a reversal in a unit of their own, idempotent by the amount reversed (domain/payouts);
    // the event is stored after it, so a crash between the two applies it again, harmlessly, on the redelivery.
    const applied = await applyTransferReversed(ctx.db, event)
    const stored = await runInUnitOfWork(ctx.db, tenantId, (uow) =>
      uow.tx.processorEvent.createMany({ data: [rowOf(ctx, envelope, uow.tenantId, applied)], skipDuplicates: true })
    )
    return { outcome: stored.count === 1 ? applied : 'duplicate', tenantId }
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

/** The event, or, when its word is in doubt, the object as the processor holds it now (asked before any unit). */
function asHeld(
  ctx: ProcessorEventContext,
  tenantId: string,
  envelope: ProcessorEventEnvelope,
  event: OnlineProcessorEvent
): Promise<OnlineProcessorEvent> {
  switch (event.kind) {
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

/**
 * A refund event that would move one of our FAILED refunds again. At the processor a failed refund is final, so such
 * an event is older than the failure (whole-second timestamps cannot always tell: a `refund.created` that said
 * succeeded, delivered after the `refund.failed` of the same second, revived the refund), or our FAILED was our own
 * (we gave up asking). In doubt, the processor is asked for the refund as it holds it now, and that state is applied
 * instead of the event's word (issue 46).
 */
async function refundAsHeld(
  ctx: ProcessorEventContext,
  tenantId: string,
  event: Kind<'refund.updated'>
): Promise<Kind<'refund.updated'>> {
  const retrieve = ctx.processor.retrieveRefund
  if (event.status === 'FAILED' || !retrieve) return event
  const ours = await runInUnitOfWork(ctx.db, tenantId, ({ tx }) =>
    tx.refund.findFirst({
      where: {
        tenantId,
        OR: [
          { processorReference: event.processorRefundId },
          ...(event.subject ? [{ id: event.subject.refundId }] : []),
        ],
      },
      select: { status: true },
    })
  )
  if (ours?.status !== 'FAILED') return event
  const held = await retrieve(event.processorRefundId)
  return { ...event, status: held.status, failureMessage: held.failureMessage }
}

/**
 * A dispute event that would undo a loss (a lost dispute reported won or closed). At the processor a lost dispute
 * stays lost unless its funds are reinstated, and money moves back to the provider with it: in that doubt the
 * processor is asked for the dispute as it holds it now, and that is applied instead of the event's word (issue 46).
 */
async function disputeAsHeld(
  ctx: ProcessorEventContext,
  tenantId: string,
  event: Kind<'dispute.updated'>
): Promise<Kind<'dispute.updated'>> {
  const retrieve = ctx.processor.retrieveDispute
  if (!retrieve || !event.intentId) return event
  const intentId = event.intentId
  const ours = await runInUnitOfWork(ctx.db, tenantId, ({ tx }) =>
    tx.payment.findFirst({
      where: { tenantId, processor: ctx.processor.name, processorReference: intentId },
      select: { disputeStatus: true },
    })
  )
  if (!ours || disputeStep(ours.disputeStatus, event.status) !== 'ask') return event
  return { ...event, ...(await retrieve(event.disputeId)) }
}

/**
 * An `account.updated` of the same whole second as one already processed for the account: Stripe's `created` cannot
 * say which came later, and an account has no final state to order them by (an older "payouts enabled" arriving
 * second re-enabled an account Stripe had restricted). In that doubt the account as Stripe holds it now is applied
 * instead of the event's word (issue 46).
 */
async function accountAsHeld(
  ctx: ProcessorEventContext,
  tenantId: string,
  envelope: ProcessorEventEnvelope,
  event: Kind<'account.updated'>
): Promise<Kind<'account.updated'>> {
  const retrieve = ctx.processor.retrieveAccount
  if (!retrieve || !envelope.objectId) return event
  const objectId = envelope.objectId
  const sameSecond = await runInUnitOfWork(ctx.db, tenantId, ({ tx }) =>
    tx.processorEvent.count({
      where: {
        tenantId,
        processor: ctx.processor.name,
        objectId,
        occurredAt: envelope.occurredAt,
        outcome: { in: ['applied', 'unchanged'] },
        eventId: { not: envelope.eventId },
      },
    })
  )
  if (sameSecond === 0) return event
  return { ...event, ...(await retrieve(event.accountId)) }
}

const rowOf = (ctx: ProcessorEventContext, e: ProcessorEventEnvelope, tenantId: string | null, outcome: string) => ({
  id: newId('processorEvent'),
  processor: ctx.processor.name,
  eventId: e.eventId,
  type: e.type,
  tenantId,
  objectId: e.objectId,
  livemode: e.livemode,
  account: e.account,
  outcome,
  occurredAt: e.occurredAt,
})

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
      // An account has no final state: Stripe's later word says it, and an older one arriving late (it said payouts
      // were enabled, before Stripe restricted the account) changes nothing (issue 46).
      if (await isStale(uow, ctx, envelope)) return 'unchanged'
      return applyAccountUpdated(uow, event)
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

/** A payment of ours (of this processor) by id or by its intent, with its order locked. */
async function lockedPayment(
  uow: UnitOfWork,
  processorName: string,
  where: { id: string } | { processorReference: string }
): Promise<{ payment: Payment; order: OrderWithLines } | undefined> {
  const found = await uow.tx.payment.findFirst({
    where: { ...where, tenantId: uow.tenantId, processor: processorName },
    select: { id: true, orderId: true },
  })
  if (!found) return undefined
  const order = await lockOrder(uow, found.orderId)
  // Read under the order's lock: a concurrent event about the same payment has committed, or waits for us.
  const payment = await uow.tx.payment.findFirstOrThrow({ where: { id: found.id, tenantId: uow.tenantId } })
  return { payment, order }
}

/** Whether the processor already told us something later about this object than this event does. */
async function isStale(uow: UnitOfWork, ctx: ProcessorEventContext, envelope: ProcessorEventEnvelope) {
  if (!envelope.objectId) return false
  const later = await uow.tx.processorEvent.count({
    where: {
      tenantId: uow.tenantId,
      processor: ctx.processor.name,
      objectId: envelope.objectId,
      occurredAt: { gt: envelope.occurredAt },
      outcome: 'applied',
    },
  })
  return later > 0
}

/** Reports an event that disagrees with our record, and answers `mismatch`. */
async function mismatch(
  uow: UnitOfWork,
  ctx: ProcessorEventContext,
  found: { objectType: 'PAYMENT' | 'REFUND' | 'DISPUTE'; objectId: string | null; processorReference: string | null },
  ours: { amount: number; currency: string },
  theirs: { amount: number; currency: string },
  type: string
): Promise<'mismatch'> {
  await recordFinding(
    uow,
    {
      kind: 'EVENT_MISMATCH',
      ...found,
      ours,
      theirs,
      detail:
        `The processor's ${type} says ${theirs.amount} ${theirs.currency} where we hold ${ours.amount} ` +
        `${ours.currency}; it was not applied.`,
    },
    ctx.now
  )
  return 'mismatch'
}

async function applyPaymentEvent(
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
  if (event.kind !== 'payment.canceled' && (event.amount !== payment.amount || event.currency !== payment.currency)) {
    const subject = { objectType: 'PAYMENT' as const, objectId: payment.id, processorReference: event.intentId }
    return mismatch(uow, ctx, subject, payment, event, event.kind)
  }
  if (event.kind === 'payment.succeeded') {
    return (await applyIntentSucceeded(uow, order, payment, event.intentId, ctx.flows, ctx.now))
      ? 'applied'
      : 'unchanged'
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

async function applyRefundEvent(
  uow: UnitOfWork,
  ctx: ProcessorEventContext,
  envelope: ProcessorEventEnvelope,
  event: Kind<'refund.updated'>
): Promise<ProcessorEventOutcome> {
  const byPayment = event.subject
    ? { id: event.subject.paymentId }
    : event.intentId
      ? { processorReference: event.intentId }
      : undefined
  const found = byPayment && (await lockedPayment(uow, ctx.processor.name, byPayment))
  if (!found) return 'unknown_record'
  const { payment, order } = found
  if (await isStale(uow, ctx, envelope)) return 'unchanged'
  const refund = await uow.tx.refund.findFirst({
    where: {
      tenantId: uow.tenantId,
      paymentId: payment.id,
      OR: [{ processorReference: event.processorRefundId }, ...(event.subject ? [{ id: event.subject.refundId }] : [])],
    },
  })
  const subject = {
    objectType: 'REFUND' as const,
    objectId: refund?.id ?? null,
    processorReference: event.processorRefundId,
  }
  if (event.currency !== payment.currency || (refund && refund.amount !== event.amount)) {
    return mismatch(uow, ctx, subject, refund ?? payment, event, 'refund event')
  }
  if (refund?.status === 'FAILED' && event.status === 'SUCCEEDED') {
    // Stripe's later word that a refund we had given up on did go through: it counts again only if the payment still
    // has room for it (another refund may have taken that room meanwhile); else the books and Stripe disagree.
    const withRefunds = await uow.tx.payment.findFirstOrThrow({
      where: { id: payment.id, tenantId: uow.tenantId },
      include: { refunds: true },
    })
    const room = refundableOf(withRefunds)
    if (refund.amount > room) return mismatch(uow, ctx, subject, { ...payment, amount: room }, event, 'refund event')
  }
  if (refund) {
    const moved = await moveRefund(uow, order, refund, event.status, ctx.now, {
      processorReference: event.processorRefundId,
      failureMessage: event.failureMessage,
    })
    return moved ? 'applied' : 'unchanged'
  }
  if (event.subject) return 'unknown_record'
  return recordDashboardRefund(uow, ctx, order, payment, event)
}

/**
 * A refund made at the processor directly (its dashboard): recorded as a refund of the payment, origin PROCESSOR, and
 * moved to the state the processor reports. One the payment cannot hold (more than is left to refund) is reported
 * instead of recorded.
 */
async function recordDashboardRefund(
  uow: UnitOfWork,
  ctx: ProcessorEventContext,
  order: OrderWithLines,
  payment: Payment,
  event: Kind<'refund.updated'>
): Promise<ProcessorEventOutcome> {
  if (event.status === 'FAILED') return 'ignored'
  const withRefunds = await uow.tx.payment.findFirstOrThrow({
    where: { id: payment.id, tenantId: uow.tenantId },
    include: { refunds: true },
  })
  if (payment.status !== 'SUCCEEDED' || event.amount > refundableOf(withRefunds)) {
    const subject = { objectType: 'REFUND' as const, objectId: null, processorReference: event.processorRefundId }
    const refundable = payment.status === 'SUCCEEDED' ? refundableOf(withRefunds) : 0
    return mismatch(uow, ctx, subject, { amount: refundable, currency: payment.currency }, event, 'refund event')
  }
  const refund = await uow.tx.refund.create({
    data: {
      id: newId('refund'),
      tenantId: uow.tenantId,
      paymentId: payment.id,
      orderId: order.id,
      amount: event.amount,
      currency: payment.currency,
      reason: 'OTHER',
      method: payment.method,
      status: 'PENDING',
      origin: 'PROCESSOR',
      processorReference: event.processorRefundId,
    },
  })
  await moveRefund(uow, order, refund, event.status, ctx.now)
  return 'applied'
}

async function applyDisputeEvent(
  uow: UnitOfWork,
  ctx: ProcessorEventContext,
  envelope: ProcessorEventEnvelope,
  event: Kind<'dispute.updated'>
): Promise<ProcessorEventOutcome> {
  const found = event.intentId && (await lockedPayment(uow, ctx.processor.name, { processorReference: event.intentId }))
  if (!found) return 'unknown_record'
  const { payment, order } = found
  if (await isStale(uow, ctx, envelope)) return 'unchanged'
  if (event.currency !== payment.currency || event.amount > payment.amount) {
    const subject = { objectType: 'DISPUTE' as const, objectId: payment.id, processorReference: event.disputeId }
    return mismatch(uow, ctx, subject, payment, event, 'dispute event')
  }
  // The dispute's own states order its events (whole-second timestamps cannot): a decided dispute never reopens, a
  // final one never moves. An event that would undo a loss was checked against the processor before the unit
  // (disputeAsHeld), so it carries the processor's current word and is applied.
  if (disputeStep(payment.disputeStatus, event.status) === 'stale') return 'unchanged'
  const amountLost = event.status === 'LOST' ? event.amount : 0
  if (
    payment.disputeStatus === event.status &&
    payment.disputeReference === event.disputeId &&
    payment.amountDisputed === event.amount &&
    payment.amountLost === amountLost &&
    payment.disputeFee === event.fee
  ) {
    return 'unchanged'
  }
  const wasLost = payment.disputeStatus === 'LOST'
  const lost = event.status === 'LOST'
  await uow.tx.payment.update({
    where: { id: payment.id },
    data: {
      disputeStatus: event.status,
      disputeReference: event.disputeId,
      amountDisputed: event.amount,
      amountLost,
      disputeFee: event.fee,
      // The instants settlements count a chargeback between (written when they happen, never back-dated).
      ...(lost && !wasLost ? { disputeLostAt: ctx.now } : {}),
      ...(wasLost && !lost ? { disputeReinstatedAt: ctx.now } : {}),
    },
  })
  // What the payer's bank took back shows on the order, for a payment the order applied (an unapplied one never
  // counted there). The order's status keeps what was paid: the session was delivered, and the dispute is its own.
  const chargedBack = chargedBackDelta(payment.disputeStatus, event.status, payment.amountLost, amountLost)
  if (chargedBack !== 0 && !payment.unapplied) {
    await uow.tx.order.update({
      where: { id: order.id },
      data: { amountChargedBack: { increment: chargedBack } },
    })
  }
  await recordEvent(
    uow,
    'payment.disputed',
    {
      paymentId: payment.id,
      orderId: order.id,
      status: event.status,
      amount: event.amount,
      amountLost,
      fee: event.fee,
      currency: payment.currency,
    },
    { createdAt: ctx.now }
  )
  return 'applied'
}
