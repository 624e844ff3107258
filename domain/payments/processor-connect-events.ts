/**
 * @module The Connect events the books take (docs/payments.md, "Processor events"; their rules: domain/payouts): a
 * provider's connected account changed, and a payout transfer the processor took back. An account has no final state,
 * so of two events about it the later says it, and one of the same whole second as another is checked against the
 * processor first (accountAsHeld); a reversal whose event did not list all the transfer's reversals is read back
 * from the processor first (transferAsHeld). A payout to the provider's bank that failed is applied by
 * domain/payouts/payout-accounts.ts directly.
 */
import { runInUnitOfWork, type UnitOfWork } from '../../infra/unit-of-work.ts'
import { applyAccountUpdated } from '../payouts/payout-accounts.ts'
import { applyTransferReversed } from '../payouts/transfer-reversals.ts'
import type { ProcessorEventEnvelope } from './online-processor-events.ts'
import {
  isStale,
  rowOf,
  type Kind,
  type ProcessorEventContext,
  type ProcessorEventOutcome,
} from './processor-event-context.ts'

/**
 * An `account.updated` of the same whole second as one already processed for the account: Stripe's `created` cannot
 * say which came later, and an account has no final state to order them by (an older "payouts enabled" arriving
 * second re-enabled an account Stripe had restricted). In that doubt the account as Stripe holds it now is applied
 * instead of the event's word (issue 46).
 */
export async function accountAsHeld(
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

/**
 * An `account.updated` applied to the provider's payout account. An account has no final state: Stripe's later word
 * says it, and an older one arriving late (it said payouts were enabled, before Stripe restricted the account) changes
 * nothing (issue 46).
 */
export async function applyAccountEvent(
  uow: UnitOfWork,
  ctx: ProcessorEventContext,
  envelope: ProcessorEventEnvelope,
  event: Kind<'account.updated'>
): Promise<ProcessorEventOutcome> {
  if (await isStale(uow, ctx, envelope)) return 'unchanged'
  return applyAccountUpdated(uow, event)
}

/**
 * A `transfer.reversed` that did not list all of the transfer's reversals (Stripe's event carries its ten most
 * recent): what it says was recovered is a part only, and a recovery it left out would be owed to the provider again.
 * The transfer as the processor holds it now, all its reversals read, is applied instead (issue 58: events as hints,
 * objects as truth). Asked before any unit: the processor is never called while a lock is held.
 */
export async function transferAsHeld(
  ctx: ProcessorEventContext,
  event: Kind<'transfer.reversed'>
): Promise<Kind<'transfer.reversed'>> {
  const retrieve = ctx.processor.retrieveTransfer
  if (!event.reversalsUnlisted || !retrieve) return event
  const { reversalsUnlisted: _unlisted, ...listed } = event
  return { ...listed, ...(await retrieve(event.processorReference)) }
}

/**
 * A payout transfer's reversal. Payout transfers apply a reversal in a unit of their own, idempotent by the amount
 * reversed (domain/payouts); the event is stored after it, so a crash between the two applies it again, harmlessly, on
 * the redelivery.
 */
export async function applyTransferReversal(
  ctx: ProcessorEventContext,
  tenantId: string,
  envelope: ProcessorEventEnvelope,
  event: Kind<'transfer.reversed'>
): Promise<ProcessorEventOutcome> {
  const applied = await applyTransferReversed(ctx.db, await transferAsHeld(ctx, event))
  const stored = await runInUnitOfWork(ctx.db, tenantId, (uow) =>
    uow.tx.processorEvent.createMany({ data: [rowOf(ctx, envelope, uow.tenantId, applied)], skipDuplicates: true })
  )
  return stored.count === 1 ? applied : 'duplicate'
}
