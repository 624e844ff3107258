/**
 * @module Our refunds against the processor's (compare.ts): matched by the processor's id, else by our refund id in
 * its metadata; one made at the processor (the Dashboard) that no refund of ours is, is missing here.
 */
import { indexBy, inWindow, money, pairDifferences, type Difference } from './differences.ts'
import type { OurRefund } from './platform-records.ts'
import type { CreatedWindow, ProcessorRefund } from './processor-snapshot.ts'
import { refundStatusAsOurs } from './processor-statuses.ts'

/** Whether the processor should hold a refund of ours. */
const refundClaimed = (r: OurRefund) => r.processorReference !== null || r.status === 'SUCCEEDED'

/** Refunds against the processor's: the differences, and how many records were compared. */
export function compareRefunds(ours: OurRefund[], refunds: ProcessorRefund[], window: CreatedWindow) {
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
