/**
 * @module The ledger check (docs/payments.md, "Reconciliation"): for one tenant, the rules our money must satisfy
 * whatever happened (a crash, a retry, a webhook redelivered or out of order), checked against the database and,
 * given one, a snapshot of what the processor holds. It returns the violations and changes nothing; the test suite
 * runs it after payment tests (test/support/ledger-check.ts), an operator may run it for a tenant.
 *
 * 1. Each order: Σ SUCCEEDED applied payments − Σ SUCCEEDED refunds of those payments = amountPaid − amountRefunded
 *    (an unapplied payment is money the order never took: it counts in neither).
 * 2. Each payment: amountRefunded = Σ its SUCCEEDED refunds.
 * 3. Each unapplied payment that succeeded: refunds (PENDING or SUCCEEDED) cover its amount.
 * 4. The double-entry ledger: Σ debit = Σ credit in every entry, and over all entries per currency.
 * 5. Against the processor: every SUCCEEDED online payment's intent succeeded there with the same amount and
 *    currency, and every succeeded intent of the tenant is a SUCCEEDED payment here; every PAID transfer send exists
 *    there with the same amount net of reversals.
 * 6. Disputes: a payment's disputed amount is at most its amount, what a dispute took (`amountLost`) at most what was
 *    disputed, and something exactly when it was LOST (issue 46); each order's `amountChargedBack` is what the lost
 *    disputes of its applied payments took (an unapplied payment's never counts on the order).
 * 7. Against the processor, refunds and disputes (issue 46): every SUCCEEDED refund of an online payment that has
 *    the processor's id succeeded there with the same amount and currency, and every refund that succeeded there of
 *    one of the tenant's intents is a SUCCEEDED refund here; every payment's dispute is there in the same state.
 */
import type { Db } from '../../infra/db.ts'
import { runInUnitOfWork, type UnitOfWork } from '../../infra/unit-of-work.ts'
import { loadTransferSends, type OurTransfer } from './platform-records.ts'
import { processorDisputeAsOurs } from './processor-statuses.ts'
import type { ProcessorSnapshot } from './processor-snapshot.ts'

export type LedgerRule =
  | 'order_amounts'
  | 'payment_refunded'
  | 'unapplied_not_refunded'
  | 'ledger_entry_unbalanced'
  | 'ledger_unbalanced'
  | 'payment_not_at_processor'
  | 'intent_not_recorded'
  | 'transfer_not_at_processor'
  | 'dispute_amounts'
  | 'refund_not_at_processor'
  | 'processor_refund_not_recorded'
  | 'dispute_not_at_processor'
  | 'order_charged_back'

export interface LedgerViolation {
  rule: LedgerRule
  /** The record it is about (an order, payment, ledger entry, intent or transfer id; a currency for the ledger). */
  subject: string
  detail: string
}

/** The tenant's records the rules read. */
export interface LedgerFacts {
  orders: Array<{ id: string; amountPaid: number; amountRefunded: number; amountChargedBack: number }>
  payments: Array<{
    id: string
    orderId: string
    amount: number
    currency: string
    status: string
    method: string
    unapplied: boolean
    amountRefunded: number
    processorReference: string | null
    disputeStatus: string | null
    disputeReference: string | null
    amountDisputed: number
    amountLost: number
  }>
  refunds: Array<{
    id: string
    paymentId: string
    amount: number
    currency: string
    status: string
    processorReference: string | null
  }>
  /** Per ledger entry: its currency and the sums of its lines. */
  entries: Array<{ id: string; currency: string; debit: number; credit: number }>
  transfers: OurTransfer[]
}

/** Reads the tenant's facts (in a snapshot unit: {@link checkLedger}). */
async function loadLedgerFacts(uow: UnitOfWork): Promise<LedgerFacts> {
  const { tx, tenantId } = uow
  const [orders, payments, refunds, lines] = [
    await tx.order.findMany({
      where: { tenantId },
      select: { id: true, amountPaid: true, amountRefunded: true, amountChargedBack: true },
      orderBy: { id: 'asc' },
    }),
    await tx.payment.findMany({
      where: { tenantId },
      select: {
        id: true,
        orderId: true,
        amount: true,
        currency: true,
        status: true,
        method: true,
        unapplied: true,
        amountRefunded: true,
        processorReference: true,
        disputeStatus: true,
        disputeReference: true,
        amountDisputed: true,
        amountLost: true,
      },
      orderBy: { id: 'asc' },
    }),
    await tx.refund.findMany({
      where: { tenantId },
      select: { id: true, paymentId: true, amount: true, currency: true, status: true, processorReference: true },
      orderBy: { id: 'asc' },
    }),
    await tx.ledgerLine.groupBy({
      by: ['entryId'],
      where: { tenantId },
      _sum: { debit: true, credit: true },
      orderBy: { entryId: 'asc' },
    }),
  ]
  const currencies = new Map(
    (await tx.ledgerEntry.findMany({ where: { tenantId }, select: { id: true, currency: true } })).map((e) => [
      e.id,
      e.currency,
    ])
  )
  return {
    orders,
    payments,
    refunds,
    entries: lines.map((l) => ({
      id: l.entryId,
      currency: currencies.get(l.entryId) ?? '?',
      debit: l._sum.debit ?? 0,
      credit: l._sum.credit ?? 0,
    })),
    transfers: await loadTransferSends(uow),
  }
}

const sum = (amounts: number[]) => amounts.reduce((total, amount) => total + amount, 0)

/** The violations of rules 1 to 4, and of rule 5 when a processor snapshot is given. Pure. */
export function ledgerViolations(facts: LedgerFacts, processor?: ProcessorSnapshot): LedgerViolation[] {
  const violations: LedgerViolation[] = []
  const refundsOf = new Map<string, LedgerFacts['refunds']>()
  for (const refund of facts.refunds)
    refundsOf.set(refund.paymentId, [...(refundsOf.get(refund.paymentId) ?? []), refund])
  const succeededRefunds = (paymentId: string) =>
    sum((refundsOf.get(paymentId) ?? []).filter((r) => r.status === 'SUCCEEDED').map((r) => r.amount))

  const applied = facts.payments.filter((p) => p.status === 'SUCCEEDED' && !p.unapplied)
  for (const order of facts.orders) {
    const paid = applied.filter((p) => p.orderId === order.id)
    const net = sum(paid.map((p) => p.amount)) - sum(paid.map((p) => succeededRefunds(p.id)))
    if (net !== order.amountPaid - order.amountRefunded) {
      violations.push({
        rule: 'order_amounts',
        subject: order.id,
        detail:
          `Σ succeeded applied payments − Σ their succeeded refunds = ${net}, but amountPaid − amountRefunded = ` +
          `${order.amountPaid} − ${order.amountRefunded} = ${order.amountPaid - order.amountRefunded}.`,
      })
    }
    const lost = sum(paid.filter((p) => p.disputeStatus === 'LOST').map((p) => p.amountLost))
    if (lost !== order.amountChargedBack) {
      violations.push({
        rule: 'order_charged_back',
        subject: order.id,
        detail: `Its applied payments' lost disputes took ${lost}, but amountChargedBack is ${order.amountChargedBack}.`,
      })
    }
  }
  for (const payment of facts.payments) {
    const refunded = succeededRefunds(payment.id)
    if (payment.amountRefunded !== refunded) {
      violations.push({
        rule: 'payment_refunded',
        subject: payment.id,
        detail: `amountRefunded is ${payment.amountRefunded}, its succeeded refunds sum to ${refunded}.`,
      })
    }
    if (
      payment.amountDisputed > payment.amount ||
      payment.amountLost > payment.amountDisputed ||
      (payment.disputeStatus === 'LOST') !== payment.amountLost > 0
    ) {
      violations.push({
        rule: 'dispute_amounts',
        subject: payment.id,
        detail:
          `Payment of ${payment.amount}: disputed ${payment.amountDisputed}, lost ${payment.amountLost}, ` +
          `dispute ${payment.disputeStatus ?? 'none'}.`,
      })
    }
    if (payment.unapplied && payment.status === 'SUCCEEDED') {
      const covered = sum((refundsOf.get(payment.id) ?? []).filter((r) => r.status !== 'FAILED').map((r) => r.amount))
      if (covered < payment.amount) {
        violations.push({
          rule: 'unapplied_not_refunded',
          subject: payment.id,
          detail: `Unapplied payment of ${payment.amount}: pending and succeeded refunds cover only ${covered}.`,
        })
      }
    }
  }
  violations.push(...ledgerBalance(facts.entries))
  if (processor) violations.push(...againstProcessor(facts, processor))
  return violations
}

function ledgerBalance(entries: LedgerFacts['entries']): LedgerViolation[] {
  const violations: LedgerViolation[] = []
  const totals = new Map<string, { debit: number; credit: number }>()
  for (const entry of entries) {
    if (entry.debit !== entry.credit) {
      violations.push({
        rule: 'ledger_entry_unbalanced',
        subject: entry.id,
        detail: `Its lines debit ${entry.debit} and credit ${entry.credit} ${entry.currency}.`,
      })
    }
    const total = totals.get(entry.currency) ?? { debit: 0, credit: 0 }
    totals.set(entry.currency, { debit: total.debit + entry.debit, credit: total.credit + entry.credit })
  }
  for (const [currency, total] of totals) {
    if (total.debit !== total.credit) {
      violations.push({
        rule: 'ledger_unbalanced',
        subject: currency,
        detail: `The ledger's lines in ${currency} debit ${total.debit} and credit ${total.credit}.`,
      })
    }
  }
  return violations
}

function againstProcessor(facts: LedgerFacts, processor: ProcessorSnapshot): LedgerViolation[] {
  const violations: LedgerViolation[] = []
  const intents = new Map(processor.intents.map((i) => [i.id, i]))
  const intentOfPayment = new Map(processor.intents.filter((i) => i.paymentId).map((i) => [i.paymentId, i]))
  const online = facts.payments.filter((p) => p.method === 'CARD_ONLINE')
  for (const payment of online.filter((p) => p.status === 'SUCCEEDED')) {
    const intent =
      (payment.processorReference === null ? undefined : intents.get(payment.processorReference)) ??
      intentOfPayment.get(payment.id)
    const wrong = !intent
      ? 'has no intent at the processor'
      : intent.status !== 'succeeded'
        ? `has intent ${intent.id} ${intent.status} at the processor`
        : intent.amount !== payment.amount || intent.currency !== payment.currency
          ? `is ${payment.amount} ${payment.currency}; its intent ${intent.id} is ${intent.amount} ${intent.currency}`
          : undefined
    if (wrong)
      violations.push({ rule: 'payment_not_at_processor', subject: payment.id, detail: `SUCCEEDED here, it ${wrong}.` })
  }
  const byReference = new Map(online.filter((p) => p.processorReference).map((p) => [p.processorReference, p]))
  const byId = new Map(online.map((p) => [p.id, p]))
  for (const intent of processor.intents.filter((i) => i.status === 'succeeded')) {
    const payment = byReference.get(intent.id) ?? (intent.paymentId ? byId.get(intent.paymentId) : undefined)
    if (payment?.status !== 'SUCCEEDED') {
      violations.push({
        rule: 'intent_not_recorded',
        subject: intent.id,
        detail: payment
          ? `Succeeded at the processor; payment ${payment.id} is ${payment.status} here.`
          : `Succeeded at the processor (${intent.amount} ${intent.currency}); no payment here is it.`,
      })
    }
  }
  violations.push(...refundsAndDisputesAgainst(facts, processor))
  const transfers = new Map(processor.transfers.map((t) => [t.id, t]))
  for (const send of facts.transfers.filter((t) => t.status === 'PAID')) {
    const theirs = send.processorReference === null ? undefined : transfers.get(send.processorReference)
    const ours = send.amount - send.amountReversed
    const wrong = !theirs
      ? `has no transfer at the processor${send.processorReference ? ` (${send.processorReference})` : ''}`
      : theirs.amount - theirs.amountReversed !== ours || theirs.currency !== send.currency
        ? `nets ${ours} ${send.currency}; transfer ${theirs.id} nets ${theirs.amount - theirs.amountReversed} ${theirs.currency}`
        : undefined
    if (wrong) {
      violations.push({
        rule: 'transfer_not_at_processor',
        subject: send.transferId,
        detail: `PAID here (send ${send.id}), it ${wrong}.`,
      })
    }
  }
  return violations
}

function refundsAndDisputesAgainst(facts: LedgerFacts, processor: ProcessorSnapshot): LedgerViolation[] {
  const violations: LedgerViolation[] = []
  const online = new Map(facts.payments.filter((p) => p.method === 'CARD_ONLINE').map((p) => [p.id, p]))
  const theirRefunds = new Map(processor.refunds.map((r) => [r.id, r]))
  const ourRefunds = facts.refunds.filter((r) => online.has(r.paymentId))
  for (const refund of ourRefunds.filter((r) => r.status === 'SUCCEEDED' && r.processorReference !== null)) {
    const theirs = theirRefunds.get(refund.processorReference!)
    const wrong = !theirs
      ? `has no refund at the processor (${refund.processorReference})`
      : theirs.status !== 'succeeded'
        ? `is ${theirs.status} there (${theirs.id})`
        : theirs.amount !== refund.amount || theirs.currency !== refund.currency
          ? `is ${refund.amount} ${refund.currency}; ${theirs.id} is ${theirs.amount} ${theirs.currency} there`
          : undefined
    if (wrong)
      violations.push({ rule: 'refund_not_at_processor', subject: refund.id, detail: `SUCCEEDED here, it ${wrong}.` })
  }
  const ourIntents = new Set([...online.values()].map((p) => p.processorReference).filter((id) => id !== null))
  const recorded = new Map(ourRefunds.filter((r) => r.processorReference).map((r) => [r.processorReference, r]))
  for (const theirs of processor.refunds.filter((r) => r.status === 'succeeded')) {
    if (!theirs.paymentIntentId || !ourIntents.has(theirs.paymentIntentId)) continue
    const ours = recorded.get(theirs.id) ?? ourRefunds.find((r) => r.id === theirs.refundId)
    if (ours?.status !== 'SUCCEEDED') {
      violations.push({
        rule: 'processor_refund_not_recorded',
        subject: theirs.id,
        detail: ours
          ? `Succeeded at the processor; refund ${ours.id} is ${ours.status} here.`
          : `Succeeded at the processor (${theirs.amount} ${theirs.currency}); no refund here is it.`,
      })
    }
  }
  const disputes = new Map(processor.disputes.map((d) => [d.id, d]))
  for (const payment of online.values()) {
    if (payment.disputeReference === null) continue
    const theirs = disputes.get(payment.disputeReference)
    const wrong = !theirs
      ? `is not at the processor`
      : processorDisputeAsOurs(theirs) !== payment.disputeStatus
        ? `is ${payment.disputeStatus ?? 'none'} here and ${theirs.status} there`
        : undefined
    if (wrong) {
      violations.push({
        rule: 'dispute_not_at_processor',
        subject: payment.id,
        detail: `Its dispute ${payment.disputeReference} ${wrong}.`,
      })
    }
  }
  return violations
}

/**
 * Checks one tenant's books, read from one snapshot of the database: at READ COMMITTED, a refund committed between
 * the read of its order and the read of its payment would look like money out of place while the books hold.
 * @returns the violations, none when the books hold
 */
export async function checkLedger(db: Db, tenantId: string, processor?: ProcessorSnapshot): Promise<LedgerViolation[]> {
  const facts = await runInUnitOfWork(db, tenantId, loadLedgerFacts, { snapshot: true })
  return ledgerViolations(facts, processor)
}
