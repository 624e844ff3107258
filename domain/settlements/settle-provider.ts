/**
 * @module Settles one provider for one run, in one transaction: what they earned before the period's end and were
 * never paid (sessions, refunds and lost disputes of their sessions and those given back, adjustments: the items of
 * settlement-items.ts), what is held back for their refunds pending and disputes open and released once those closed
 * (reserves.ts), the platform's fee, the payout, one balanced journal entry. Run by the settlement workflow's activity; safe to repeat: a provider already handled by this run answers
 * the recorded outcome, one already settled for this period by another run is recorded as ALREADY_SETTLED, and the
 * unique keys of the tables (period per provider, dedupe key per item) refuse a second payment even if two runs race.
 */
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import { notFound } from '../errors.ts'
import { newId } from '../ids.ts'
import { journalLines } from './journal.ts'
import { postEntry } from './post-entry.ts'
import { adjustmentItems, inCurrency, refundItems, sessionItems, totalsOf, type ItemRow } from './settlement-items.ts'
import { feeRuleFor } from './provider-terms.ts'
import { payableLines, type SettlementScope } from './settlement-sources.ts'

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
  /**
   * The payout processor's transferable unit in a currency (Stripe: 100 for HUF, whole units): the payout is rounded
   * down to it, and the remainder stays on the provider's payable balance for the next settlement, so no payout is
   * ever one the processor refuses for its amount. Without one, any amount (the centre pays).
   */
  payoutUnit?: (currency: string) => number
}

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
  const items: ItemRow[] = [
    ...sessionItems(lines, rule, run.currency),
    ...(await refundItems(uow, scope, lines, rule)),
    ...(await adjustmentItems(uow, scope)),
  ]
  const totals = await totalsOf(uow, scope, items, options.payoutUnit?.(run.currency) ?? 1)
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
  uow: UnitOfWork,
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
  await postEntry(
    uow,
    {
      currency: run.currency,
      providerSettlementId,
      description: `Settlement ${run.settlementId}: provider ${providerId}, ${run.periodStart.toISOString()} to ${run.periodEnd.toISOString()}`,
      postedAt: now,
    },
    lines
  )
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
