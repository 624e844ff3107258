/**
 * @module What the ledger check reads of one tenant (ledger-check.ts): its orders, payments, their disputes, refunds,
 * the sums of each ledger entry's lines, the `clearing` account's balances, its payout transfer sends and its
 * settlements' reserves, read in one snapshot unit.
 */
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import { CLEARING } from '../settlements/journal.ts'
import type { ReserveFacts } from './ledger-reserves.ts'
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
  /** Per ledger entry and currency of its lines: the sums of its lines in that currency. */
  entries: Array<{ id: string; currency: string; debit: number; credit: number }>
  /** The `clearing` account's balance (debit − credit) in each currency it has lines in: money at the processor. */
  clearing: Array<{ currency: string; balance: number }>
  transfers: OurTransfer[]
  /** The RESERVE and RESERVE_RELEASE items and the provider reserve accounts. */
  reserves: ReserveFacts
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
    // Each currency of an entry on its own: an entry of money the processor converted has lines in two (issue 58).
    await tx.ledgerLine.groupBy({
      by: ['entryId', 'currency'],
      where: { tenantId },
      _sum: { debit: true, credit: true },
      orderBy: [{ entryId: 'asc' }, { currency: 'asc' }],
    }),
  ]
  return {
    orders,
    payments,
    disputes,
    refunds,
    entries: lines.map((l) => ({
      id: l.entryId,
      currency: l.currency,
      debit: l._sum.debit ?? 0,
      credit: l._sum.credit ?? 0,
    })),
    clearing: (
      await tx.ledgerLine.groupBy({
        by: ['currency'],
        where: { tenantId, account: CLEARING },
        _sum: { debit: true, credit: true },
        orderBy: { currency: 'asc' },
      })
    ).map((c) => ({ currency: c.currency, balance: (c._sum.debit ?? 0) - (c._sum.credit ?? 0) })),
    transfers: await loadTransferSends(uow),
    reserves: await loadReserves(uow),
  }
}

const RESERVE_ACCOUNT = 'provider_reserve:'

async function loadReserves({ tx, tenantId }: UnitOfWork): Promise<ReserveFacts> {
  const items = await tx.$queryRaw<ReserveFacts['items']>`
    SELECT si.kind::text AS kind, COALESCE(si.refund_id, si.dispute_id) AS "sourceId",
           si.order_line_id AS "orderLineId", ps.provider_id AS "providerId", ps.currency,
           si.amount::float8 AS amount, si.fee_amount::float8 AS fee
    FROM settlement_items si
    JOIN provider_settlements ps ON ps.id = si.provider_settlement_id AND ps.tenant_id = si.tenant_id
    WHERE si.tenant_id = ${tenantId} AND si.kind IN ('RESERVE', 'RESERVE_RELEASE')
    ORDER BY si.id`
  const accounts = await tx.ledgerLine.groupBy({
    by: ['account', 'currency'],
    where: { tenantId, account: { startsWith: RESERVE_ACCOUNT } },
    _sum: { debit: true, credit: true },
    orderBy: [{ account: 'asc' }, { currency: 'asc' }],
  })
  return {
    items,
    accounts: accounts.map((a) => ({
      providerId: a.account.slice(RESERVE_ACCOUNT.length),
      currency: a.currency,
      debit: a._sum.debit ?? 0,
      credit: a._sum.credit ?? 0,
    })),
  }
}
