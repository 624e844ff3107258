/**
 * @module The ledger check's rules against the processor (ledger-check.ts, rules 5, 7 and 9): our succeeded online
 * payments, refunds and paid transfer sends are at the processor as we hold them, what succeeded there of the
 * tenant's is recorded here, every dispute of an online payment is there in the same state, and the books' `clearing`
 * account holds, in each currency, what the tenant's objects at the processor moved on its balance.
 */
import type { LedgerViolation } from './ledger-check.ts'
import type { LedgerFacts } from './ledger-facts.ts'
import type { ProcessorSnapshot } from './processor-snapshot.ts'
import { processorDisputeAsOurs, processorDisputeWithdrawn } from './processor-statuses.ts'

/** The violations of rules 5, 7 and 9 against the processor's snapshot. Pure. */
export function againstProcessor(facts: LedgerFacts, processor: ProcessorSnapshot): LedgerViolation[] {
  const violations: LedgerViolation[] = []
  const intents = new Map(processor.intents.map((i) => [i.id, i]))
  const intentOfPayment = new Map(processor.intents.filter((i) => i.paymentId).map((i) => [i.paymentId, i]))
  const online = facts.payments.filter((p) => p.method === 'CARD_ONLINE')
  for (const payment of online.filter((p) => p.status === 'SUCCEEDED')) {
    const intent =
      (payment.processorReference === null ? undefined : intents.get(payment.processorReference)) ??
      intentOfPayment.get(payment.id)
    const wrong = !intent
      ? 'has no intent at the processor'
      : intent.status !== 'succeeded'
        ? `has intent ${intent.id} ${intent.status} at the processor`
        : intent.amount !== payment.amount || intent.currency !== payment.currency
          ? `is ${payment.amount} ${payment.currency}; its intent ${intent.id} is ${intent.amount} ${intent.currency}`
          : undefined
    if (wrong)
      violations.push({ rule: 'payment_not_at_processor', subject: payment.id, detail: `SUCCEEDED here, it ${wrong}.` })
  }
  const byReference = new Map(online.filter((p) => p.processorReference).map((p) => [p.processorReference, p]))
  const byId = new Map(online.map((p) => [p.id, p]))
  for (const intent of processor.intents.filter((i) => i.status === 'succeeded')) {
    const payment = byReference.get(intent.id) ?? (intent.paymentId ? byId.get(intent.paymentId) : undefined)
    if (payment?.status !== 'SUCCEEDED') {
      violations.push({
        rule: 'intent_not_recorded',
        subject: intent.id,
        detail: payment
          ? `Succeeded at the processor; payment ${payment.id} is ${payment.status} here.`
          : `Succeeded at the processor (${intent.amount} ${intent.currency}); no payment here is it.`,
      })
    }
  }
  violations.push(...refundsAndDisputesAgainst(facts, processor))
  const transfers = new Map(processor.transfers.map((t) => [t.id, t]))
  for (const send of facts.transfers.filter((t) => t.status === 'PAID')) {
    const theirs = send.processorReference === null ? undefined : transfers.get(send.processorReference)
    const ours = send.amount - send.amountReversed
    const wrong = !theirs
      ? `has no transfer at the processor${send.processorReference ? ` (${send.processorReference})` : ''}`
      : theirs.amount - theirs.amountReversed !== ours || theirs.currency !== send.currency
        ? `nets ${ours} ${send.currency}; transfer ${theirs.id} nets ${theirs.amount - theirs.amountReversed} ${theirs.currency}`
        : undefined
    if (wrong) {
      violations.push({
        rule: 'transfer_not_at_processor',
        subject: send.transferId,
        detail: `PAID here (send ${send.id}), it ${wrong}.`,
      })
    }
  }
  violations.push(...clearingAgainst(facts, processor))
  return violations
}

/**
 * What the tenant's objects at the processor moved on its balance, per currency (upper case), in minor units: what
 * its payment intents collected net of the processing fee, less what succeeded refunds gave back, disputes withdrew
 * (unless the funds came back) and charged as fees, and transfers paid out net of their reversals. An object whose
 * balance transactions are in another currency (the processor converted it, issue 58) moved what they say, there.
 * Pure.
 */
function processorBalances(processor: ProcessorSnapshot): Map<string, number> {
  const balances = new Map<string, number>()
  const add = (currency: string, amount: number) =>
    balances.set(currency.toUpperCase(), (balances.get(currency.toUpperCase()) ?? 0) + amount)
  for (const intent of processor.intents.filter((i) => i.status === 'succeeded')) {
    if (intent.settled) add(intent.settled.currency, intent.settled.amount - intent.settled.fee)
    else add(intent.currency, intent.amount - (intent.fee ?? 0))
  }
  for (const refund of processor.refunds.filter((r) => r.status === 'succeeded')) {
    if (refund.settled) add(refund.settled.currency, refund.settled.amount)
    else add(refund.currency, -refund.amount)
  }
  for (const dispute of processor.disputes) {
    const out = processorDisputeWithdrawn(dispute) && processorDisputeAsOurs(dispute) !== 'WON'
    if (dispute.settled) add(dispute.settled.currency, dispute.settled.amount - dispute.settled.fee)
    else add(dispute.currency, -(out ? dispute.amount : 0) - (dispute.fee ?? 0))
  }
  for (const transfer of processor.transfers) add(transfer.currency, -(transfer.amount - transfer.amountReversed))
  return balances
}

/**
 * Rule 9: `clearing` equals the processor's balance movements of the tenant's objects, in every currency. Given a
 * snapshot of all the tenant's objects (the test suite's), not a window of them.
 */
function clearingAgainst(facts: LedgerFacts, processor: ProcessorSnapshot): LedgerViolation[] {
  const theirs = processorBalances(processor)
  const ours = new Map(facts.clearing.map((c) => [c.currency.toUpperCase(), c.balance]))
  return [...new Set([...theirs.keys(), ...ours.keys()])]
    .filter((currency) => (theirs.get(currency) ?? 0) !== (ours.get(currency) ?? 0))
    .map((currency) => ({
      rule: 'clearing_balance' as const,
      subject: currency,
      detail:
        `clearing holds ${ours.get(currency) ?? 0} ${currency}; the tenant's objects at the processor moved ` +
        `${theirs.get(currency) ?? 0} on its balance.`,
    }))
}

function refundsAndDisputesAgainst(facts: LedgerFacts, processor: ProcessorSnapshot): LedgerViolation[] {
  const violations: LedgerViolation[] = []
  const online = new Map(facts.payments.filter((p) => p.method === 'CARD_ONLINE').map((p) => [p.id, p]))
  const theirRefunds = new Map(processor.refunds.map((r) => [r.id, r]))
  const ourRefunds = facts.refunds.filter((r) => online.has(r.paymentId))
  for (const refund of ourRefunds.filter((r) => r.status === 'SUCCEEDED' && r.processorReference !== null)) {
    const theirs = theirRefunds.get(refund.processorReference!)
    const wrong = !theirs
      ? `has no refund at the processor (${refund.processorReference})`
      : theirs.status !== 'succeeded'
        ? `is ${theirs.status} there (${theirs.id})`
        : theirs.amount !== refund.amount || theirs.currency !== refund.currency
          ? `is ${refund.amount} ${refund.currency}; ${theirs.id} is ${theirs.amount} ${theirs.currency} there`
          : undefined
    if (wrong)
      violations.push({ rule: 'refund_not_at_processor', subject: refund.id, detail: `SUCCEEDED here, it ${wrong}.` })
  }
  const ourIntents = new Set([...online.values()].map((p) => p.processorReference).filter((id) => id !== null))
  const recorded = new Map(ourRefunds.filter((r) => r.processorReference).map((r) => [r.processorReference, r]))
  for (const theirs of processor.refunds.filter((r) => r.status === 'succeeded')) {
    if (!theirs.paymentIntentId || !ourIntents.has(theirs.paymentIntentId)) continue
    const ours = recorded.get(theirs.id) ?? ourRefunds.find((r) => r.id === theirs.refundId)
    if (ours?.status !== 'SUCCEEDED') {
      violations.push({
        rule: 'processor_refund_not_recorded',
        subject: theirs.id,
        detail: ours
          ? `Succeeded at the processor; refund ${ours.id} is ${ours.status} here.`
          : `Succeeded at the processor (${theirs.amount} ${theirs.currency}); no refund here is it.`,
      })
    }
  }
  const disputes = new Map(processor.disputes.map((d) => [d.id, d]))
  for (const dispute of facts.disputes.filter((d) => online.has(d.paymentId))) {
    const theirs = disputes.get(dispute.processorReference)
    const wrong = !theirs
      ? `is not at the processor`
      : processorDisputeAsOurs(theirs) !== dispute.status
        ? `is ${dispute.status} here and ${theirs.status} there`
        : undefined
    if (wrong) {
      violations.push({
        rule: 'dispute_not_at_processor',
        subject: dispute.paymentId,
        detail: `Its dispute ${dispute.processorReference} ${wrong}.`,
      })
    }
  }
  return violations
}
