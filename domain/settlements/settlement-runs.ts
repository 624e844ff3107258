/**
 * @module The life of a settlement run, as the workflow's activities drive it:
 *
 *   PENDING ──begin──► RUNNING ──complete──► COMPLETED
 *      └───────────────────┴────fail────────► FAILED ──(requested again)──► PENDING
 *
 * Each step is idempotent: beginning a running run lists its providers again (the same list: what a closed period
 * contains cannot change), completing a completed one does nothing, and a run that completed is never marked failed.
 */
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import { notFound } from '../errors.ts'
import { settleProvider, type ProviderOutcome, type SettleOptions, type SettlementRun } from './settle-provider.ts'
import { providersToSettle } from './settlement-sources.ts'

async function loadRun({ tx, tenantId }: UnitOfWork, id: string) {
  const settlement = await tx.settlement.findFirst({ where: { id, tenantId } })
  if (!settlement) throw notFound('settlement', id)
  return settlement
}

/**
 * Marks a run RUNNING and lists the providers it settles: those asked for, or every provider with something to
 * settle in its currency before its end.
 * @returns provider ids in id order (none for a run already completed)
 */
export async function beginRun(uow: UnitOfWork, id: string, now: Date): Promise<string[]> {
  const settlement = await loadRun(uow, id)
  if (settlement.status === 'COMPLETED') return []
  if (settlement.status !== 'RUNNING') {
    await uow.tx.settlement.update({
      where: { id },
      data: { status: 'RUNNING', startedAt: settlement.startedAt ?? now },
    })
  }
  if (settlement.providerIds.length > 0) return settlement.providerIds
  return providersToSettle(uow, settlement.currency, { start: settlement.periodStart, end: settlement.periodEnd })
}

/** Settles one provider of a run. */
export async function settleRunProvider(
  uow: UnitOfWork,
  id: string,
  providerId: string,
  now: Date,
  options: SettleOptions = {}
): Promise<ProviderOutcome> {
  const settlement = await loadRun(uow, id)
  const run: SettlementRun = {
    settlementId: settlement.id,
    currency: settlement.currency,
    periodStart: settlement.periodStart,
    periodEnd: settlement.periodEnd,
  }
  return settleProvider(uow, run, providerId, now, options)
}

/** Marks a run COMPLETED. */
export async function completeRun(uow: UnitOfWork, id: string, now: Date): Promise<void> {
  await uow.tx.settlement.updateMany({
    where: { id, tenantId: uow.tenantId, status: { in: ['PENDING', 'RUNNING'] } },
    data: { status: 'COMPLETED', completedAt: now, failureReason: null },
  })
}

/** Marks a run FAILED with the reason, unless it completed. */
export async function failRun(uow: UnitOfWork, id: string, reason: string, now: Date): Promise<void> {
  await uow.tx.settlement.updateMany({
    where: { id, tenantId: uow.tenantId, status: { in: ['PENDING', 'RUNNING'] } },
    data: { status: 'FAILED', failedAt: now, failureReason: reason.slice(0, 500) },
  })
}
