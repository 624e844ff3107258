/**
 * @module Moving what a settlement owes each provider to their connected account (docs/marketplace.md, "Payouts"):
 * one transfer per provider settlement with a payout, made by the settlement workflow after the run's books are
 * posted. A transfer is recorded PENDING before the processor is asked, with an idempotency key of its own and of its
 * attempt (`transfer:<tenant>:<transfer>:<attempt>`): a workflow retry, or a worker that crashed after the processor
 * answered and before we wrote it down, sends the same key again and the processor answers the transfer it already
 * made, so nothing is ever transferred twice. A refused transfer is FAILED and stays visible; an operator retries it
 * (a new attempt, a new key). The run's journal entry already moved the payout out of the provider's payable
 * account; the transfer is the money following it.
 */
import type { PayoutTransferStatus } from '../../generated/prisma/enums.ts'
import type { Db } from '../../infra/db.ts'
import { runInUnitOfWork, type UnitOfWork } from '../../infra/unit-of-work.ts'
import { dependencyUnavailable, invalidStateTransition, notFound } from '../errors.ts'
import { newId } from '../ids.ts'
import { PayoutRefusedError, type PayoutProcessor } from '../payments/payment-processor.ts'

export interface PayoutTransferView {
  id: string
  settlementId: string
  providerSettlementId: string
  providerId: string
  amount: number
  currency: string
  status: PayoutTransferStatus
  attempt: number
  accountId: string | null
  processorReference: string | null
  failureMessage: string | null
  createdAt: Date
  updatedAt: Date
}

/** Statuses an operator may send again. */
const RETRYABLE: readonly PayoutTransferStatus[] = ['FAILED', 'REVERSED', 'BLOCKED']

const idempotencyKeyOf = (t: { tenantId: string; id: string; attempt: number }) =>
  `transfer:${t.tenantId}:${t.id}:${t.attempt}`

/**
 * Records a PENDING transfer for every provider the run settled with a payout (once: a repeated call finds them),
 * and answers the ids of those not yet PAID, in order. A provider without an ACTIVE payout account is BLOCKED.
 */
export async function preparePayouts(uow: UnitOfWork, settlementId: string): Promise<string[]> {
  const { tx, tenantId } = uow
  const settled = await tx.settlementProvider.findMany({
    where: { tenantId, settlementId, outcome: 'SETTLED' },
    select: { providerSettlementId: true, providerId: true },
    orderBy: { providerId: 'asc' },
  })
  const providerSettlements = await tx.providerSettlement.findMany({
    where: { tenantId, id: { in: settled.map((s) => s.providerSettlementId) }, payoutAmount: { gt: 0 } },
    select: { id: true, providerId: true, payoutAmount: true, currency: true },
  })
  const accounts = await tx.providerPayoutAccount.findMany({
    where: { tenantId, providerId: { in: providerSettlements.map((p) => p.providerId) } },
  })
  const active = new Map(accounts.filter((a) => a.status === 'ACTIVE').map((a) => [a.providerId, a.accountId]))
  await tx.payoutTransfer.createMany({
    data: providerSettlements.map((p) => ({
      id: newId('payoutTransfer'),
      tenantId,
      settlementId,
      providerSettlementId: p.id,
      providerId: p.providerId,
      amount: p.payoutAmount,
      currency: p.currency,
      status: active.has(p.providerId) ? ('PENDING' as const) : ('BLOCKED' as const),
      accountId: active.get(p.providerId) ?? null,
      failureMessage: active.has(p.providerId) ? null : 'The provider has no active payout account.',
    })),
    skipDuplicates: true,
  })
  const pending = await tx.payoutTransfer.findMany({
    where: { tenantId, settlementId, status: 'PENDING' },
    select: { id: true },
    orderBy: { providerId: 'asc' },
  })
  return pending.map((t) => t.id)
}

/**
 * Sends one PENDING transfer and records the processor's answer. Holds no transaction while the processor is called.
 * Safe to repeat: a PAID transfer is left alone; a PENDING one is sent again with the same key.
 * @throws what the processor threw when it may succeed on a retry (unreachable, rate limited, its 5xx)
 */
export async function sendPayout(
  db: Db,
  tenantId: string,
  transferId: string,
  processor: PayoutProcessor
): Promise<PayoutTransferStatus> {
  const transfer = await runInUnitOfWork(db, tenantId, ({ tx }) =>
    tx.payoutTransfer.findFirst({ where: { tenantId, id: transferId } })
  )
  if (!transfer) throw notFound('payout transfer', transferId)
  if (transfer.status !== 'PENDING' || !transfer.accountId) return transfer.status
  const accountId = transfer.accountId
  let outcome: { status: 'PAID'; reference: string } | { status: 'FAILED'; message: string }
  try {
    const made = await processor.createTransfer({
      tenantId,
      transferId,
      settlementId: transfer.settlementId,
      providerId: transfer.providerId,
      accountId,
      amount: transfer.amount,
      currency: transfer.currency,
      idempotencyKey: idempotencyKeyOf(transfer),
    })
    outcome = { status: 'PAID', reference: made.id }
  } catch (error) {
    if (!(error instanceof PayoutRefusedError)) throw error
    outcome = { status: 'FAILED', message: error.message.slice(0, 500) }
  }
  return runInUnitOfWork(db, tenantId, async ({ tx }) => {
    // Only the attempt that was sent is settled by its answer (an operator's retry meanwhile is a new attempt).
    const updated = await tx.payoutTransfer.updateMany({
      where: { tenantId, id: transferId, status: 'PENDING', attempt: transfer.attempt },
      data:
        outcome.status === 'PAID'
          ? { status: 'PAID', processorReference: outcome.reference, failureMessage: null }
          : { status: 'FAILED', failureMessage: outcome.message },
    })
    return updated.count === 1 ? outcome.status : transfer.status
  })
}

/**
 * An operator sends a FAILED, REVERSED or BLOCKED transfer again: a new attempt (a new idempotency key) to the
 * provider's current active account, sent now.
 * @throws AppError `not_found`, `invalid_state_transition` (PENDING or PAID, or no active account),
 *   `dependency_unavailable`
 */
export async function retryPayout(
  uow: UnitOfWork,
  transferId: string,
  processor: PayoutProcessor,
  db: Db
): Promise<PayoutTransferView> {
  const { tx, tenantId } = uow
  const transfer = await tx.payoutTransfer.findFirst({ where: { tenantId, id: transferId } })
  if (!transfer) throw notFound('payout transfer', transferId)
  if (!RETRYABLE.includes(transfer.status)) {
    throw invalidStateTransition(
      `Payout transfer ${transferId} is ${transfer.status}; only ${RETRYABLE.join(', ')} are sent again.`
    )
  }
  const account = await tx.providerPayoutAccount.findFirst({ where: { tenantId, providerId: transfer.providerId } })
  if (account?.status !== 'ACTIVE') {
    throw invalidStateTransition(`Provider ${transfer.providerId} has no active payout account yet.`)
  }
  await tx.payoutTransfer.update({
    where: { id: transferId },
    data: { status: 'PENDING', attempt: transfer.attempt + 1, accountId: account.accountId, failureMessage: null },
  })
  try {
    await uow.release(() => sendPayout(db, tenantId, transferId, processor))
  } catch (error) {
    // Left PENDING with its key: the next retry of this request, or the settlement's workflow, sends the same key.
    throw dependencyUnavailable('The payout processor', error)
  }
  return tx.payoutTransfer.findFirstOrThrow({ where: { tenantId, id: transferId } })
}

/** The processor took a paid transfer back: REVERSED, for an operator to retry. */
export async function applyTransferReversed(
  db: Db,
  event: { tenantId: string; transferId: string; processorReference: string }
): Promise<'applied' | 'unchanged' | 'unknown_record'> {
  return runInUnitOfWork(db, event.tenantId, async ({ tx, tenantId }) => {
    const updated = await tx.payoutTransfer.updateMany({
      where: { tenantId, id: event.transferId, processorReference: event.processorReference, status: 'PAID' },
      data: { status: 'REVERSED', failureMessage: 'Reversed by the payout processor.' },
    })
    if (updated.count === 1) return 'applied'
    const known = await tx.payoutTransfer.count({ where: { tenantId, id: event.transferId } })
    return known ? 'unchanged' : 'unknown_record'
  })
}

/** The transfers of a settlement run, by provider. @throws AppError `not_found` (settlement) */
export async function listPayouts(uow: UnitOfWork, settlementId: string): Promise<PayoutTransferView[]> {
  const { tx, tenantId } = uow
  const run = await tx.settlement.findFirst({ where: { tenantId, id: settlementId }, select: { id: true } })
  if (!run) throw notFound('settlement', settlementId)
  return tx.payoutTransfer.findMany({ where: { tenantId, settlementId }, orderBy: { providerId: 'asc' } })
}
