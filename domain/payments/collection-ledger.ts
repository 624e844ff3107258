/**
 * @module The books of money moving between payers, the processor and the centre (domain/settlements/journal.ts,
 * "Money moving"): a payment that succeeded brings its amount into `clearing` (or `centre_funds`, for one the centre
 * recorded), owed to the payers until a settlement takes it (`payer_funds`); a refund that succeeded and a dispute
 * whose funds the payer's bank withdrew take it back out; the processor's fees (its processing fee on the payment, a
 * dispute's fee) leave it for `processor_fees`. So `clearing` moves when the processor's balance moves, not when a
 * settlement runs, and the ledger check can hold it to the processor's balance (ledger-against-processor.ts).
 *
 * Each payment, refund and dispute has entries of its own (`collectionOf`), and what is posted is the difference
 * between what moved (by its row's state now) and what its entries already hold: posting again changes nothing, and a
 * state that moves back (a refund failed after it succeeded, funds reinstated) posts the difference back. It runs in
 * the unit that changed the state, under the order's lock the changes take.
 */
import { Prisma } from '../../generated/prisma/client.ts'
import type { PaymentDisputeStatus, PaymentStatus, RefundStatus } from '../../generated/prisma/enums.ts'
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import { newId } from '../ids.ts'
import { collectionLines, holdingAccount, PAYER_FUNDS, PROCESSOR_FEES } from '../settlements/journal.ts'
import { postEntry } from '../settlements/post-entry.ts'

/** What has moved for one payment, refund or dispute: money held for the payers, and the processor's fees. */
export interface MoneyMoved {
  subject: string
  /** Minor units held for the payers: positive for a payment, negative for what a refund or a dispute took back. */
  collected: number
  fee: number
  description: string
}

/** A payment with its refunds and disputes, in what their money depends on. */
export interface PaymentMoney {
  id: string
  status: PaymentStatus
  amount: number
  /** The processor's processing fee on it (0 for one the centre recorded, or while the processor has not said). */
  processorFee: number
  refunds: Array<{ id: string; status: RefundStatus; amount: number }>
  disputes: Array<{
    id: string
    processorReference: string
    status: PaymentDisputeStatus
    amount: number
    fee: number
    fundsWithdrawnAt: Date | null
  }>
}

/**
 * What has moved for a payment and each of its refunds and disputes. Pure. A payment's fee is the processor's
 * processing fee on it; a dispute's funds are out while the bank holds them (withdrawn, and not won: Stripe gives them
 * back when the centre wins), and its fee is what the processor charged net of what it gave back.
 */
export function moneyMoved(payment: PaymentMoney): MoneyMoved[] {
  return [
    {
      subject: payment.id,
      collected: payment.status === 'SUCCEEDED' ? payment.amount : 0,
      fee: payment.status === 'SUCCEEDED' ? payment.processorFee : 0,
      description: `Payment ${payment.id}`,
    },
    ...payment.refunds.map((refund) => ({
      subject: refund.id,
      collected: refund.status === 'SUCCEEDED' ? -refund.amount : 0,
      fee: 0,
      description: `Refund ${refund.id} of payment ${payment.id}`,
    })),
    ...payment.disputes.map((dispute) => ({
      subject: dispute.id,
      collected: dispute.fundsWithdrawnAt && dispute.status !== 'WON' ? -dispute.amount : 0,
      fee: dispute.fee,
      description: `Dispute ${dispute.processorReference} of payment ${payment.id}`,
    })),
  ]
}

/**
 * Brings the books of one payment, its refunds and its disputes to what has moved for them (see the module), in the
 * unit's transaction.
 * @param now - the entries' posting instant: when the change that moved the money is recorded
 */
export async function bookPaymentMoney(uow: UnitOfWork, paymentId: string, now: Date): Promise<void> {
  const { tx, tenantId } = uow
  const payment = await tx.payment.findFirstOrThrow({
    where: { id: paymentId, tenantId },
    select: {
      id: true,
      status: true,
      amount: true,
      processorFee: true,
      currency: true,
      processor: true,
      refunds: { select: { id: true, status: true, amount: true } },
      disputes: {
        select: { id: true, processorReference: true, status: true, amount: true, fee: true, fundsWithdrawnAt: true },
      },
    },
  })
  const moved = moneyMoved(payment)
  const booked = await bookedOf(
    uow,
    moved.map((m) => m.subject)
  )
  const holding = holdingAccount(payment.processor)
  for (const target of moved) {
    const held = booked.get(target.subject) ?? { collected: 0, fee: 0 }
    await postEntry(
      uow,
      { currency: payment.currency, collectionOf: target.subject, description: target.description, postedAt: now },
      collectionLines(holding, target.collected - held.collected, target.fee - held.fee)
    )
  }
}

/**
 * Books a payment that has just succeeded in this unit and has nothing booked yet (one the centre recorded, made by the
 * request): what {@link bookPaymentMoney} would post, in one statement through the driver rather than its reads and
 * Prisma's creates. Every recorded payment pays for it on the request path (the webhook bench's emitting call).
 */
export async function bookNewPayment(
  uow: UnitOfWork,
  payment: { id: string; amount: number; currency: string; processor: string },
  now: Date
): Promise<void> {
  const entryId = newId('ledgerEntry')
  const lines = collectionLines(holdingAccount(payment.processor), payment.amount, 0).map(
    (line) =>
      Prisma.sql`(${newId('ledgerLine')}, ${uow.tenantId}, ${entryId}, ${line.account}, ${payment.currency},
        ${line.debit}::bigint, ${line.credit}::bigint)`
  )
  await uow.query(Prisma.sql`
    WITH entry AS (
      INSERT INTO ledger_entries (id, tenant_id, currency, collection_of, description, posted_at)
      VALUES (${entryId}, ${uow.tenantId}, ${payment.currency}, ${payment.id}, ${`Payment ${payment.id}`},
        ${now}::timestamptz)
    )
    INSERT INTO ledger_lines (id, tenant_id, entry_id, account, currency, debit, credit)
    VALUES ${Prisma.join(lines)}`)
}

/** What the entries of each subject hold: `payer_funds` credited is money collected, `processor_fees` debited fees. */
async function bookedOf(
  { tx, tenantId }: UnitOfWork,
  subjects: string[]
): Promise<Map<string, { collected: number; fee: number }>> {
  const rows = await tx.$queryRaw<Array<{ subject: string; account: string; balance: number }>>`
    SELECT e.collection_of AS subject, l.account, SUM(l.debit - l.credit)::float8 AS balance
    FROM ledger_entries e
    JOIN ledger_lines l ON l.tenant_id = e.tenant_id AND l.entry_id = e.id
    WHERE e.tenant_id = ${tenantId} AND e.collection_of = ANY(${subjects})
      AND l.account IN (${PAYER_FUNDS}, ${PROCESSOR_FEES})
    GROUP BY e.collection_of, l.account`
  const booked = new Map<string, { collected: number; fee: number }>()
  for (const row of rows) {
    const held = booked.get(row.subject) ?? { collected: 0, fee: 0 }
    if (row.account === PAYER_FUNDS) held.collected = -row.balance
    else held.fee = row.balance
    booked.set(row.subject, held)
  }
  return booked
}
