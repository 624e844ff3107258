/**
 * @module The marketplace's chart of accounts and the journal lines each settlement item posts (double entry: every
 * item's debits equal its credits, so every entry, and the books as a whole, sum to zero). Pure.
 *
 * | account | kind | holds |
 * |---|---|---|
 * | `clearing` | asset | money collected from payers for settled sessions and not yet paid out |
 * | `provider_payable:<providerId>` | liability | what the platform owes the provider (negative: owed back) |
 * | `platform_fee_revenue` | revenue | the platform's fees, net of fees returned with refunds |
 * | `platform_adjustments` | expense | adjustments granted to providers (negative: recovered from them) |
 * | `payouts_in_transit:<providerId>` | liability | payouts settled and not yet paid by a transfer (with a payout processor) |
 * | `provider_reserve:<providerId>` | liability | owed to the provider but held back while a refund is pending or a dispute open |
 *
 * | item | debit | credit |
 * |---|---|---|
 * | SESSION gross G, fee F | clearing G | provider_payable G − F, platform_fee_revenue F |
 * | REFUND share r, fee returned f | provider_payable r − f, platform_fee_revenue f | clearing r |
 * | REFUND_REVERSAL r, fee f (a refund taken that failed) | clearing r | provider_payable r − f, platform_fee_revenue f |
 * | CHARGEBACK r, fee returned f (a lost dispute's share) | as REFUND | as REFUND |
 * | CHARGEBACK_REVERSAL r, fee f (its funds reinstated) | as REFUND_REVERSAL | as REFUND_REVERSAL |
 * | RESERVE share r, fee it would return f (a refund pending, a dispute open) | provider_payable r − f | provider_reserve r − f |
 * | RESERVE_RELEASE r, f (the refund or dispute closed) | provider_reserve r − f | provider_payable r − f |
 * | ADJUSTMENT a | platform_adjustments a | provider_payable a |
 * | PAYOUT p | provider_payable p | clearing p, or payouts_in_transit p with a payout processor |
 *
 * With a payout processor the money leaves the books only when a transfer is paid, in entries of their own linked to
 * the transfer (`payoutTransferId`; domain/payouts/payout-ledger.ts):
 *
 * | transfer | debit | credit |
 * |---|---|---|
 * | paid a | payouts_in_transit a | clearing a |
 * | reversed r (the processor took it back) | clearing r | payouts_in_transit r |
 * | recovered r (the platform took it back for what the provider owed) | clearing r | provider_payable r |
 * | carried c (below the processor's transferable unit, at a retry) | payouts_in_transit c | provider_payable c |
 */

export const CLEARING = 'clearing'
export const FEE_REVENUE = 'platform_fee_revenue'
export const ADJUSTMENTS = 'platform_adjustments'
export const payableAccount = (providerId: string) => `provider_payable:${providerId}`
export const inTransitAccount = (providerId: string) => `payouts_in_transit:${providerId}`
export const reserveAccount = (providerId: string) => `provider_reserve:${providerId}`

export type SettlementItemKind =
  | 'SESSION'
  | 'REFUND'
  | 'REFUND_REVERSAL'
  | 'CHARGEBACK'
  | 'CHARGEBACK_REVERSAL'
  | 'RESERVE'
  | 'RESERVE_RELEASE'
  | 'ADJUSTMENT'
  | 'PAYOUT'

/** What an item posts: amounts in minor units (an adjustment's amount is signed). */
export interface PostingSource {
  kind: SettlementItemKind
  providerId: string
  amount: number
  fee: number
  /** A PAYOUT that a transfer will pay: it waits in transit rather than leaving clearing at once. */
  inTransit?: boolean
}

export interface JournalLine {
  account: string
  debit: number
  credit: number
}

/**
 * The journal lines of one item. A signed posting becomes a debit when positive and a credit when negative; zero
 * postings are left out (a line is a positive debit or a positive credit, as the database requires).
 */
export function journalLines(item: PostingSource): JournalLine[] {
  const payable = payableAccount(item.providerId)
  const postings: Array<[string, number]> = (() => {
    switch (item.kind) {
      case 'SESSION':
        return [
          [CLEARING, item.amount],
          [payable, -(item.amount - item.fee)],
          [FEE_REVENUE, -item.fee],
        ]
      case 'REFUND':
      case 'CHARGEBACK':
        // A lost dispute gives the payer's money back as a refund does; the processor's dispute fee is not here (the
        // centre's cost, never the provider's).
        return [
          [payable, item.amount - item.fee],
          [FEE_REVENUE, item.fee],
          [CLEARING, -item.amount],
        ]
      case 'REFUND_REVERSAL':
      case 'CHARGEBACK_REVERSAL':
        // The exact opposite of the refund it gives back: the money stays with the platform, owed to the provider.
        return [
          [CLEARING, item.amount],
          [payable, -(item.amount - item.fee)],
          [FEE_REVENUE, -item.fee],
        ]
      case 'RESERVE':
        // Still the provider's, so a liability, but not payable: the money the processor took (or is giving back)
        // is not in clearing to pay them with, and the fee's part is the platform's to lose, not held from anyone.
        return [
          [payable, item.amount - item.fee],
          [reserveAccount(item.providerId), -(item.amount - item.fee)],
        ]
      case 'RESERVE_RELEASE':
        // Exactly what its reserve held, back on the payable balance; the CHARGEBACK or REFUND, if any, takes its own.
        return [
          [reserveAccount(item.providerId), item.amount - item.fee],
          [payable, -(item.amount - item.fee)],
        ]
      case 'ADJUSTMENT':
        return [
          [ADJUSTMENTS, item.amount],
          [payable, -item.amount],
        ]
      case 'PAYOUT':
        return [
          [payable, item.amount],
          [item.inTransit ? inTransitAccount(item.providerId) : CLEARING, -item.amount],
        ]
    }
  })()
  return toLines(postings)
}

/** What moves for a payout transfer (see {@link transferLines}). */
export type TransferMovement = 'PAID' | 'REVERSED' | 'RECOVERED' | 'CARRIED'

/**
 * The journal lines of money moving for a payout transfer: `PAID` leaves clearing for the provider's account,
 * `REVERSED` comes back from it and is owed to the provider again, in transit, and `RECOVERED` comes back from it to
 * settle what the provider owed (their payable balance, negative after a clawback): nothing is owed again. `CARRIED`
 * moves no money: the part of a retried transfer the processor cannot transfer (below its unit) goes back from in
 * transit to the provider's payable balance, so their next settlement pays it with what they earn.
 */
export function transferLines(movement: TransferMovement, providerId: string, amount: number): JournalLine[] {
  if (movement === 'CARRIED') {
    return toLines([
      [inTransitAccount(providerId), amount],
      [payableAccount(providerId), -amount],
    ])
  }
  if (movement === 'RECOVERED') {
    return toLines([
      [CLEARING, amount],
      [payableAccount(providerId), -amount],
    ])
  }
  const sign = movement === 'PAID' ? 1 : -1
  return toLines([
    [inTransitAccount(providerId), sign * amount],
    [CLEARING, -sign * amount],
  ])
}

/** Signed postings as lines: a debit when positive, a credit when negative, none for zero. */
const toLines = (postings: Array<[string, number]>): JournalLine[] =>
  postings
    .filter(([, amount]) => amount !== 0)
    .map(([account, amount]) => ({ account, debit: Math.max(amount, 0), credit: Math.max(-amount, 0) }))
