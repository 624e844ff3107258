/**
 * @module What a settlement reads of the provider itself (settlement-sources.ts reads its lines and refunds): the
 * adjustments not yet settled, the payable balance the platform owes it, and the fee rule that applies to it. Every
 * statement filtered by tenant on top of row-level security.
 */
import { Prisma } from '../../generated/prisma/client.ts'
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import { payableAccount } from './journal.ts'
import { NO_FEE, type FeeRule } from './settlement-math.ts'
import { money, ms, type SettlementScope } from './settlement-sources.ts'

/** The provider's adjustments in the currency recorded before the end and not yet settled. */
export async function unsettledAdjustments({ tx, tenantId }: UnitOfWork, s: SettlementScope) {
  const rows = await tx.$queryRaw<Array<{ id: string; amount: number; created_ms: number }>>`
    SELECT pa.id, ${money(Prisma.sql`pa.amount`)} AS amount, ${ms(Prisma.sql`pa.created_at`)} AS created_ms FROM payout_adjustments pa
    WHERE pa.tenant_id = ${tenantId} AND pa.provider_id = ${s.providerId} AND pa.currency = ${s.currency}
      AND pa.created_at < ${s.end}
      AND NOT EXISTS (SELECT 1 FROM settlement_items si WHERE si.tenant_id = pa.tenant_id AND si.dedupe_key = 'ADJUSTMENT:' || pa.id)
    ORDER BY pa.created_at, pa.id`
  return rows.map((r) => ({ adjustmentId: r.id, amount: r.amount, createdAt: r.created_ms }))
}

/** The provider's payable balance in the currency (credits minus debits): what the platform owes them now. */
export async function payableBalance(
  { tx, tenantId }: UnitOfWork,
  providerId: string,
  currency: string
): Promise<number> {
  const [row] = await tx.$queryRaw<Array<{ balance: number }>>`
    SELECT (COALESCE(SUM(credit), 0) - COALESCE(SUM(debit), 0))::float8 AS balance FROM ledger_lines
    WHERE tenant_id = ${tenantId} AND account = ${payableAccount(providerId)} AND currency = ${currency}`
  return row?.balance ?? 0
}

/** The fee rule that applies to a provider: their own, else the tenant's default, else none. */
export async function feeRuleFor({ tx, tenantId }: UnitOfWork, providerId: string): Promise<FeeRule> {
  const rules = await tx.platformFeeRule.findMany({ where: { tenantId, scopeKey: { in: [providerId, '*'] } } })
  const rule = rules.find((r) => r.scopeKey === providerId) ?? rules.find((r) => r.scopeKey === '*')
  return rule
    ? { percentBps: rule.percentBps, fixedAmount: rule.fixedAmount, fixedCurrency: rule.fixedCurrency }
    : NO_FEE
}
