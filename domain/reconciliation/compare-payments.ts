/**
 * @module Our payments against the processor's payment intents (compare.ts): matched by the intent's id, else by the
 * payment id in its metadata. A PENDING payment and a FAILED one are the same money (nothing paid, and the payer may
 * still pay the intent), so that pair is no difference.
 */
import type { PaymentStatus } from '../../generated/prisma/enums.ts'
import { indexBy, inWindow, money, pairDifferences, type Difference } from './differences.ts'
import type { OurPayment } from './platform-records.ts'
import type { CreatedWindow, ProcessorIntent } from './processor-snapshot.ts'
import { intentStatusAsOurs } from './processor-statuses.ts'

/** Whether two payment statuses are the same money: PENDING and FAILED both hold nothing paid. */
const sameMoney = (a: PaymentStatus, b: PaymentStatus) =>
  a === b || ((a === 'PENDING' || a === 'FAILED') && (b === 'PENDING' || b === 'FAILED'))

/** Whether the processor should hold a payment of ours. */
const paymentClaimed = (p: OurPayment) => p.processorReference !== null || p.status === 'SUCCEEDED'

/** Payments against intents: the differences, and how many records were compared. */
export function comparePayments(ours: OurPayment[], intents: ProcessorIntent[], window: CreatedWindow) {
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
