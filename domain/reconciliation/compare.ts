/**
 * @module The reconciliation's comparison (docs/payments.md, "Reconciliation"): our payments, refunds, disputes and
 * payout transfers against the processor's, as plain data, into the differences to record as findings. Pure: the
 * same records always give the same differences, in the same order.
 *
 * - A record of ours the processor should hold (it has the processor's id, or it says the money moved) and does not:
 *   `MISSING_AT_PROCESSOR`. An object of the tenant at the processor, created in the window, that no record of ours
 *   names: `MISSING_IN_PLATFORM` (objects outside the window are left to the run whose window holds them).
 * - Both sides, different currency: `CURRENCY_MISMATCH` (then the amounts are not compared); different amount (a
 *   transfer's net of reversals): `AMOUNT_MISMATCH`; different state: `STATUS_MISMATCH`, with the processor's states
 *   read as ours (`intentStatusAsOurs`...). A PENDING payment and a FAILED one are the same money (nothing paid, and
 *   the payer may still pay the intent), so that pair is no difference.
 */
import type { PaymentStatus, RefundStatus } from '../../generated/prisma/enums.ts'
import { isCurrency } from '../pricing/currencies.ts'
import { describeAmount } from '../pricing/money.ts'
import type { FindingInput } from './findings.ts'
import type { OurPayment, OurRefund, OurTransfer, PlatformRecords } from './platform-records.ts'
import type {
  CreatedWindow,
  ProcessorDispute,
  ProcessorIntent,
  ProcessorReferences,
  ProcessorRefund,
  ProcessorSnapshot,
  ProcessorTransfer,
} from './processor-snapshot.ts'

/** A difference, as `recordFinding` takes it (the run's id is added by the caller). */
export type Difference = Omit<FindingInput, 'runId'>

export interface Comparison {
  differences: Difference[]
  /** How many records of each type were compared (ours and theirs together, each pair once). */
  checked: { payments: number; refunds: number; disputes: number; transfers: number }
}

/** A payment intent's status, as our payment's. */
export function intentStatusAsOurs(intent: Pick<ProcessorIntent, 'status' | 'lastPaymentError'>): PaymentStatus {
  if (intent.status === 'succeeded') return 'SUCCEEDED'
  if (intent.status === 'canceled') return 'CANCELED'
  if (intent.status === 'requires_payment_method' && intent.lastPaymentError) return 'FAILED'
  return 'PENDING'
}

/** A processor refund's status, as ours. */
export function refundStatusAsOurs(status: string): RefundStatus {
  if (status === 'succeeded') return 'SUCCEEDED'
  if (status === 'failed' || status === 'canceled') return 'FAILED'
  return 'PENDING'
}

/**
 * A dispute's status, as ours: decided (won, lost), closed without a decision against the centre (an inquiry's
 * `warning_closed`, `charge_refunded`), or still open (every other status).
 */
export function disputeStatusAsOurs(status: string): 'OPEN' | 'WON' | 'LOST' | 'CLOSED' {
  if (status === 'won') return 'WON'
  if (status === 'lost') return 'LOST'
  if (status === 'warning_closed' || status === 'charge_refunded') return 'CLOSED'
  return 'OPEN'
}

/** A processor's dispute's state, as ours: a lost one whose funds the processor gave back is the centre's again. */
export const processorDisputeAsOurs = (dispute: Pick<ProcessorDispute, 'status' | 'fundsReinstated'>) =>
  dispute.fundsReinstated === true ? 'WON' : disputeStatusAsOurs(dispute.status)

/** Whether two payment statuses are the same money: PENDING and FAILED both hold nothing paid. */
const sameMoney = (a: PaymentStatus, b: PaymentStatus) =>
  a === b || ((a === 'PENDING' || a === 'FAILED') && (b === 'PENDING' || b === 'FAILED'))

const money = (amount: number, currency: string) =>
  isCurrency(currency) ? describeAmount(amount, currency) : `${amount} minor units of ${currency}`
const inWindow = (created: Date, window: CreatedWindow) => created >= window.from && created < window.to
const indexBy = <T>(items: T[], key: (item: T) => string | null) => {
  const map = new Map<string, T>()
  for (const item of items) {
    const k = key(item)
    if (k !== null && !map.has(k)) map.set(k, item)
  }
  return map
}

/** Whether the processor should hold a payment of ours. */
const paymentClaimed = (p: OurPayment) => p.processorReference !== null || p.status === 'SUCCEEDED'
const refundClaimed = (r: OurRefund) => r.processorReference !== null || r.status === 'SUCCEEDED'
const transferClaimed = (t: OurTransfer) => t.processorReference !== null || t.status === 'PAID'

/**
 * The ids of objects ours name that `theirs` does not show: to read one by one before comparing (an object created
 * before the listed window, or a payment with an open dispute from months ago).
 */
export function unmatchedReferences(ours: PlatformRecords, theirs: ProcessorSnapshot): ProcessorReferences {
  const shown = new Set(
    [...theirs.intents, ...theirs.refunds, ...theirs.disputes, ...theirs.transfers].map((o) => o.id)
  )
  const missing = (ids: Array<string | null>) => [...new Set(ids)].filter((id): id is string => !!id && !shown.has(id))
  return {
    intents: missing(ours.payments.map((p) => p.processorReference)),
    refunds: missing(ours.refunds.map((r) => r.processorReference)),
    disputes: missing(ours.payments.map((p) => p.disputeReference)),
    transfers: missing(ours.transfers.map((t) => t.processorReference)),
  }
}

/** Compares both sides. @param window - the run's window: only objects created in it can be missing on our side */
export function compareWithProcessor(
  ours: PlatformRecords,
  theirs: ProcessorSnapshot,
  window: CreatedWindow
): Comparison {
  const payments = comparePayments(ours.payments, theirs.intents, window)
  const refunds = compareRefunds(ours.refunds, theirs.refunds, window)
  const disputes = compareDisputes(ours.payments, theirs.disputes, window)
  const transfers = compareTransfers(ours.transfers, theirs.transfers, window)
  return {
    differences: [...payments.differences, ...refunds.differences, ...disputes.differences, ...transfers.differences],
    checked: {
      payments: payments.checked,
      refunds: refunds.checked,
      disputes: disputes.checked,
      transfers: transfers.checked,
    },
  }
}

interface Side {
  amount: number
  currency: string
  status: string
}

/**
 * The differences of one pair: currency first (amounts in two currencies do not compare), then amount, then status.
 */
function pairDifferences(
  objectType: Difference['objectType'],
  ids: { objectId: string; processorReference: string; label: string },
  ours: Side,
  theirs: Side,
  statusDiffers: boolean
): Difference[] {
  const base = { objectType, objectId: ids.objectId, processorReference: ids.processorReference, ours, theirs }
  const found: Difference[] = []
  if (ours.currency !== theirs.currency) {
    found.push({
      ...base,
      kind: 'CURRENCY_MISMATCH',
      detail: `${ids.label} is in ${ours.currency} here and in ${theirs.currency} at the processor.`,
    })
  } else if (ours.amount !== theirs.amount) {
    found.push({
      ...base,
      kind: 'AMOUNT_MISMATCH',
      detail: `${ids.label} is ${money(ours.amount, ours.currency)} here and ${money(theirs.amount, theirs.currency)} at the processor.`,
    })
  }
  if (statusDiffers) {
    found.push({
      ...base,
      kind: 'STATUS_MISMATCH',
      detail: `${ids.label} is ${ours.status} here and ${theirs.status} at the processor.`,
    })
  }
  return found
}

function comparePayments(ours: OurPayment[], intents: ProcessorIntent[], window: CreatedWindow) {
  const byId = indexBy(intents, (i) => i.id)
  const byPayment = indexBy(intents, (i) => i.paymentId)
  const matched = new Set<string>()
  const differences: Difference[] = []
  for (const payment of ours) {
    const intent =
      (payment.processorReference === null ? undefined : byId.get(payment.processorReference)) ??
      byPayment.get(payment.id)
    const oursSide = { amount: payment.amount, currency: payment.currency, status: payment.status }
    if (!intent || matched.has(intent.id)) {
      if (paymentClaimed(payment)) {
        differences.push({
          kind: 'MISSING_AT_PROCESSOR',
          objectType: 'PAYMENT',
          objectId: payment.id,
          processorReference: payment.processorReference,
          ours: oursSide,
          theirs: null,
          detail:
            `Payment ${payment.id} (${money(payment.amount, payment.currency)}, ${payment.status}) has no payment ` +
            `intent at the processor${payment.processorReference ? ` (${payment.processorReference})` : ''}.`,
        })
      }
      continue
    }
    matched.add(intent.id)
    const status = intentStatusAsOurs(intent)
    differences.push(
      ...pairDifferences(
        'PAYMENT',
        { objectId: payment.id, processorReference: intent.id, label: `Payment ${payment.id} (intent ${intent.id})` },
        oursSide,
        { amount: intent.amount, currency: intent.currency, status: intent.status },
        !sameMoney(payment.status, status)
      )
    )
  }
  for (const intent of intents) {
    if (matched.has(intent.id) || !inWindow(intent.created, window)) continue
    differences.push({
      kind: 'MISSING_IN_PLATFORM',
      objectType: 'PAYMENT',
      objectId: null,
      processorReference: intent.id,
      ours: null,
      theirs: { amount: intent.amount, currency: intent.currency, status: intent.status },
      detail:
        `Payment intent ${intent.id} (${money(intent.amount, intent.currency)}, ${intent.status}) carries this ` +
        `tenant's metadata${intent.paymentId ? ` and names payment ${intent.paymentId}` : ''}; no payment here is it.`,
    })
  }
  return { differences, checked: ours.length + intents.filter((i) => !matched.has(i.id)).length }
}

function compareRefunds(ours: OurRefund[], refunds: ProcessorRefund[], window: CreatedWindow) {
  const byId = indexBy(refunds, (r) => r.id)
  const byRefund = indexBy(refunds, (r) => r.refundId)
  const matched = new Set<string>()
  const differences: Difference[] = []
  for (const refund of ours) {
    const theirs =
      (refund.processorReference === null ? undefined : byId.get(refund.processorReference)) ?? byRefund.get(refund.id)
    const oursSide = { amount: refund.amount, currency: refund.currency, status: refund.status }
    if (!theirs || matched.has(theirs.id)) {
      if (refundClaimed(refund)) {
        differences.push({
          kind: 'MISSING_AT_PROCESSOR',
          objectType: 'REFUND',
          objectId: refund.id,
          processorReference: refund.processorReference,
          ours: oursSide,
          theirs: null,
          detail:
            `Refund ${refund.id} of payment ${refund.paymentId} (${money(refund.amount, refund.currency)}, ` +
            `${refund.status}) is not at the processor${refund.processorReference ? ` (${refund.processorReference})` : ''}.`,
        })
      }
      continue
    }
    matched.add(theirs.id)
    differences.push(
      ...pairDifferences(
        'REFUND',
        { objectId: refund.id, processorReference: theirs.id, label: `Refund ${refund.id} (${theirs.id})` },
        oursSide,
        { amount: theirs.amount, currency: theirs.currency, status: theirs.status },
        refund.status !== refundStatusAsOurs(theirs.status)
      )
    )
  }
  for (const theirs of refunds) {
    if (matched.has(theirs.id) || !inWindow(theirs.created, window)) continue
    differences.push({
      kind: 'MISSING_IN_PLATFORM',
      objectType: 'REFUND',
      objectId: null,
      processorReference: theirs.id,
      ours: null,
      theirs: { amount: theirs.amount, currency: theirs.currency, status: theirs.status },
      detail:
        `Refund ${theirs.id} (${money(theirs.amount, theirs.currency)}, ${theirs.status}) of payment intent ` +
        `${theirs.paymentIntentId ?? '(none)'}${theirs.paymentId ? ` (payment ${theirs.paymentId})` : ''} is not ` +
        'recorded here.',
    })
  }
  return { differences, checked: ours.length + refunds.filter((r) => !matched.has(r.id)).length }
}

function compareDisputes(payments: OurPayment[], disputes: ProcessorDispute[], window: CreatedWindow) {
  const byId = indexBy(disputes, (d) => d.id)
  const matched = new Set<string>()
  const differences: Difference[] = []
  const disputed = payments.filter((p) => p.disputeReference !== null)
  for (const payment of disputed) {
    const reference = payment.disputeReference ?? ''
    const dispute = byId.get(reference)
    const oursSide = {
      amount: payment.amountDisputed,
      currency: payment.currency,
      status: payment.disputeStatus ?? 'OPEN',
    }
    if (!dispute) {
      differences.push({
        kind: 'MISSING_AT_PROCESSOR',
        objectType: 'DISPUTE',
        objectId: payment.id,
        processorReference: reference,
        ours: oursSide,
        theirs: null,
        detail: `Payment ${payment.id} is disputed here (${reference}, ${oursSide.status}); the processor has no such dispute.`,
      })
      continue
    }
    matched.add(dispute.id)
    differences.push(
      ...pairDifferences(
        'DISPUTE',
        {
          objectId: payment.id,
          processorReference: dispute.id,
          label: `Dispute ${dispute.id} of payment ${payment.id}`,
        },
        oursSide,
        { amount: dispute.amount, currency: dispute.currency, status: dispute.status },
        oursSide.status !== processorDisputeAsOurs(dispute)
      )
    )
  }
  const ourPayments = new Set(payments.map((p) => p.id))
  for (const dispute of disputes) {
    if (matched.has(dispute.id) || !inWindow(dispute.created, window)) continue
    const paymentId = dispute.paymentId !== null && ourPayments.has(dispute.paymentId) ? dispute.paymentId : null
    differences.push({
      kind: 'MISSING_IN_PLATFORM',
      objectType: 'DISPUTE',
      // The dispute is about our payment: the operator finds it there.
      objectId: paymentId,
      processorReference: dispute.id,
      ours: null,
      theirs: { amount: dispute.amount, currency: dispute.currency, status: dispute.status },
      detail:
        `Dispute ${dispute.id} (${money(dispute.amount, dispute.currency)}, ${dispute.status}) of payment intent ` +
        `${dispute.paymentIntentId ?? '(none)'}${dispute.paymentId ? ` (payment ${dispute.paymentId})` : ''} is ` +
        'not recorded here.',
    })
  }
  return { differences, checked: disputed.length + disputes.filter((d) => !matched.has(d.id)).length }
}

function compareTransfers(ours: OurTransfer[], transfers: ProcessorTransfer[], window: CreatedWindow) {
  const byId = indexBy(transfers, (t) => t.id)
  const matched = new Set<string>()
  const differences: Difference[] = []
  for (const send of ours) {
    const theirs = send.processorReference === null ? undefined : byId.get(send.processorReference)
    // Net of what the processor took back: that is what the provider kept.
    const oursSide = { amount: send.amount - send.amountReversed, currency: send.currency, status: send.status }
    if (!theirs || matched.has(theirs.id)) {
      if (transferClaimed(send)) {
        differences.push({
          kind: 'MISSING_AT_PROCESSOR',
          objectType: 'TRANSFER',
          objectId: send.transferId,
          processorReference: send.processorReference,
          ours: oursSide,
          theirs: null,
          detail:
            `Payout transfer ${send.transferId} (${money(send.amount, send.currency)}, ${send.status}) is not at ` +
            `the processor${send.processorReference ? ` (${send.processorReference})` : ''}.`,
        })
      }
      continue
    }
    matched.add(theirs.id)
    differences.push(
      ...pairDifferences(
        'TRANSFER',
        {
          objectId: send.transferId,
          processorReference: theirs.id,
          label: `Payout transfer ${send.transferId} (${theirs.id}, net of reversals)`,
        },
        oursSide,
        { amount: theirs.amount - theirs.amountReversed, currency: theirs.currency, status: 'PAID' },
        send.status !== 'PAID'
      )
    )
  }
  for (const theirs of transfers) {
    if (matched.has(theirs.id) || !inWindow(theirs.created, window)) continue
    differences.push({
      kind: 'MISSING_IN_PLATFORM',
      objectType: 'TRANSFER',
      objectId: null,
      processorReference: theirs.id,
      ours: null,
      theirs: { amount: theirs.amount - theirs.amountReversed, currency: theirs.currency, status: 'PAID' },
      detail:
        `Transfer ${theirs.id} (${money(theirs.amount, theirs.currency)}, ${money(theirs.amountReversed, theirs.currency)} ` +
        `reversed)${theirs.transferId ? ` names payout transfer ${theirs.transferId}` : ''}; no send of ours is it.`,
    })
  }
  return { differences, checked: ours.length + transfers.filter((t) => !matched.has(t.id)).length }
}
