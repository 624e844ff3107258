/**
 * @module Moving what a settlement owes each provider to their connected account (docs/marketplace.md, "Payouts"):
 * one transfer per provider settlement with a payout, made by the settlement workflow after the run's books are
 * posted. Each send of a transfer is an attempt recorded before it is sent, with its own idempotency key
 * (domain/payouts/payout-sending.ts), so nothing is ever transferred twice. A refused transfer is FAILED and stays
 * visible; one the processor takes back, in part or whole, is PARTIALLY_REVERSED or REVERSED; an operator retries
 * any of them, and the retry sends only what is still owed. With a payout processor the run's journal entry moved the
 * payout to `payouts_in_transit:<provider>`; each attempt paid moves it out of the books, each reversal back in
 * (domain/payouts/payout-ledger.ts).
 */
import type { PayoutAttemptStatus, PayoutTransferStatus } from '../../generated/prisma/enums.ts'
import type { Db } from '../../infra/db.ts'
import { runInUnitOfWork, type UnitOfWork } from '../../infra/unit-of-work.ts'
import { dependencyUnavailable, invalidStateTransition, notFound } from '../errors.ts'
import { newId } from '../ids.ts'
import type { PayoutProcessor } from './payout-processor.ts'
import { dueOf, owedOf, settledStatusOf } from './payout-attempts.ts'
import { describeAmount } from '../pricing/money.ts'
import { transferableOf } from '../settlements/settlement-totals.ts'
import { payableBalance } from '../settlements/provider-terms.ts'
import { bookTransferMoney } from './payout-ledger.ts'
import { heldAtTransfer } from './transfer-holds.ts'
import { lockTransfer, sendPayout } from './payout-sending.ts'

export interface PayoutAttemptView {
  attempt: number
  amount: number
  status: PayoutAttemptStatus
  accountId: string
  processorReference: string | null
  amountReversed: number
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
    const sendable = transferableOf(p.payoutAmount - Math.min(held, p.payoutAmount), unit(p.currency))
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
  const sendable = transferableOf(owed - held, processor.transferUnit(transfer.currency))
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

/**
 * The processor took back (part of) a paid attempt: the amount reversed is recorded on the attempt (matched by the
 * processor's transfer) and the transfer, which is PARTIALLY_REVERSED while the provider still holds some of it and
 * REVERSED once nothing is left; the money comes back into the books, owed to the provider again. A reversal the
 * platform made to recover what the provider owed is a recovery instead (its metadata says `purpose: recovery`, or it
 * says nothing and the provider owes the platform then: up to what they owe): it settles their payable balance and
 * is never owed or sent again, so the transfer stays PAID (issue 46). Idempotent by the cumulative amount reversed,
 * so a redelivery or an older event changes nothing.
 */
export async function applyTransferReversed(
  db: Db,
  event: {
    tenantId: string
    transferId: string
    processorReference: string
    amountReversed: number
    amountRecovered: number
  },
  now = new Date()
): Promise<'applied' | 'unchanged' | 'unknown_record'> {
  return runInUnitOfWork(db, event.tenantId, async (uow) => {
    const { tx, tenantId } = uow
    const transfer = await lockTransfer(uow, event.transferId)
    if (!transfer) return 'unknown_record'
    const attempt = await tx.payoutTransferAttempt.findFirst({
      where: { tenantId, transferId: transfer.id, processorReference: event.processorReference, status: 'PAID' },
    })
    if (!attempt) return 'unknown_record'
    const reversedNow = Math.min(event.amountReversed, attempt.amount)
    if (reversedNow <= attempt.amountReversed) return 'unchanged'
    const taken = reversedNow - attempt.amountReversed
    // Of what was taken now, the platform's recoveries (issue 46) settle what the provider owed; the rest is owed again.
    // A reversal that says it recovers is one; one that says nothing recovers what the provider owes the platform
    // then (a clawback carried forward: their payable balance below zero), since sending that back would pay them
    // money they owe; anything beyond it is owed to them again.
    const tagged =
      Math.max(Math.min(event.amountRecovered, reversedNow), attempt.amountRecovered) - attempt.amountRecovered
    const owes = Math.max(0, -(await payableBalance(uow, transfer.providerId, transfer.currency)))
    const recovered = tagged + Math.min(taken - tagged, Math.max(0, owes - tagged))
    const recoveredNow = attempt.amountRecovered + recovered
    await tx.payoutTransferAttempt.update({
      where: { id: attempt.id },
      data: { amountReversed: reversedNow, amountRecovered: recoveredNow },
    })
    const attempts = await tx.payoutTransferAttempt.findMany({ where: { tenantId, transferId: transfer.id } })
    // A retry in flight stays PENDING; its answer decides the status (payout-sending.ts).
    const status = transfer.status === 'PENDING' ? 'PENDING' : settledStatusOf(dueOf(transfer), attempts)
    const amountReversed = transfer.amountReversed + taken
    await tx.payoutTransfer.update({
      where: { id: transfer.id },
      data: {
        status,
        amountReversed,
        failureMessage:
          status === 'PAID'
            ? `Recovered by the platform: ${amountReversed} of ${transfer.amount} taken back for what the provider owed.`
            : `Reversed by the payout processor: ${amountReversed} of ${transfer.amount} taken back.`,
      },
    })
    await bookTransferMoney(uow, transfer, 'REVERSED', taken - recovered, event.processorReference, now)
    await bookTransferMoney(uow, transfer, 'RECOVERED', recovered, event.processorReference, now)
    return 'applied'
  })
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
  return transfers.map((t) => ({
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
    failureMessage: t.failureMessage,
    attempts: attempts
      .filter((a) => a.transferId === t.id)
      .map((a) => ({
        attempt: a.attempt,
        amount: a.amount,
        status: a.status,
        accountId: a.accountId,
        processorReference: a.processorReference,
        amountReversed: a.amountReversed,
        failureMessage: a.failureMessage,
        firstSentAt: a.firstSentAt,
      })),
    createdAt: t.createdAt,
    updatedAt: t.updatedAt,
  }))
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
