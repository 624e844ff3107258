/**
 * @module Our disputes against the processor's (compare.ts): each dispute row by its processor id, its state read as
 * ours (a lost dispute whose funds came back is WON). A charge can be disputed more than once: every dispute the
 * processor holds of a charge we hold disputes of is compared with its own row (issue 58), whenever it was created;
 * another dispute of the processor is missing here only when created in the window.
 */
import { indexBy, inWindow, money, pairDifferences, type Difference } from './differences.ts'
import type { PlatformRecords } from './platform-records.ts'
import type { CreatedWindow, ProcessorDispute } from './processor-snapshot.ts'
import { processorDisputeAsOurs } from './processor-statuses.ts'

/** Our dispute rows against the processor's disputes: the differences, and how many records were compared. */
export function compareDisputes(
  ours: Pick<PlatformRecords, 'disputes' | 'payments'>,
  disputes: ProcessorDispute[],
  window: CreatedWindow
) {
  const byId = indexBy(disputes, (d) => d.id)
  const matched = new Set<string>()
  const differences: Difference[] = []
  for (const dispute of ours.disputes) {
    const theirs = byId.get(dispute.processorReference)
    const oursSide = { amount: dispute.amount, currency: dispute.currency, status: dispute.status }
    if (!theirs) {
      differences.push({
        kind: 'MISSING_AT_PROCESSOR',
        objectType: 'DISPUTE',
        objectId: dispute.id,
        processorReference: dispute.processorReference,
        ours: oursSide,
        theirs: null,
        detail:
          `Dispute ${dispute.id} of payment ${dispute.paymentId} (${dispute.processorReference}, ${dispute.status}) ` +
          'is recorded here; the processor has no such dispute.',
      })
      continue
    }
    matched.add(theirs.id)
    differences.push(
      ...pairDifferences(
        'DISPUTE',
        {
          objectId: dispute.id,
          processorReference: theirs.id,
          label: `Dispute ${theirs.id} of payment ${dispute.paymentId}`,
        },
        oursSide,
        { amount: theirs.amount, currency: theirs.currency, status: theirs.status },
        oursSide.status !== processorDisputeAsOurs(theirs)
      )
    )
  }
  const ourPayments = new Set(ours.payments.map((p) => p.id))
  const disputedCharges = new Set(ours.disputes.map((d) => d.intentId))
  const unmatched = disputes.filter((d) => !matched.has(d.id))
  for (const dispute of unmatched) {
    const ofOurCharge = dispute.paymentIntentId !== null && disputedCharges.has(dispute.paymentIntentId)
    if (!ofOurCharge && !inWindow(dispute.created, window)) continue
    const paymentId = dispute.paymentId !== null && ourPayments.has(dispute.paymentId) ? dispute.paymentId : null
    differences.push({
      kind: 'MISSING_IN_PLATFORM',
      objectType: 'DISPUTE',
      // Keyed by the processor's id: two disputes of one payment are two findings. The detail names the payment.
      objectId: null,
      processorReference: dispute.id,
      ours: null,
      theirs: { amount: dispute.amount, currency: dispute.currency, status: dispute.status },
      detail:
        `Dispute ${dispute.id} (${money(dispute.amount, dispute.currency)}, ${dispute.status}) of payment intent ` +
        `${dispute.paymentIntentId ?? '(none)'}${paymentId ? ` (payment ${paymentId})` : ''} is ` +
        'not recorded here.',
    })
  }
  return { differences, checked: ours.disputes.length + unmatched.length }
}
