/**
 * @module The disputes of our payments against the processor's (compare.ts): each disputed payment's dispute by its
 * id, its state read as ours (a lost dispute whose funds came back is WON).
 */
import { indexBy, inWindow, money, pairDifferences, type Difference } from './differences.ts'
import type { OurPayment } from './platform-records.ts'
import type { CreatedWindow, ProcessorDispute } from './processor-snapshot.ts'
import { processorDisputeAsOurs } from './processor-statuses.ts'

/** Disputed payments against the processor's disputes: the differences, and how many records were compared. */
export function compareDisputes(payments: OurPayment[], disputes: ProcessorDispute[], window: CreatedWindow) {
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
