/**
 * @module Settles one provider for one run, in one transaction: what they earned before the period's end and were
 * never paid (sessions, refunds and lost disputes of their sessions and those given back, adjustments), the platform's fee, the payout, one balanced journal
 * entry. Run by the settlement workflow's activity; safe to repeat: a provider already handled by this run answers
 * the recorded outcome, one already settled for this period by another run is recorded as ALREADY_SETTLED, and the
 * unique keys of the tables (period per provider, dedupe key per item) refuse a second payment even if two runs race.
 */
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import { notFound } from '../errors.ts'
import { newId } from '../ids.ts'
import { chargebackItemsAsRefunds, itemOf, moneyGivenBack, reinstatedAsFailed } from './chargebacks.ts'
import { journalLines, type SettlementItemKind } from './journal.ts'
import {
  feeOf,
  feeReturned,
  refundMovements,
  settlementTotals,
  type FeeRule,
  type SessionCharge,
} from './settlement-math.ts'
import {
  feeRuleFor,
  ordersWithRefunds,
  payableBalance,
  payableLines,
  settledLinesWithRefunds,
  unsettledAdjustments,
  type SettlementScope,
} from './settlement-sources.ts'

export interface SettlementRun {
  settlementId: string
  currency: string
  periodStart: Date
  periodEnd: Date
}

export type ProviderOutcome = { outcome: 'SETTLED' | 'ALREADY_SETTLED'; providerSettlementId: string }

export interface SettleOptions {
  /**
   * A payout processor will transfer the payout: it waits in `payouts_in_transit:<provider>` until a transfer is paid
   * (domain/payouts/payout-ledger.ts). Without one the payout leaves clearing at once, paid by the centre itself.
   */
  payoutsInTransit?: boolean
}

interface ItemRow {
  id: string
  kind: SettlementItemKind
  dedupeKey: string
  amount: number
  feeAmount: number
  earnedAt: Date
  orderId?: string
  orderLineId?: string
  appointmentId?: string
  refundId?: string
  paymentId?: string
  adjustmentId?: string
  feePercentBps?: number
  feeFixedAmount?: number
}

/** The rule as it applies in this currency, kept on the session so later refunds return the fee it paid. */
const inCurrency = (rule: FeeRule, currency: string): FeeRule => ({
  percentBps: rule.percentBps,
  fixedAmount: rule.fixedCurrency === currency ? rule.fixedAmount : 0,
  fixedCurrency: currency,
})

/**
 * Settles a provider for a run.
 * @param now - when the journal entry is posted
 * @throws AppError `not_found` when the provider does not exist in the tenant
 */
export async function settleProvider(
  uow: UnitOfWork,
  run: SettlementRun,
  providerId: string,
  now: Date,
  options: SettleOptions = {}
): Promise<ProviderOutcome> {
  const { tx, tenantId } = uow
  const done = await tx.settlementProvider.findUnique({
    where: { settlementId_providerId: { settlementId: run.settlementId, providerId } },
  })
  if (done) return { outcome: done.outcome, providerSettlementId: done.providerSettlementId }
  // One settlement of a provider at a time: the balance carried forward must include the one before.
  const locked = await tx.$queryRaw<Array<{ id: string }>>`
    SELECT id FROM providers WHERE id = ${providerId} AND tenant_id = ${tenantId} FOR UPDATE`
  if (locked.length === 0) throw notFound('provider', providerId)

  const period = { currency: run.currency, periodStart: run.periodStart, periodEnd: run.periodEnd }
  const earlier = await tx.providerSettlement.findFirst({
    where: { tenantId, providerId, ...period },
    select: { id: true },
  })
  if (earlier) return record(uow, run, providerId, earlier.id, 'ALREADY_SETTLED')

  const scope: SettlementScope = { providerId, currency: run.currency, end: run.periodEnd }
  const rule = inCurrency(await feeRuleFor(uow, providerId), run.currency)
  const lines = await payableLines(uow, scope)
  const items: ItemRow[] = lines.map((line) => ({
    id: newId('settlementItem'),
    kind: 'SESSION',
    dedupeKey: `SESSION:${line.orderLineId}`,
    amount: line.lineTotal,
    feeAmount: feeOf(line.lineTotal, rule, run.currency),
    earnedAt: new Date(line.earnedAt),
    orderId: line.orderId,
    orderLineId: line.orderLineId,
    appointmentId: line.appointmentId,
    feePercentBps: rule.percentBps,
    feeFixedAmount: rule.fixedAmount,
  }))

  // Refunds of this provider's sessions, settled now or before: those that count and were never taken back, and
  // those taken back that failed since, given back.
  const charges = new Map<string, SessionCharge & { earnedAt: number }>()
  for (const line of lines) charges.set(line.orderLineId, { gross: line.lineTotal, rule, earnedAt: line.earnedAt })
  const settled = await settledLinesWithRefunds(uow, scope)
  for (const line of settled)
    charges.set(line.orderLineId, { gross: line.gross, rule: line.rule, earnedAt: line.earnedAt })
  const orderIds = [...new Set([...lines.map((l) => l.orderId), ...settled.map((l) => l.orderId)])]
  for (const [orderId, order] of await ordersWithRefunds(uow, orderIds, run.periodEnd)) {
    const charged = order.lines.map((l) => l.orderLineId).filter((id) => charges.has(id))
    // Lost disputes go back like refunds, in one cumulative sequence with them (chargebacks.ts).
    const chargebacks = new Set([
      ...order.chargebacks.map((c) => c.paymentId),
      ...order.settledChargebacks.map((c) => c.paymentId),
    ])
    const moves = refundMovements(
      order.lines,
      charged,
      moneyGivenBack(order.lines, order.refunds, order.chargebacks),
      [...order.failed, ...reinstatedAsFailed(order.reinstated)],
      [...order.settled, ...chargebackItemsAsRefunds(order.settledChargebacks)]
    )
    for (const move of moves) {
      const charge = charges.get(move.orderLineId)!
      const reversal = move.kind === 'REFUND_REVERSAL'
      const { dedupeKey, ...kind } = itemOf(move, chargebacks)
      items.push({
        id: newId('settlementItem'),
        ...kind,
        dedupeKey,
        amount: move.amount,
        // A reversal takes back the fee its refund returned: the fee on what the line keeps again.
        feeAmount: reversal
          ? feeReturned(charge, move.after, move.before, run.currency)
          : feeReturned(charge, move.before, move.after, run.currency),
        // A refund before the session was earned is taken back with it, not earlier.
        earnedAt: new Date(Math.max(move.at, charge.earnedAt)),
        orderId,
        orderLineId: move.orderLineId,
      })
    }
  }

  for (const adjustment of await unsettledAdjustments(uow, scope)) {
    items.push({
      id: newId('settlementItem'),
      kind: 'ADJUSTMENT',
      dedupeKey: `ADJUSTMENT:${adjustment.adjustmentId}`,
      amount: adjustment.amount,
      feeAmount: 0,
      earnedAt: new Date(adjustment.createdAt),
      adjustmentId: adjustment.adjustmentId,
    })
  }

  const of = (kind: SettlementItemKind) =>
    items.filter((i) => i.kind === kind).map((i) => ({ amount: i.amount, fee: i.feeAmount }))
  // Refunds net of those given back: a reversal is a refund taken back with its fee, the other way. Chargebacks (lost
  // disputes) are money given back to payers too, and count with them.
  const back = (r: { amount: number; fee: number }) => ({ amount: -r.amount, fee: -r.fee })
  const refunds = [
    ...of('REFUND'),
    ...of('CHARGEBACK'),
    ...of('REFUND_REVERSAL').map(back),
    ...of('CHARGEBACK_REVERSAL').map(back),
  ]
  const totals = settlementTotals(
    { sessions: of('SESSION'), refunds, adjustments: of('ADJUSTMENT') },
    await payableBalance(uow, providerId, run.currency)
  )
  const providerSettlementId = newId('providerSettlement')
  if (totals.payoutAmount > 0) {
    items.push({
      id: newId('settlementItem'),
      kind: 'PAYOUT',
      dedupeKey: `PAYOUT:${providerSettlementId}`,
      amount: totals.payoutAmount,
      feeAmount: 0,
      earnedAt: run.periodEnd,
    })
  }

  await tx.providerSettlement.create({
    data: { id: providerSettlementId, tenantId, settlementId: run.settlementId, providerId, ...period, ...totals },
  })
  await tx.settlementItem.createMany({ data: items.map((item) => ({ ...item, tenantId, providerSettlementId })) })
  await postJournalEntry(uow, run, providerId, providerSettlementId, items, now, options.payoutsInTransit === true)
  return record(uow, run, providerId, providerSettlementId, 'SETTLED')
}

/** One balanced entry with every item's lines; none when nothing moved. */
async function postJournalEntry(
  { tx, tenantId }: UnitOfWork,
  run: SettlementRun,
  providerId: string,
  providerSettlementId: string,
  items: ItemRow[],
  now: Date,
  inTransit: boolean
) {
  const lines = items.flatMap((item) =>
    journalLines({ kind: item.kind, providerId, amount: item.amount, fee: item.feeAmount, inTransit }).map((line) => ({
      ...line,
      settlementItemId: item.id,
    }))
  )
  if (lines.length === 0) return
  const entryId = newId('ledgerEntry')
  await tx.ledgerEntry.create({
    data: {
      id: entryId,
      tenantId,
      currency: run.currency,
      providerSettlementId,
      description: `Settlement ${run.settlementId}: provider ${providerId}, ${run.periodStart.toISOString()} to ${run.periodEnd.toISOString()}`,
      postedAt: now,
    },
  })
  await tx.ledgerLine.createMany({
    data: lines.map((line) => ({ id: newId('ledgerLine'), tenantId, entryId, currency: run.currency, ...line })),
  })
}

async function record(
  { tx, tenantId }: UnitOfWork,
  run: SettlementRun,
  providerId: string,
  providerSettlementId: string,
  outcome: ProviderOutcome['outcome']
): Promise<ProviderOutcome> {
  await tx.settlementProvider.create({
    data: { settlementId: run.settlementId, tenantId, providerId, providerSettlementId, outcome },
  })
  return { outcome, providerSettlementId }
}
