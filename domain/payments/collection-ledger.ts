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
import {
  collectionBalances,
  holdingAccount,
  linesBetween,
  type AccountBalance,
  type SettledMove,
} from '../settlements/journal.ts'
import { postEntry } from '../settlements/post-entry.ts'

/** What has moved for one payment, refund or dispute: money held for the payers, and the processor's fees. */
export interface MoneyMoved {
  subject: string
  /** Minor units held for the payers: positive for a payment, negative for what a refund or a dispute took back. */
  collected: number
  fee: number
  /** The same on the processor's balance, when it keeps another currency (it converted the money, issue 58). */
  settled?: SettledMove
  description: string
}

/** What the processor's balance moved, in its currency, when it is not the payment's (null columns: none). */
interface SettledColumns {
  settledCurrency: string | null
  settledAmount: number | null
  settledFee: number | null
}

/** A payment with its refunds and disputes, in what their money depends on. */
export interface PaymentMoney extends SettledColumns {
  id: string
  status: PaymentStatus
  amount: number
  /** The processor's processing fee on it (0 for one the centre recorded, or while the processor has not said). */
  processorFee: number
  refunds: Array<{
    id: string
    status: RefundStatus
    amount: number
    /** What it moved on the balance, when the processor said (its balance transaction); null: not said. */
    settledCurrency: string | null
    settledAmount: number | null
  }>
  disputes: Array<
    SettledColumns & {
      id: string
      processorReference: string
      status: PaymentDisputeStatus
      amount: number
      fee: number
      fundsWithdrawnAt: Date | null
    }
  >
}

/**
 * What has moved for a payment and each of its refunds and disputes. Pure. A payment's fee is the processor's
 * processing fee on it; a dispute's funds are out while the bank holds them (withdrawn, and not won: Stripe gives them
 * back when the centre wins), and its fee is what the processor charged net of what it gave back.
 *
 * A payment the processor converted (its balance keeps another currency) moves there what its balance transaction
 * says; a refund and a dispute what their own say, once read. One not read yet moves it at the payment's own rate
 * (its charge's amount there over its amount here, rounded to the minor unit): an estimate, where the processor
 * converts at the day's rate, until the processor's word on it is read (its answer, an event read back, a
 * reconciliation run) and the difference is posted.
 */
export function moneyMoved(payment: PaymentMoney): MoneyMoved[] {
  const charged = settledOf(payment)
  const succeeded = payment.status === 'SUCCEEDED'
  const atChargeRate = (collected: number, fee: number): SettledMove | undefined =>
    charged && {
      currency: charged.currency,
      collected: Math.round((collected * charged.collected) / payment.amount),
      fee: Math.round((fee * charged.collected) / payment.amount),
    }
  return [
    {
      subject: payment.id,
      collected: succeeded ? payment.amount : 0,
      fee: succeeded ? payment.processorFee : 0,
      ...(charged && { settled: succeeded ? charged : { ...charged, collected: 0, fee: 0 } }),
      description: `Payment ${payment.id}`,
    },
    ...payment.refunds.map((refund) => {
      const collected = refund.status === 'SUCCEEDED' ? -refund.amount : 0
      // What Stripe said it moved while it succeeded; nothing once it failed; the estimate until Stripe said.
      const settled =
        refund.settledCurrency !== null && collected !== 0
          ? { currency: refund.settledCurrency, collected: refund.settledAmount ?? 0, fee: 0 }
          : atChargeRate(collected, 0)
      return {
        subject: refund.id,
        collected,
        fee: 0,
        ...(settled && { settled }),
        description: `Refund ${refund.id} of payment ${payment.id}`,
      }
    }),
    ...payment.disputes.map((dispute) => {
      const collected = dispute.fundsWithdrawnAt && dispute.status !== 'WON' ? -dispute.amount : 0
      const settled = settledOf(dispute) ?? atChargeRate(collected, dispute.fee)
      return {
        subject: dispute.id,
        collected,
        fee: dispute.fee,
        ...(settled && { settled }),
        description: `Dispute ${dispute.processorReference} of payment ${payment.id}`,
      }
    }),
  ]
}

const settledOf = (row: SettledColumns): SettledMove | undefined =>
  row.settledCurrency === null
    ? undefined
    : { currency: row.settledCurrency, collected: row.settledAmount ?? 0, fee: row.settledFee ?? 0 }

const SETTLED = { settledCurrency: true, settledAmount: true, settledFee: true } as const

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
      ...SETTLED,
      refunds: { select: { id: true, status: true, amount: true, settledCurrency: true, settledAmount: true } },
      disputes: {
        select: {
          id: true,
          processorReference: true,
          status: true,
          amount: true,
          fee: true,
          fundsWithdrawnAt: true,
          ...SETTLED,
        },
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
    const balances = collectionBalances(holding, payment.currency, target.collected, target.fee, target.settled)
    await postEntry(
      uow,
      { currency: payment.currency, collectionOf: target.subject, description: target.description, postedAt: now },
      linesBetween(booked.get(target.subject) ?? [], balances)
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
  const lines = linesBetween(
    [],
    collectionBalances(holdingAccount(payment.processor), payment.currency, payment.amount, 0)
  ).map(
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

/** What the entries of each subject hold, account by account and currency by currency. */
async function bookedOf({ tx, tenantId }: UnitOfWork, subjects: string[]): Promise<Map<string, AccountBalance[]>> {
  const rows = await tx.$queryRaw<Array<{ subject: string; account: string; currency: string; balance: number }>>`
    SELECT e.collection_of AS subject, l.account, l.currency, SUM(l.debit - l.credit)::float8 AS balance
    FROM ledger_entries e
    JOIN ledger_lines l ON l.tenant_id = e.tenant_id AND l.entry_id = e.id
    WHERE e.tenant_id = ${tenantId} AND e.collection_of = ANY(${subjects})
    GROUP BY e.collection_of, l.account, l.currency`
  const booked = new Map<string, AccountBalance[]>()
  for (const { subject, ...balance } of rows) booked.set(subject, [...(booked.get(subject) ?? []), balance])
  return booked
}
