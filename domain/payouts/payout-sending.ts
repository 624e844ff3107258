/**
 * @module Sending a payout transfer to the processor (docs/marketplace.md, "Payouts"), one attempt at a time:
 *
 * 1. In a transaction, under the transfer's row lock: the attempt is recorded PENDING before it is sent, with its own
 *    idempotency key (`transfer:<tenant>:<transfer>:<attempt>`), the account and the amount still owed then, and the
 *    instant it is first sent. A resend of an attempt (an activity retry, a worker that died waiting for the
 *    processor) sends exactly the same request with the same key, which the processor answers with the transfer it
 *    already made.
 * 2. The processor is called holding no transaction.
 * 3. In a new transaction: the attempt is PAID (its money leaves the books: domain/payouts/payout-ledger.ts) or FAILED
 *    (refused), and the transfer shows it.
 *
 * An attempt still PENDING that was first sent more than 24 hours ago may have outlived its key at the processor
 * (Stripe forgets keys after 24 h), so neither the same key nor a new one is sent blindly: the processor is asked for
 * a transfer carrying this attempt's metadata first. Found, the attempt is recorded PAID; not found, it is FAILED
 * and a new attempt is recorded and sent with a new key, for what is still owed. Only one attempt of a transfer is
 * ever PENDING, and each attempt's amount is what the paid ones left owed: our own rows guard against paying twice.
 */
import type { PayoutTransfer, PayoutTransferAttempt } from '../../generated/prisma/client.ts'
import type { PayoutTransferStatus } from '../../generated/prisma/enums.ts'
import type { Db } from '../../infra/db.ts'
import { runInUnitOfWork, type UnitOfWork } from '../../infra/unit-of-work.ts'
import { notFound } from '../errors.ts'
import { newId } from '../ids.ts'
import { PayoutRefusedError, type PayoutProcessor } from './payout-processor.ts'
import { attemptKeyOf, dueOf, outlivedKey, owedOf, settledStatusOf } from './payout-attempts.ts'
import { money } from '../reconciliation/differences.ts'
import { recordFinding } from '../reconciliation/findings.ts'
import { bookTransferMoney } from './payout-ledger.ts'
import { conversionOfTransfer, reversedShareOf, sentAmountOf } from './transfer-conversion.ts'

/** The processor's transferable unit in a currency (PayoutProcessor.transferUnit). */
type UnitOf = (currency: string) => number

type Outcome =
  | {
      status: 'PAID'
      reference: string
      /** What the processor holds, when it was looked up rather than answered: it may have reversed some since. */
      found?: { amount: number; amountReversed: number }
    }
  | { status: 'FAILED'; message: string }

type Start =
  | { kind: 'done'; status: PayoutTransferStatus }
  | { kind: 'send' | 'look_up'; transfer: PayoutTransfer; attempt: PayoutTransferAttempt }

/** Locks a transfer's row for the rest of the transaction (its attempts change one writer at a time) and reads it. */
export async function lockTransfer({ tx, tenantId }: UnitOfWork, transferId: string) {
  await tx.$queryRaw`SELECT id FROM payout_transfers WHERE id = ${transferId} AND tenant_id = ${tenantId} FOR UPDATE`
  return tx.payoutTransfer.findFirst({ where: { tenantId, id: transferId } })
}

const attemptsOf = ({ tx, tenantId }: UnitOfWork, transferId: string) =>
  tx.payoutTransferAttempt.findMany({ where: { tenantId, transferId }, orderBy: { attempt: 'asc' } })

/**
 * Records a new PENDING attempt of the transfer for what is still owed, first sent now: in the balance's currency at
 * the transfer's rate when it converts (transfer-conversion.ts).
 */
async function recordAttempt(uow: UnitOfWork, transfer: PayoutTransfer, accountId: string, unit: UnitOf, now: Date) {
  const owed = owedOf(dueOf(transfer), await attemptsOf(uow, transfer.id))
  const conversion = conversionOfTransfer(transfer)
  return uow.tx.payoutTransferAttempt.create({
    data: {
      id: newId('payoutAttempt'),
      tenantId: uow.tenantId,
      transferId: transfer.id,
      attempt: transfer.attempt,
      amount: owed,
      currency: transfer.currency,
      ...(conversion && {
        sentCurrency: conversion.currency,
        sentAmount: sentAmountOf(owed, conversion, unit(conversion.currency)),
      }),
      accountId,
      idempotencyKey: attemptKeyOf(uow.tenantId, transfer.id, transfer.attempt),
      status: 'PENDING',
      firstSentAt: now,
    },
  })
}

/** Step 1: the attempt to send (recorded now if it is new), or what the transfer already is. */
async function begin(uow: UnitOfWork, transferId: string, unit: UnitOf, now: Date): Promise<Start> {
  const transfer = await lockTransfer(uow, transferId)
  if (!transfer) throw notFound('payout transfer', transferId)
  if (transfer.status !== 'PENDING' || !transfer.accountId) return { kind: 'done', status: transfer.status }
  const attempt = await uow.tx.payoutTransferAttempt.findFirst({
    where: { tenantId: uow.tenantId, transferId, attempt: transfer.attempt },
  })
  if (!attempt) {
    if (owedOf(dueOf(transfer), await attemptsOf(uow, transferId)) <= 0) {
      // Nothing left to send (paid in full by earlier attempts): the transfer says so.
      await uow.tx.payoutTransfer.update({ where: { id: transferId }, data: { status: 'PAID', failureMessage: null } })
      return { kind: 'done', status: 'PAID' }
    }
    return { kind: 'send', transfer, attempt: await recordAttempt(uow, transfer, transfer.accountId, unit, now) }
  }
  // Answered already (a sender that recorded the answer and died before the transfer did cannot exist: one transaction).
  if (attempt.status !== 'PENDING') return { kind: 'done', status: transfer.status }
  if (outlivedKey(attempt.firstSentAt, now)) return { kind: 'look_up', transfer, attempt }
  if (!attempt.firstSentAt) {
    return {
      kind: 'send',
      transfer,
      attempt: await uow.tx.payoutTransferAttempt.update({ where: { id: attempt.id }, data: { firstSentAt: now } }),
    }
  }
  return { kind: 'send', transfer, attempt }
}

/**
 * An attempt the processor does not know after its key may have been forgotten: FAILED, and the next attempt recorded
 * with a new key for what is still owed. @returns the new attempt; undefined when another sender moved on first
 */
async function replaceForgotten(uow: UnitOfWork, forgotten: PayoutTransferAttempt, unit: UnitOf, now: Date) {
  const transfer = await lockTransfer(uow, forgotten.transferId)
  if (transfer?.status !== 'PENDING' || transfer.attempt !== forgotten.attempt || !transfer.accountId) return undefined
  const marked = await uow.tx.payoutTransferAttempt.updateMany({
    where: { id: forgotten.id, status: 'PENDING' },
    data: {
      status: 'FAILED',
      failureMessage: `Not found at the payout processor more than 24 hours after it was sent; sent again as attempt ${forgotten.attempt + 1}.`,
    },
  })
  if (marked.count === 0) return undefined
  const next = await uow.tx.payoutTransfer.update({
    where: { id: transfer.id },
    data: { attempt: transfer.attempt + 1 },
  })
  return recordAttempt(uow, next, transfer.accountId, unit, now)
}

/** Step 3: the processor's answer, on the attempt, the transfer and (when paid) the books. */
async function record(
  uow: UnitOfWork,
  attempt: PayoutTransferAttempt,
  outcome: Outcome,
  now: Date
): Promise<PayoutTransferStatus> {
  const transfer = await lockTransfer(uow, attempt.transferId)
  if (!transfer) throw notFound('payout transfer', attempt.transferId)
  const moved = outcome.status === 'PAID' ? movedBy(attempt, outcome.found) : undefined
  const { amount, reversed } = moved ?? { amount: attempt.amount, reversed: 0 }
  const updated = await uow.tx.payoutTransferAttempt.updateMany({
    where: { id: attempt.id, status: 'PENDING' },
    data:
      outcome.status === 'PAID'
        ? {
            status: 'PAID',
            processorReference: outcome.reference,
            amount,
            amountReversed: reversed,
            ...(moved?.sent && { sentAmount: moved.sent.amount, sentReversed: moved.sent.reversed }),
            failureMessage: null,
          }
        : { status: 'FAILED', failureMessage: outcome.message },
  })
  // Another sender of the same attempt recorded the same answer first.
  if (updated.count === 0) return transfer.status
  const current = transfer.status === 'PENDING' && transfer.attempt === attempt.attempt
  if (outcome.status === 'PAID') {
    const sent = moved?.sent
    const inBalance = (part: number) => sent && { currency: sent.currency, amount: part }
    await bookTransferMoney(uow, transfer, 'PAID', amount, outcome.reference, now, inBalance(sent?.amount ?? 0))
    if (reversed > 0) {
      await bookTransferMoney(
        uow,
        transfer,
        'REVERSED',
        reversed,
        outcome.reference,
        now,
        inBalance(sent?.reversed ?? 0)
      )
      await uow.tx.payoutTransfer.update({
        where: { id: transfer.id },
        data: { amountReversed: transfer.amountReversed + reversed },
      })
    }
    // A reversal that arrived while this attempt was in flight leaves the transfer partly reversed, not paid.
    const status = current ? settledStatusOf(dueOf(transfer), await attemptsOf(uow, transfer.id)) : transfer.status
    await uow.tx.payoutTransfer.update({
      where: { id: transfer.id },
      data: { status, processorReference: outcome.reference, ...(current ? { failureMessage: null } : {}) },
    })
    return status
  }
  if (!current) return transfer.status
  await uow.tx.payoutTransfer.update({
    where: { id: transfer.id },
    data: { status: 'FAILED', failureMessage: outcome.message },
  })
  await recordRefusal(uow, transfer, attempt, outcome.message, now)
  return 'FAILED'
}

/** The money of a refused attempt waits in payouts_in_transit for an operator: a finding says so (issue 58). */
async function recordRefusal(
  uow: UnitOfWork,
  transfer: PayoutTransfer,
  attempt: PayoutTransferAttempt,
  message: string,
  now: Date
) {
  // What was sent: in the balance's currency when the transfer converts (issue 78).
  const sent = { amount: attempt.sentAmount ?? attempt.amount, currency: attempt.sentCurrency ?? attempt.currency }
  await recordFinding(
    uow,
    {
      kind: 'PAYOUT_FAILED',
      objectType: 'TRANSFER',
      objectId: transfer.id,
      ours: { ...sent, status: 'FAILED' },
      detail:
        `Payout transfer ${transfer.id}, attempt ${attempt.attempt} (${money(sent.amount, sent.currency)} to ` +
        `provider ${transfer.providerId}), was refused by the payout processor: ${message.replace(/\.?$/, '.')} It waits in ` +
        'transit for an operator to retry it.',
    },
    now
  )
}

/**
 * What a paid attempt moved, as the books hold it: what the processor holds (when it was looked up rather than answered:
 * it may have reversed some since), in the settlement's currency and, for a converted transfer, in the balance's too.
 */
function movedBy(attempt: PayoutTransferAttempt, found: { amount: number; amountReversed: number } | undefined) {
  if (attempt.sentCurrency === null || attempt.sentAmount === null) {
    const amount = found?.amount ?? attempt.amount
    return { amount, reversed: Math.min(found?.amountReversed ?? 0, amount), sent: undefined }
  }
  // The processor's figures are in the balance's currency; the settlement's are their share of the attempt's amount.
  const sentAmount = found?.amount ?? attempt.sentAmount
  const sentReversed = Math.min(found?.amountReversed ?? 0, sentAmount)
  const amount =
    sentAmount === attempt.sentAmount ? attempt.amount : reversedShareOf(sentAmount, attempt.sentAmount, attempt.amount)
  return {
    amount,
    reversed: reversedShareOf(sentReversed, sentAmount, amount),
    sent: { currency: attempt.sentCurrency, amount: sentAmount, reversed: sentReversed },
  }
}

/** Step 2: one call to the processor. Refusals are answers; anything else is thrown, to be retried with the same key. */
async function send(
  processor: PayoutProcessor,
  transfer: PayoutTransfer,
  attempt: PayoutTransferAttempt
): Promise<Outcome> {
  try {
    const made = await processor.createTransfer({
      tenantId: transfer.tenantId,
      transferId: transfer.id,
      attempt: attempt.attempt,
      settlementId: transfer.settlementId,
      providerId: transfer.providerId,
      // The attempt's own account and amount: a resend with its key must be the very same request.
      accountId: attempt.accountId,
      amount: attempt.sentAmount ?? attempt.amount,
      currency: attempt.sentCurrency ?? attempt.currency,
      idempotencyKey: attempt.idempotencyKey,
    })
    return { status: 'PAID', reference: made.id }
  } catch (error) {
    if (!(error instanceof PayoutRefusedError)) throw error
    return { status: 'FAILED', message: error.message.slice(0, 500) }
  }
}

/**
 * Sends a PENDING transfer's current attempt and records the processor's answer. Holds no transaction while the
 * processor is called. Safe to repeat: a transfer no longer PENDING is left alone; a PENDING attempt is sent again
 * with its key, or looked up first once that key may be forgotten.
 * @param now - when the attempt is first sent and the books are posted
 * @throws what the processor threw when it may succeed on a retry (unreachable, rate limited, its 5xx)
 */
export async function sendPayout(
  db: Db,
  tenantId: string,
  transferId: string,
  processor: PayoutProcessor,
  now: Date
): Promise<PayoutTransferStatus> {
  const inTenant = <T>(work: (uow: UnitOfWork) => Promise<T>) => runInUnitOfWork(db, tenantId, work)
  const unit = (currency: string) => processor.transferUnit(currency)
  const start = await inTenant((uow) => begin(uow, transferId, unit, now))
  if (start.kind === 'done') return start.status
  let { attempt } = start
  if (start.kind === 'look_up') {
    const found = await processor.findTransfer({
      transferId,
      attempt: attempt.attempt,
      settlementId: start.transfer.settlementId,
    })
    if (found) {
      const outcome = { status: 'PAID' as const, reference: found.id, found }
      return inTenant((uow) => record(uow, attempt, outcome, now))
    }
    const next = await inTenant((uow) => replaceForgotten(uow, attempt, unit, now))
    if (!next) return inTenant(async (uow) => (await lockTransfer(uow, transferId))!.status)
    attempt = next
  }
  const outcome = await send(processor, start.transfer, attempt)
  return inTenant((uow) => record(uow, attempt, outcome, now))
}
