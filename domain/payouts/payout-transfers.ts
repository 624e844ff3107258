/**
 * @module Moving what a settlement owes each provider to their connected account (docs/marketplace.md, "Payouts"):
 * one transfer per provider settlement with a payout, made by the settlement workflow after the run's books are
 * posted. Each send of a transfer is an attempt recorded before it is sent, with its own idempotency key
 * (domain/payouts/payout-sending.ts), so nothing is ever transferred twice. A refused transfer is FAILED and stays
 * visible; one the processor takes back, in part or whole, is PARTIALLY_REVERSED or REVERSED; an operator retries
 * any of them, and the retry sends only what is still owed. With a payout processor the run's journal entry moved the
 * payout to `payouts_in_transit:<provider>`; each attempt paid moves it out of the books, each reversal back in
 * (domain/payouts/payout-ledger.ts, transfer-reversals.ts). A tenant whose processor balance keeps another currency
 * is sent in it (transfer-conversion.ts).
 */
import type { PayoutTransfer, PayoutTransferAttempt } from '../../generated/prisma/client.ts'
import type { PayoutAttemptStatus, PayoutTransferStatus } from '../../generated/prisma/enums.ts'
import type { Db } from '../../infra/db.ts'
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import { dependencyUnavailable, invalidStateTransition, notFound } from '../errors.ts'
import { newId } from '../ids.ts'
import type { PayoutProcessor } from './payout-processor.ts'
import { dueOf, owedOf, settledStatusOf } from './payout-attempts.ts'
import { describeAmount } from '../pricing/money.ts'
import { bookTransferMoney } from './payout-ledger.ts'
import { heldAtTransfer } from './transfer-holds.ts'
import { sendPayout } from './payout-sending.ts'
import { conversionOfTransfer, loadConversion, sendableOf } from './transfer-conversion.ts'

export interface PayoutAttemptView {
  attempt: number
  amount: number
  status: PayoutAttemptStatus
  accountId: string
  processorReference: string | null
  amountReversed: number
  /** What it sent in the balance's currency, when the transfer converts (issue 78); null otherwise. */
  sent: { currency: string; amount: number; amountReversed: number } | null
  failureMessage: string | null
  firstSentAt: Date | null
}

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
  /** Taken back by the processor, over all attempts. */
  amountReversed: number
  /** Not sent, carried to the provider's next settlement instead: below the processor's unit at a retry, or held. */
  amountCarried: number
  /** Of amountCarried, held back at the transfer for disputes and refunds opened since the settlement (issue 78). */
  amountHeld: number
  /**
   * Sent from a balance kept in another currency (issue 78): that currency, the rate of the settlement's charges
   * (minor units of it per minor unit of `currency`) and what arrived in it, net of reversals. Null: sent in `currency`.
   */
  sent: { currency: string; rate: number; amount: number } | null
  failureMessage: string | null
  /** Every send, oldest first. */
  attempts: PayoutAttemptView[]
  createdAt: Date
  updatedAt: Date
}

/** Statuses an operator may send again. */
const RETRYABLE: readonly PayoutTransferStatus[] = ['FAILED', 'REVERSED', 'PARTIALLY_REVERSED', 'BLOCKED']

/**
 * Records a transfer for every provider the run settled with a payout (once: a repeated call finds them), and answers
 * the ids of those not yet PAID, in order. A provider without an ACTIVE payout account is BLOCKED. Each new transfer
 * first holds back what the provider's disputes and refunds opened since their settlement would take
 * (transfer-holds.ts): that part, rounded so what is sent is transferable, is carried back to their payable balance.
 * @param unit - the payout processor's transferable unit in a currency
 */
export async function preparePayouts(
  uow: UnitOfWork,
  settlementId: string,
  unit: (currency: string) => number,
  now: Date
): Promise<string[]> {
  const { tx, tenantId } = uow
  const settled = await tx.settlementProvider.findMany({
    where: { tenantId, settlementId, outcome: 'SETTLED' },
    select: { providerSettlementId: true, providerId: true },
    orderBy: { providerId: 'asc' },
  })
  const recorded = new Set(
    (
      await tx.payoutTransfer.findMany({ where: { tenantId, settlementId }, select: { providerSettlementId: true } })
    ).map((t) => t.providerSettlementId)
  )
  const providerSettlements = await tx.providerSettlement.findMany({
    where: {
      tenantId,
      id: { in: settled.map((s) => s.providerSettlementId).filter((id) => !recorded.has(id)) },
      payoutAmount: { gt: 0 },
    },
    select: { id: true, providerId: true, payoutAmount: true, currency: true },
    orderBy: { providerId: 'asc' },
  })
  const accounts = await tx.providerPayoutAccount.findMany({
    where: { tenantId, providerId: { in: providerSettlements.map((p) => p.providerId) } },
  })
  const active = new Map(accounts.filter((a) => a.status === 'ACTIVE').map((a) => [a.providerId, a.accountId]))
  for (const p of providerSettlements) {
    const accountId = active.get(p.providerId)
    // A BLOCKED transfer holds nothing yet: it is measured when an operator sends it (retryPayout).
    const held = accountId ? await heldAtTransfer(uow, p.providerId, p.currency, now) : 0
    // Sent in the currency the processor settled the sessions' charges in, at their rate (issue 78).
    const conversion = await loadConversion(uow, p.id, p.currency)
    const sendable = sendableOf(p.payoutAmount - Math.min(held, p.payoutAmount), unit, p.currency, conversion)
    const carried = p.payoutAmount - sendable
    const transfer = await tx.payoutTransfer.create({
      data: {
        id: newId('payoutTransfer'),
        tenantId,
        settlementId,
        providerSettlementId: p.id,
        providerId: p.providerId,
        amount: p.payoutAmount,
        currency: p.currency,
        ...(conversion && { sentCurrency: conversion.currency, sentRate: conversion.rate }),
        status: !accountId ? 'BLOCKED' : sendable > 0 ? 'PENDING' : 'PAID',
        accountId: accountId ?? null,
        amountCarried: carried,
        amountHeld: carried,
        failureMessage: !accountId
          ? 'The provider has no active payout account.'
          : carried > 0
            ? heldMessage(carried, p.currency)
            : null,
      },
    })
    // In the transaction that records the transfer: the held part leaves transit for the payable balance.
    await bookTransferMoney(uow, transfer, 'CARRIED', carried, 'held back at the transfer', now)
  }
  const pending = await tx.payoutTransfer.findMany({
    where: { tenantId, settlementId, status: 'PENDING' },
    select: { id: true },
    orderBy: { providerId: 'asc' },
  })
  return pending.map((t) => t.id)
}

const heldMessage = (held: number, currency: string) =>
  `${describeAmount(held, currency)} held back at the transfer for disputes opened or refunds requested since the ` +
  "settlement: carried to the provider's next settlement, which reserves or takes it."

/**
 * An operator sends a FAILED, REVERSED, PARTIALLY_REVERSED or BLOCKED transfer again: a new attempt (a new
 * idempotency key) for what is still owed, to the provider's current active account, sent now. What is owed is
 * recomputed, never resent as it was: only what the processor can transfer (rounded down to its unit) is sent, and the
 * rest goes back to the provider's payable balance, paid by their next settlement (a HUF transfer of 1,141.45 that
 * was refused sends 1,141 and carries 0.45), as does what the provider's disputes and refunds opened since would take
 * (transfer-holds.ts). When nothing transferable is owed, nothing is sent and the transfer is settled (PAID) by the
 * carry alone.
 * @throws AppError `not_found`, `invalid_state_transition` (PENDING or PAID, nothing owed, no active account, or
 *   changed meanwhile), `dependency_unavailable`
 */
export async function retryPayout(
  uow: UnitOfWork,
  transferId: string,
  processor: PayoutProcessor,
  db: Db,
  now: Date
): Promise<PayoutTransferView> {
  const { tx, tenantId } = uow
  const transfer = await tx.payoutTransfer.findFirst({ where: { tenantId, id: transferId } })
  if (!transfer) throw notFound('payout transfer', transferId)
  if (!RETRYABLE.includes(transfer.status)) {
    throw invalidStateTransition(
      `Payout transfer ${transferId} is ${transfer.status}; only ${RETRYABLE.join(', ')} are sent again.`
    )
  }
  const attempts = await tx.payoutTransferAttempt.findMany({ where: { tenantId, transferId } })
  const owed = owedOf(dueOf(transfer), attempts)
  if (owed <= 0) {
    throw invalidStateTransition(`Nothing is owed on payout transfer ${transferId}.`)
  }
  const account = await tx.providerPayoutAccount.findFirst({ where: { tenantId, providerId: transfer.providerId } })
  if (account?.status !== 'ACTIVE') {
    throw invalidStateTransition(`Provider ${transfer.providerId} has no active payout account yet.`)
  }
  // A retry is a transfer step too: what the provider's disputes and refunds opened since would take is held back.
  const held = Math.min(owed, await heldAtTransfer(uow, transfer.providerId, transfer.currency, now))
  const unit = (currency: string) => processor.transferUnit(currency)
  const sendable = sendableOf(owed - held, unit, transfer.currency, conversionOfTransfer(transfer))
  const carried = owed - sendable
  const amountCarried = transfer.amountCarried + carried
  const amountHeld = transfer.amountHeld + held
  // One retry at a time: a concurrent one (or a reversal) changed the row first.
  const claimed = await tx.payoutTransfer.updateMany({
    where: { tenantId, id: transferId, status: transfer.status, attempt: transfer.attempt },
    data:
      sendable > 0
        ? {
            status: 'PENDING',
            attempt: transfer.attempt + 1,
            accountId: account.accountId,
            failureMessage: null,
            amountCarried,
            amountHeld,
          }
        : {
            status: settledStatusOf(dueOf({ amount: transfer.amount, amountCarried }), attempts),
            amountCarried,
            amountHeld,
            failureMessage:
              held > 0
                ? heldMessage(carried, transfer.currency)
                : `${describeAmount(carried, transfer.currency)} is below what the payout processor transfers: carried to the provider's next settlement.`,
          },
  })
  if (claimed.count === 0) throw invalidStateTransition(`Payout transfer ${transferId} changed meanwhile; try again.`)
  // Committed with the claim, before anything is sent: the carried part leaves transit for the payable balance.
  const why = held > 0 ? 'held back at the transfer' : "below the processor's transferable unit"
  await bookTransferMoney(uow, transfer, 'CARRIED', carried, why, now)
  if (sendable === 0) return (await viewsOf(uow, { id: transferId }))[0]!
  try {
    await uow.release(() => sendPayout(db, tenantId, transferId, processor, now))
  } catch (error) {
    // Left PENDING with its attempt recorded: the next send of this transfer sends the same key.
    throw dependencyUnavailable('The payout processor', error)
  }
  return (await viewsOf(uow, { id: transferId }))[0]!
}

/** Transfers with their attempts, as the API shows them. */
async function viewsOf(
  { tx, tenantId }: UnitOfWork,
  where: { id: string } | { settlementId: string }
): Promise<PayoutTransferView[]> {
  const transfers = await tx.payoutTransfer.findMany({ where: { tenantId, ...where }, orderBy: { providerId: 'asc' } })
  const attempts = await tx.payoutTransferAttempt.findMany({
    where: { tenantId, transferId: { in: transfers.map((t) => t.id) } },
    orderBy: [{ transferId: 'asc' }, { attempt: 'asc' }],
  })
  // Grouped once (Map.groupBy needs Node 21; CI's unit run is on Node 20).
  const attemptsOf = new Map<string, PayoutTransferAttempt[]>()
  for (const a of attempts) {
    const mine = attemptsOf.get(a.transferId)
    if (mine) mine.push(a)
    else attemptsOf.set(a.transferId, [a])
  }
  return transfers.map((t) => viewOf(t, attemptsOf.get(t.id) ?? []))
}

/** One transfer as the API shows it, with its attempts (oldest first). */
function viewOf(t: PayoutTransfer, attempts: PayoutTransferAttempt[]): PayoutTransferView {
  return {
    id: t.id,
    settlementId: t.settlementId,
    providerSettlementId: t.providerSettlementId,
    providerId: t.providerId,
    amount: t.amount,
    currency: t.currency,
    status: t.status,
    attempt: t.attempt,
    accountId: t.accountId,
    processorReference: t.processorReference,
    amountReversed: t.amountReversed,
    amountCarried: t.amountCarried,
    amountHeld: t.amountHeld,
    sent:
      t.sentCurrency === null || t.sentRate === null
        ? null
        : {
            currency: t.sentCurrency,
            rate: t.sentRate,
            amount: attempts
              .filter((a) => a.status === 'PAID')
              .reduce((sum, a) => sum + (a.sentAmount ?? 0) - a.sentReversed, 0),
          },
    failureMessage: t.failureMessage,
    attempts: attempts.map((a) => ({
      attempt: a.attempt,
      amount: a.amount,
      status: a.status,
      accountId: a.accountId,
      processorReference: a.processorReference,
      amountReversed: a.amountReversed,
      sent:
        a.sentCurrency === null || a.sentAmount === null
          ? null
          : { currency: a.sentCurrency, amount: a.sentAmount, amountReversed: a.sentReversed },
      failureMessage: a.failureMessage,
      firstSentAt: a.firstSentAt,
    })),
    createdAt: t.createdAt,
    updatedAt: t.updatedAt,
  }
}

/** The transfers of a settlement run, by provider. @throws AppError `not_found` (settlement) */
export async function listPayouts(uow: UnitOfWork, settlementId: string): Promise<PayoutTransferView[]> {
  const run = await uow.tx.settlement.findFirst({
    where: { tenantId: uow.tenantId, id: settlementId },
    select: { id: true },
  })
  if (!run) throw notFound('settlement', settlementId)
  return viewsOf(uow, { settlementId })
}
