/** @module The marketplace's resources as the API shows them: settlements, fee rules, adjustments, ledger entries. */
import type { ADJUSTMENT_REASONS } from '../../../domain/settlements/adjustment-service.ts'
import type { SettlementRecord } from '../../../domain/settlements/settlement-service.ts'

const iso = (d: Date | null) => d?.toISOString() ?? null

const AMOUNTS = [
  'grossAmount',
  'feeAmount',
  'refundAmount',
  'feeRefundAmount',
  'adjustmentAmount',
  'netAmount',
  'reserveAmount',
  'payoutAmount',
] as const

/** A settlement run with every provider's outcome; totals add up the providers this run settled. */
export function toSettlement(s: SettlementRecord) {
  const providers = s.results.map((r) => {
    const ps = r.providerSettlement
    return {
      providerId: r.providerId,
      outcome: r.outcome,
      providerSettlementId: ps.id,
      settledBy: ps.settlementId,
      sessionCount: ps.sessionCount,
      grossAmount: ps.grossAmount,
      feeAmount: ps.feeAmount,
      refundAmount: ps.refundAmount,
      feeRefundAmount: ps.feeRefundAmount,
      adjustmentAmount: ps.adjustmentAmount,
      netAmount: ps.netAmount,
      carriedForward: ps.carriedForward,
      reserveAmount: ps.reserveAmount,
      payoutAmount: ps.payoutAmount,
      payoutRemainder: ps.payoutRemainder,
      balanceAfter: ps.balanceAfter,
      journalEntryId: ps.entries[0]?.id ?? null,
    }
  })
  const settled = providers.filter((p) => p.outcome === 'SETTLED')
  const totals = Object.fromEntries(AMOUNTS.map((k) => [k, settled.reduce((sum, p) => sum + p[k], 0)])) as Record<
    (typeof AMOUNTS)[number],
    number
  >
  return {
    id: s.id,
    status: s.status,
    currency: s.currency,
    periodStart: s.periodStart.toISOString(),
    periodEnd: s.periodEnd.toISOString(),
    providerIds: s.providerIds.length ? s.providerIds : null,
    failureReason: s.failureReason,
    totals: { providers: settled.length, sessionCount: settled.reduce((sum, p) => sum + p.sessionCount, 0), ...totals },
    providers,
    createdAt: s.createdAt.toISOString(),
    updatedAt: s.updatedAt.toISOString(),
    startedAt: iso(s.startedAt),
    completedAt: iso(s.completedAt),
    failedAt: iso(s.failedAt),
  }
}

export const toFeeRule = (r: {
  id: string
  providerId: string | null
  percentBps: number
  fixedAmount: number
  fixedCurrency: string | null
  createdAt: Date
  updatedAt: Date
}) => ({
  id: r.id,
  providerId: r.providerId,
  percentBps: r.percentBps,
  fixedAmount: r.fixedAmount,
  fixedCurrency: r.fixedCurrency,
  createdAt: r.createdAt.toISOString(),
  updatedAt: r.updatedAt.toISOString(),
})

export const toAdjustment = (a: {
  id: string
  providerId: string
  amount: number
  currency: string
  reason: string
  description: string | null
  createdAt: Date
  providerSettlementId: string | null
}) => ({
  id: a.id,
  providerId: a.providerId,
  amount: a.amount,
  currency: a.currency,
  reason: a.reason as (typeof ADJUSTMENT_REASONS)[number],
  description: a.description,
  providerSettlementId: a.providerSettlementId,
  createdAt: a.createdAt.toISOString(),
})

export const toEntry = (e: {
  id: string
  currency: string
  description: string
  postedAt: Date
  providerSettlementId: string | null
  providerSettlement: { settlementId: string; providerId: string } | null
  lines: Array<{
    id: string
    account: string
    currency: string
    debit: number
    credit: number
    settlementItemId: string | null
  }>
}) => ({
  id: e.id,
  currency: e.currency,
  description: e.description,
  postedAt: e.postedAt.toISOString(),
  settlementId: e.providerSettlement?.settlementId ?? null,
  providerId: e.providerSettlement?.providerId ?? null,
  providerSettlementId: e.providerSettlementId,
  lines: e.lines.map((l) => ({
    id: l.id,
    account: l.account,
    currency: l.currency,
    debit: l.debit,
    credit: l.credit,
    settlementItemId: l.settlementItemId,
  })),
})
