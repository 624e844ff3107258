/**
 * @module A payout transfer the processor took back, in part or whole (docs/marketplace.md, "Payouts"): a reversal
 * is owed to the provider again, in transit, unless the platform made it to recover what the provider owed.
 */
import type { Db } from '../../infra/db.ts'
import { runInUnitOfWork } from '../../infra/unit-of-work.ts'
import { payableBalance } from '../settlements/provider-terms.ts'
import { dueOf, settledStatusOf } from './payout-attempts.ts'
import { bookTransferMoney } from './payout-ledger.ts'
import { lockTransfer } from './payout-sending.ts'
import { reversedShareOf } from './transfer-conversion.ts'

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
    // The processor's figures are in what it sent: a converted attempt's are shares of its amount (issue 78).
    const inOurs = (sent: number) =>
      attempt.sentAmount === null
        ? Math.min(sent, attempt.amount)
        : reversedShareOf(sent, attempt.sentAmount, attempt.amount)
    const sentReversedNow = Math.min(event.amountReversed, attempt.sentAmount ?? 0)
    const reversedNow = inOurs(event.amountReversed)
    if (reversedNow <= attempt.amountReversed && sentReversedNow <= attempt.sentReversed) return 'unchanged'
    const taken = Math.max(0, reversedNow - attempt.amountReversed)
    // Of what was taken now, the platform's recoveries (issue 46) settle what the provider owed; the rest is owed again.
    // A reversal that says it recovers is one; one that says nothing recovers what the provider owes the platform
    // then (a clawback carried forward: their payable balance below zero), since sending that back would pay them
    // money they owe; anything beyond it is owed to them again.
    const tagged =
      Math.max(Math.min(inOurs(event.amountRecovered), reversedNow), attempt.amountRecovered) - attempt.amountRecovered
    const owes = Math.max(0, -(await payableBalance(uow, transfer.providerId, transfer.currency)))
    const recovered = tagged + Math.min(taken - tagged, Math.max(0, owes - tagged))
    const recoveredNow = attempt.amountRecovered + recovered
    await tx.payoutTransferAttempt.update({
      where: { id: attempt.id },
      data: {
        amountReversed: Math.max(reversedNow, attempt.amountReversed),
        amountRecovered: recoveredNow,
        sentReversed: Math.max(sentReversedNow, attempt.sentReversed),
      },
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
    // What left the balance in its own currency, shared between the two as the settlement's amounts are.
    const sentTaken = Math.max(0, sentReversedNow - attempt.sentReversed)
    const sentRecovered = taken === 0 ? 0 : Math.round((sentTaken * recovered) / taken)
    const inBalance = (amount: number) =>
      attempt.sentCurrency === null ? undefined : { currency: attempt.sentCurrency, amount }
    const reference = event.processorReference
    await bookTransferMoney(
      uow,
      transfer,
      'REVERSED',
      taken - recovered,
      reference,
      now,
      inBalance(sentTaken - sentRecovered)
    )
    await bookTransferMoney(uow, transfer, 'RECOVERED', recovered, reference, now, inBalance(sentRecovered))
    return 'applied'
  })
}
