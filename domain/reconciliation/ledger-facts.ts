/**
 * @module What the ledger check reads of one tenant (ledger-check.ts): its orders, payments, their disputes, refunds,
 * the sums of each ledger entry's lines and its payout transfer sends, read in one snapshot unit.
 */
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import { loadTransferSends, type OurTransfer } from './platform-records.ts'

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
  }>
  disputes: Array<{
    id: string
    paymentId: string
    processorReference: string
    status: string
    amount: number
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
export async function loadLedgerFacts(uow: UnitOfWork): Promise<LedgerFacts> {
  const { tx, tenantId } = uow
  const [orders, payments, disputes, refunds, lines] = [
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
      },
      orderBy: { id: 'asc' },
    }),
    await tx.paymentDispute.findMany({
      where: { tenantId },
      select: { id: true, paymentId: true, processorReference: true, status: true, amount: true, amountLost: true },
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
    disputes,
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
