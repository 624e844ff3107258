/**
 * @module What applying a processor event works with, whatever its kind (processor-events.ts dispatches them): the
 * context and the outcomes, the event's own row, the payment of ours it is about (its order locked), whether the
 * processor already told us something later about its object, and a disagreement with our record reported as a
 * finding.
 */
import type { Payment } from '../../generated/prisma/client.ts'
import type { Db } from '../../infra/db.ts'
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import { newId } from '../ids.ts'
import { lockOrder, type OrderWithLines } from '../orders/order-service.ts'
import type { PayoutProcessor } from '../payouts/payout-processor.ts'
import { recordFinding } from '../reconciliation/findings.ts'
import type { OnlineProcessorEvent, ProcessorEventEnvelope } from './online-processor-events.ts'
import type { OnlinePaymentProcessor } from './online-processor.ts'
import type { PaymentFlows } from './payment-flows.ts'

/**
 * What an event did: `applied` a change; left things `unchanged` (a repeat of a state, or older than the state we
 * hold); `duplicate` (this very event was processed before); `ignored` (nothing we act on); `unknown_record` (it
 * names no record of ours); `mismatch` (it disagrees with our record: not applied, reported as a finding).
 */
export type ProcessorEventOutcome = 'applied' | 'unchanged' | 'duplicate' | 'ignored' | 'unknown_record' | 'mismatch'

/** One kind of processor event. */
export type Kind<K extends OnlineProcessorEvent['kind']> = Extract<OnlineProcessorEvent, { kind: K }>

export interface ProcessorEventContext {
  db: Db
  /**
   * The processor; `retrieveRefund`, `retrieveDispute`, `retrieveAccount` and `retrieveTransfer` ask it for a refund,
   * dispute, account or transfer whose event is in doubt or incomplete, `intentCharge` for the cost of a payment that
   * succeeded (without them, the event is taken as it is).
   */
  processor: { name: string; livemode: boolean } & Partial<
    Pick<OnlinePaymentProcessor, 'retrieveRefund' | 'retrieveDispute' | 'intentCharge'> &
      Pick<PayoutProcessor, 'retrieveAccount' | 'retrieveTransfer'>
  >
  flows: PaymentFlows
  now: Date
}

/** The event's row in `processor_events`, stored once by its id. */
export const rowOf = (
  ctx: ProcessorEventContext,
  e: ProcessorEventEnvelope,
  tenantId: string | null,
  outcome: string
) => ({
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

/** A payment of ours (of this processor) by id or by its intent, with its order locked. */
export async function lockedPayment(
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
export async function isStale(uow: UnitOfWork, ctx: ProcessorEventContext, envelope: ProcessorEventEnvelope) {
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
export async function mismatch(
  uow: UnitOfWork,
  ctx: Pick<ProcessorEventContext, 'now'>,
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
