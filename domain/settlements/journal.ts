/**
 * @module The marketplace's chart of accounts and the journal lines each settlement item and each movement of money
 * posts (double entry: every item's debits equal its credits, so every entry, and the books as a whole, sum to zero).
 * Pure.
 *
 * | account | kind | holds |
 * |---|---|---|
 * | `clearing` | asset | money held at the payment processor: collected by it, net of its fees, refunds, disputes and payout transfers |
 * | `centre_funds` | asset | money the centre holds itself: payments it recorded (cash, terminal, bank transfer), net of their refunds and of payouts made without a payout processor |
 * | `payer_funds` | liability | money collected from payers that no settlement has taken for a provider yet (sessions not yet payable; lines no provider earns) |
 * | `processor_fees` | expense | what the payment processor charged: its processing fees and dispute fees |
 * | `fx_conversion` | equity (trading) | money converted between currencies by the processor: the charged currency in, the balance's out |
 * | `provider_payable:<providerId>` | liability | what the platform owes the provider (negative: owed back) |
 * | `platform_fee_revenue` | revenue | the platform's fees, net of fees returned with refunds |
 * | `platform_adjustments` | expense | adjustments granted to providers (negative: recovered from them) |
 * | `payouts_in_transit:<providerId>` | liability | payouts settled and not yet paid by a transfer (with a payout processor) |
 * | `provider_reserve:<providerId>` | liability | owed to the provider but held back while a refund is pending or a dispute open |
 *
 * Money moving (domain/payments/collection-ledger.ts), posted when it moves, in entries of their own linked to the
 * payment, refund or dispute (`collectionOf`); `holding` is `clearing` for a processor's payment, `centre_funds` for
 * one the centre recorded:
 *
 * | movement | debit | credit |
 * |---|---|---|
 * | a payment succeeded, amount c | holding c | payer_funds c |
 * | a refund succeeded, r (the opposite if it fails later) | payer_funds r | holding r |
 * | a dispute's funds withdrawn, d (the opposite when they are reinstated) | payer_funds d | holding d |
 * | the processor's fee f (its processing fee on a payment, a dispute's fee) | processor_fees f | holding f |
 *
 * A processor whose balance keeps another currency converts the money (FX): what moved on its balance is in that
 * currency, from its balance transactions, and `fx_conversion` (a currency trading account) stands between the two, so
 * each currency balances on its own. A payment of c charged in EUR and kept as c' (fee f') in USD:
 *
 * | currency | debit | credit |
 * |---|---|---|
 * | EUR | fx_conversion c | payer_funds c |
 * | USD | clearing c' − f', processor_fees f' | fx_conversion c' |
 *
 * Refunds and disputes of such a payment move through it the same way; what `fx_conversion` holds in each currency is
 * the conversions' position, and valued at one rate, the gain or loss of the rates moving in between.
 *
 * | item | debit | credit |
 * |---|---|---|
 * | SESSION gross G, fee F | payer_funds G | provider_payable G − F, platform_fee_revenue F |
 * | REFUND share r, fee returned f | provider_payable r − f, platform_fee_revenue f | payer_funds r |
 * | REFUND_REVERSAL r, fee f (a refund taken that failed) | payer_funds r | provider_payable r − f, platform_fee_revenue f |
 * | CHARGEBACK r, fee returned f (a lost dispute's share) | as REFUND | as REFUND |
 * | CHARGEBACK_REVERSAL r, fee f (its funds reinstated) | as REFUND_REVERSAL | as REFUND_REVERSAL |
 * | RESERVE share r, fee it would return f (a refund pending, a dispute open) | provider_payable r − f | provider_reserve r − f |
 * | RESERVE_RELEASE r, f (the refund or dispute closed) | provider_reserve r − f | provider_payable r − f |
 * | ADJUSTMENT a | platform_adjustments a | provider_payable a |
 * | PAYOUT p | provider_payable p | centre_funds p, or payouts_in_transit p with a payout processor |
 *
 * So a settlement moves money the payers paid from `payer_funds` to what is owed to the provider and earned by the
 * platform; the money itself stays where it is held until a refund, a dispute or a payout moves it, and `clearing`
 * follows the processor's balance movement for movement (the ledger check compares them, ledger-against-processor.ts).
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
 *
 * A transfer sent from a balance kept in another currency (issue 78) moves a in the settlement's currency and s in the
 * balance's: paid is payouts_in_transit a / fx_conversion a, then fx_conversion s / clearing s (reversed and recovered
 * the opposite way).
 */

export const CLEARING = 'clearing'
export const CENTRE_FUNDS = 'centre_funds'
export const PAYER_FUNDS = 'payer_funds'
export const PROCESSOR_FEES = 'processor_fees'
export const FX_CONVERSION = 'fx_conversion'
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
  /** Upper-case ISO code; unsaid: the entry's. Only money moving through `fx_conversion` posts another. */
  currency?: string
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
          [PAYER_FUNDS, item.amount],
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
          [PAYER_FUNDS, -item.amount],
        ]
      case 'REFUND_REVERSAL':
      case 'CHARGEBACK_REVERSAL':
        // The exact opposite of the refund it gives back: the money stays with the platform, owed to the provider.
        return [
          [PAYER_FUNDS, item.amount],
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
          // Without a payout processor the centre pays the provider itself, from its own funds.
          [item.inTransit ? inTransitAccount(item.providerId) : CENTRE_FUNDS, -item.amount],
        ]
    }
  })()
  return toLines(postings)
}

/** Where a payment's money is held: at the processor, or with the centre (a payment it recorded). */
export const holdingAccount = (processor: string) => (processor === 'recorded' ? CENTRE_FUNDS : CLEARING)

/** What moved for a payment, refund or dispute on the processor's balance, when it keeps another currency. */
export interface SettledMove {
  /** Upper-case ISO code of the balance. */
  currency: string
  /** Minor units of it: positive when the balance took money in, negative when it gave some back. */
  collected: number
  fee: number
}

/** A signed balance of one account in one currency: a debit balance when positive. */
export interface AccountBalance {
  account: string
  currency: string
  balance: number
}

/**
 * What the books hold of one payment, refund or dispute once what moved for it is posted: `collected` money from the
 * payer held (negative: given back, or withdrawn by the payer's bank) and `fee` charged by the processor, in minor
 * units of `currency`; or, when the processor's balance keeps another currency, the payer's side in `currency` and the
 * balance's in the settled one, through `fx_conversion`. Zero balances are left out. Pure.
 */
export function collectionBalances(
  holding: string,
  currency: string,
  collected: number,
  fee: number,
  settled?: SettledMove
): AccountBalance[] {
  const balances: AccountBalance[] = settled
    ? [
        { account: PAYER_FUNDS, currency, balance: -collected },
        { account: FX_CONVERSION, currency, balance: collected },
        { account: FX_CONVERSION, currency: settled.currency, balance: -settled.collected },
        { account: holding, currency: settled.currency, balance: settled.collected - settled.fee },
        { account: PROCESSOR_FEES, currency: settled.currency, balance: settled.fee },
      ]
    : [
        { account: holding, currency, balance: collected - fee },
        { account: PAYER_FUNDS, currency, balance: -collected },
        { account: PROCESSOR_FEES, currency, balance: fee },
      ]
  return balances.filter((b) => b.balance !== 0)
}

/**
 * The journal lines that take what the books hold (`held`) to `target`, account by account and currency by currency:
 * each line in its own currency. Pure.
 */
export function linesBetween(held: readonly AccountBalance[], target: readonly AccountBalance[]): JournalLine[] {
  const key = (b: AccountBalance) => `${b.account}\u0000${b.currency}`
  const moves = new Map<string, AccountBalance>()
  for (const b of target) moves.set(key(b), { ...b, balance: (moves.get(key(b))?.balance ?? 0) + b.balance })
  for (const b of held) moves.set(key(b), { ...b, balance: (moves.get(key(b))?.balance ?? 0) - b.balance })
  return [...moves.values()]
    .filter((m) => m.balance !== 0)
    .map((m) => ({
      account: m.account,
      currency: m.currency,
      debit: Math.max(m.balance, 0),
      credit: Math.max(-m.balance, 0),
    }))
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
export function transferLines(
  movement: TransferMovement,
  providerId: string,
  amount: number,
  sent?: SentMoney
): JournalLine[] {
  if (movement === 'CARRIED') {
    return toLines([
      [inTransitAccount(providerId), amount],
      [payableAccount(providerId), -amount],
    ])
  }
  const sign = movement === 'PAID' ? 1 : -1
  const owedSide = movement === 'RECOVERED' ? payableAccount(providerId) : inTransitAccount(providerId)
  if (!sent) {
    const postings: Array<[string, number]> = [
      [owedSide, sign * amount],
      [CLEARING, -sign * amount],
    ]
    // A recovery lists the money coming in first, as it always has.
    return toLines(movement === 'RECOVERED' ? postings.reverse() : postings)
  }
  // Sent from a balance in another currency: each currency balances on its own through fx_conversion, whose two sides
  // differ by the rate and the rounding to what the processor transfers.
  return [
    ...toLines([
      [owedSide, sign * amount],
      [FX_CONVERSION, -sign * amount],
    ]),
    ...toLines([
      [FX_CONVERSION, sign * sent.amount],
      [CLEARING, -sign * sent.amount],
    ]).map((line) => ({ ...line, currency: sent.currency })),
  ]
}

/** What a transfer moved on a balance kept in another currency than its settlement's (issue 78). */
export interface SentMoney {
  /** Upper-case ISO code of the balance. */
  currency: string
  /** Positive minor units of it. */
  amount: number
}

/** Signed postings as lines: a debit when positive, a credit when negative, none for zero. */
const toLines = (postings: Array<[string, number]>): JournalLine[] =>
  postings
    .filter(([, amount]) => amount !== 0)
    .map(([account, amount]) => ({ account, debit: Math.max(amount, 0), credit: Math.max(-amount, 0) }))
