/**
 * @module Our payout transfer sends against the processor's transfers (compare.ts): matched by the processor's id,
 * compared net of what the processor took back (what the provider kept).
 */
import { indexBy, inWindow, money, pairDifferences, type Difference } from './differences.ts'
import type { OurTransfer } from './platform-records.ts'
import type { CreatedWindow, ProcessorTransfer } from './processor-snapshot.ts'

/** Whether the processor should hold a payout transfer of ours. */
const transferClaimed = (t: OurTransfer) => t.processorReference !== null || t.status === 'PAID'

/** Transfer sends against the processor's transfers: the differences, and how many records were compared. */
export function compareTransfers(ours: OurTransfer[], transfers: ProcessorTransfer[], window: CreatedWindow) {
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
