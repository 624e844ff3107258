/**
 * @module What a provider's settlement is made of (settle-provider.ts): its items, one per thing that moved, each with
 * the platform's fee on it. Sessions earned before the period's end and never settled; refunds and lost disputes of
 * their sessions, settled now or before, that count and were never taken back, and those taken back that failed since,
 * given back; reserves for their refunds pending and disputes open, and those whose refund or dispute closed since,
 * released (reserves.ts); adjustments not yet settled; and the totals they make with the balance carried forward.
 */
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import { newId } from '../ids.ts'
import { chargebackItemsAsRefunds, itemOf, moneyGivenBack, reinstatedAsFailed } from './chargebacks.ts'
import type { SettlementItemKind } from './journal.ts'
import { ordersWithReserves } from './reserve-sources.ts'
import { heldBy, reserveKey, reserveMovements } from './reserves.ts'
import { feeOf, feeReturned, refundMovements, type FeeRule, type SessionCharge } from './settlement-math.ts'
import { settlementTotals } from './settlement-totals.ts'
import { payableBalance, unsettledAdjustments } from './provider-terms.ts'
import {
  ordersWithRefunds,
  settledLinesWithRefunds,
  type PayableLine,
  type SettlementScope,
} from './settlement-sources.ts'

/** One settlement item, as stored. */
export interface ItemRow {
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
  disputeId?: string
  adjustmentId?: string
  feePercentBps?: number
  feeFixedAmount?: number
}

/** The rule as it applies in this currency, kept on the session so later refunds return the fee it paid. */
export const inCurrency = (rule: FeeRule, currency: string): FeeRule => ({
  percentBps: rule.percentBps,
  fixedAmount: rule.fixedCurrency === currency ? rule.fixedAmount : 0,
  fixedCurrency: currency,
})

/** An item per session line earned and never settled, with the fee the rule takes on it. */
export function sessionItems(lines: PayableLine[], rule: FeeRule, currency: string): ItemRow[] {
  return lines.map((line) => ({
    id: newId('settlementItem'),
    kind: 'SESSION',
    dedupeKey: `SESSION:${line.orderLineId}`,
    amount: line.lineTotal,
    feeAmount: feeOf(line.lineTotal, rule, currency),
    earnedAt: new Date(line.earnedAt),
    orderId: line.orderId,
    orderLineId: line.orderLineId,
    appointmentId: line.appointmentId,
    feePercentBps: rule.percentBps,
    feeFixedAmount: rule.fixedAmount,
  }))
}

/**
 * Refunds of this provider's sessions (the payable ones and those settled before), settled now or before: those that
 * count and were never taken back, and those taken back that failed since, given back; and the reserves of those
 * pending (and disputes open), made or released.
 */
export async function refundItems(
  uow: UnitOfWork,
  scope: SettlementScope,
  lines: PayableLine[],
  rule: FeeRule
): Promise<ItemRow[]> {
  const items: ItemRow[] = []
  const charges = new Map<string, SessionCharge & { earnedAt: number }>()
  for (const line of lines) charges.set(line.orderLineId, { gross: line.lineTotal, rule, earnedAt: line.earnedAt })
  const settled = await settledLinesWithRefunds(uow, scope)
  for (const line of settled)
    charges.set(line.orderLineId, { gross: line.gross, rule: line.rule, earnedAt: line.earnedAt })
  const orderIds = [...new Set([...lines.map((l) => l.orderId), ...settled.map((l) => l.orderId)])]
  const [orders, reserves] = await Promise.all([
    ordersWithRefunds(uow, orderIds, scope.end),
    ordersWithReserves(uow, orderIds, scope.end),
  ])
  for (const [orderId, order] of orders) {
    const charged = order.lines.map((l) => l.orderLineId).filter((id) => charges.has(id))
    // Lost disputes go back like refunds, in one cumulative sequence with them (chargebacks.ts), each its own.
    const chargebacks = new Map([
      ...order.chargebacks.map((c) => [c.disputeId, c.paymentId] as const),
      ...order.settledChargebacks.map((c) => [c.disputeId, c.paymentId] as const),
    ])
    const givenBack = moneyGivenBack(order.lines, order.refunds, order.chargebacks)
    const moves = refundMovements(
      order.lines,
      charged,
      givenBack,
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
          ? feeReturned(charge, move.after, move.before, scope.currency)
          : feeReturned(charge, move.before, move.after, scope.currency),
        // A refund before the session was earned is taken back with it, not earlier.
        earnedAt: new Date(Math.max(move.at, charge.earnedAt)),
        orderId,
        orderLineId: move.orderLineId,
      })
    }
    const { pending, held } = reserves.get(orderId)!
    const ofOrder = new Map(charged.map((id) => [id, charges.get(id)!]))
    for (const move of reserveMovements(order.lines, ofOrder, givenBack, pending, held, scope.currency)) {
      items.push({
        id: newId('settlementItem'),
        kind: move.kind,
        dedupeKey: reserveKey(move.kind, move.sourceId, move.orderLineId),
        amount: move.amount,
        feeAmount: move.fee,
        earnedAt: new Date(Math.max(move.at, charges.get(move.orderLineId)!.earnedAt)),
        orderId,
        orderLineId: move.orderLineId,
        ...(move.source === 'REFUND'
          ? { refundId: move.sourceId }
          : { disputeId: move.sourceId, ...(move.paymentId !== undefined ? { paymentId: move.paymentId } : {}) }),
      })
    }
  }
  return items
}

/** An item per adjustment not yet settled. */
export async function adjustmentItems(uow: UnitOfWork, scope: SettlementScope): Promise<ItemRow[]> {
  const items: ItemRow[] = []
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
  return items
}

/**
 * The settlement's totals: its items' sums with the balance carried forward (settlement-math.ts).
 * @param payoutUnit - the payout processor's transferable unit in the currency (1 without one)
 */
export async function totalsOf(uow: UnitOfWork, scope: SettlementScope, items: ItemRow[], payoutUnit = 1) {
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
  // What reserves hold back, net of those released: it leaves the payable balance (journal.ts), not the net earned.
  const reserved = items.reduce((sum, i) => sum + heldBy(i), 0)
  return settlementTotals(
    { sessions: of('SESSION'), refunds, adjustments: of('ADJUSTMENT'), reserved },
    await payableBalance(uow, scope.providerId, scope.currency),
    payoutUnit
  )
}
