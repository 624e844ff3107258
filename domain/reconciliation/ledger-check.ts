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
 * 4. The double-entry ledger: Σ debit = Σ credit in every entry and over all entries, in each currency.
 * 5. Against the processor: every SUCCEEDED online payment's intent succeeded there with the same amount and
 *    currency, and every succeeded intent of the tenant is a SUCCEEDED payment here; every PAID transfer send exists
 *    there with the same amount net of reversals.
 * 6. Disputes, each on its own (a payment can have several, issue 58): its amount is at most its payment's, what it
 *    took (`amountLost`) at most what was disputed, and something exactly when it was LOST (issue 46); each order's
 *    `amountChargedBack` is what the lost disputes of its applied payments took (an unapplied payment's never counts
 *    on the order).
 * 7. Against the processor, refunds and disputes (issue 46): every SUCCEEDED refund of an online payment that has
 *    the processor's id succeeded there with the same amount and currency, and every refund that succeeded there of
 *    one of the tenant's intents is a SUCCEEDED refund here; every dispute of a payment is there in the same state.
 * 8. Reserves (issue 58): each provider's `provider_reserve` account holds what their reserves not yet released
 *    hold, never less than nothing, and each release gives back exactly what its one reserve held.
 * 9. Against the processor, its balance (issue 58): in every currency, the `clearing` account holds what the tenant's
 *    objects there moved on the processor's balance (payments collected, less refunds, withdrawn disputes and their
 *    fees, and transfers net of reversals): the books equal the processor's.
 *
 * What it reads: ledger-facts.ts. Rules 5, 7 and 9, against the processor: ledger-against-processor.ts. Rule 8:
 * ledger-reserves.ts.
 */
import type { Db } from '../../infra/db.ts'
import { runInUnitOfWork } from '../../infra/unit-of-work.ts'
import { againstProcessor } from './ledger-against-processor.ts'
import { loadLedgerFacts, type LedgerFacts } from './ledger-facts.ts'
import { reserveViolations } from './ledger-reserves.ts'
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
  | 'reserve_release'
  | 'reserve_balance'
  | 'clearing_balance'

export interface LedgerViolation {
  rule: LedgerRule
  /** The record it is about (an order, payment, ledger entry, intent or transfer id; a currency for the ledger). */
  subject: string
  detail: string
}

const sum = (amounts: number[]) => amounts.reduce((total, amount) => total + amount, 0)

/** The violations of rules 1 to 4, 6 and 8, and of rules 5, 7 and 9 when a processor snapshot is given. Pure. */
export function ledgerViolations(facts: LedgerFacts, processor?: ProcessorSnapshot): LedgerViolation[] {
  const violations: LedgerViolation[] = []
  const refundsOf = new Map<string, LedgerFacts['refunds']>()
  for (const refund of facts.refunds)
    refundsOf.set(refund.paymentId, [...(refundsOf.get(refund.paymentId) ?? []), refund])
  const succeededRefunds = (paymentId: string) =>
    sum((refundsOf.get(paymentId) ?? []).filter((r) => r.status === 'SUCCEEDED').map((r) => r.amount))

  const lostOf = new Map<string, number>()
  for (const dispute of facts.disputes.filter((d) => d.status === 'LOST'))
    lostOf.set(dispute.paymentId, (lostOf.get(dispute.paymentId) ?? 0) + dispute.amountLost)

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
    const lost = sum(paid.map((p) => lostOf.get(p.id) ?? 0))
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
  violations.push(...disputeAmounts(facts))
  violations.push(...ledgerBalance(facts.entries))
  violations.push(...reserveViolations(facts.reserves))
  if (processor) violations.push(...againstProcessor(facts, processor))
  return violations
}

function disputeAmounts({ payments, disputes }: LedgerFacts): LedgerViolation[] {
  const amounts = new Map(payments.map((p) => [p.id, p.amount]))
  return disputes
    .filter((d) => {
      const paid = amounts.get(d.paymentId) ?? 0
      return d.amount > paid || d.amountLost > d.amount || (d.status === 'LOST') !== d.amountLost > 0
    })
    .map((d) => ({
      rule: 'dispute_amounts' as const,
      subject: d.paymentId,
      detail:
        `Payment of ${amounts.get(d.paymentId) ?? 0}: its dispute ${d.processorReference} disputed ${d.amount}, ` +
        `lost ${d.amountLost}, ${d.status}.`,
    }))
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

/**
 * Checks one tenant's books, read from one snapshot of the database: at READ COMMITTED, a refund committed between
 * the read of its order and the read of its payment would look like money out of place while the books hold.
 * @returns the violations, none when the books hold
 */
export async function checkLedger(db: Db, tenantId: string, processor?: ProcessorSnapshot): Promise<LedgerViolation[]> {
  const facts = await runInUnitOfWork(db, tenantId, loadLedgerFacts, { snapshot: true })
  return ledgerViolations(facts, processor)
}
