/**
 * @module A difference between our records and the processor's, as the comparison finds it (compare.ts), and what
 * every kind of object's comparison shares: the differences of one matched pair (currency first, then amount, then
 * state), amounts as the detail says them, the run's window, an index by id.
 */
import { isCurrency } from '../pricing/currencies.ts'
import { describeAmount } from '../pricing/money.ts'
import type { FindingInput } from './findings.ts'
import type { CreatedWindow } from './processor-snapshot.ts'

/** A difference, as `recordFinding` takes it (the run's id is added by the caller). */
export type Difference = Omit<FindingInput, 'runId'>

export const money = (amount: number, currency: string) =>
  isCurrency(currency) ? describeAmount(amount, currency) : `${amount} minor units of ${currency}`
export const inWindow = (created: Date, window: CreatedWindow) => created >= window.from && created < window.to
export const indexBy = <T>(items: T[], key: (item: T) => string | null) => {
  const map = new Map<string, T>()
  for (const item of items) {
    const k = key(item)
    if (k !== null && !map.has(k)) map.set(k, item)
  }
  return map
}

/** One side of a pair, as a finding records it. */
export interface Side {
  amount: number
  currency: string
  status: string
}

/**
 * The differences of one pair: currency first (amounts in two currencies do not compare), then amount, then status.
 */
export function pairDifferences(
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
