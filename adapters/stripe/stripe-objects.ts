/**
 * @module Stripe's objects as the platform reads them back: whose they are (the metadata we gave every object we
 * create: `tenant_id` and our record's id, which is how a webhook, carrying no credential of ours, finds the one tenant
 * and record it is about), their amounts in our minor units (stripe-currencies.ts), and their states as ours. Used by
 * the webhook's events (stripe-events.ts), the calls' answers and the reconciliation's reads alike, so the same object
 * reads the same everywhere.
 */
import type Stripe from 'stripe'
import type {
  ChargeCost,
  ProcessorDispute,
  ProcessorEventSubject,
  SettledMoney,
} from '../../domain/payments/online-processor-events.ts'
import type { ProcessorRefundAnswer } from '../../domain/payments/online-processor.ts'
import type { PaymentFailureCode } from '../../domain/payments/payment-processor.ts'
import { isCurrency, minorUnitExponent } from '../../domain/pricing/currencies.ts'
import { fromStripeAmount } from './stripe-currencies.ts'

type Metadata = Stripe.Metadata | null | undefined
/** A field Stripe sends as an id, or as the object when it was expanded. */
export type Expandable<T> = string | T | null | undefined

/** An object's metadata (none for an id Stripe did not expand); Stripe's types disagree on whether one always has it. */
export const metadataOf = (value: Expandable<{ metadata?: Metadata }>): Stripe.Metadata =>
  (typeof value === 'object' && value !== null ? value.metadata : undefined) ?? {}

/** An id from a field Stripe may send as an id or as the expanded object. */
export const idOf = (value: Expandable<{ id: string }>) => (typeof value === 'string' ? value : (value?.id ?? null))

/** Stripe's currencies are lower case; its amounts are in its own units (stripe-currencies.ts). */
export const currencyOf = (currency: string | null | undefined) => (currency ?? '').toUpperCase()
/** A Stripe amount in our minor units of its currency. */
export const ours = (amount: number, currency: string | null | undefined) =>
  fromStripeAmount(amount, currencyOf(currency))

/** Our tenant and payment, from an object's metadata; undefined for an object we did not create. */
export function subjectOf(metadata: Metadata): ProcessorEventSubject | undefined {
  const tenantId = metadata?.tenant_id
  const paymentId = metadata?.payment_id
  return tenantId && paymentId ? { tenantId, paymentId } : undefined
}

/** Why a card payment failed, from Stripe's `last_payment_error` (its `decline_code` first, then its `code`). */
export function failureCodeOf(error: { code?: string | null; decline_code?: string | null } | null | undefined) {
  const reasons = [error?.decline_code, error?.code]
  const code: PaymentFailureCode = reasons.includes('insufficient_funds')
    ? 'INSUFFICIENT_FUNDS'
    : reasons.includes('expired_card')
      ? 'EXPIRED_CARD'
      : reasons.some((r) => r === 'card_declined' || r === 'incorrect_cvc' || r === 'incorrect_number')
        ? 'CARD_DECLINED'
        : reasons.includes('payment_intent_authentication_failure')
          ? 'PAYMENT_REJECTED'
          : 'OTHER'
  return code
}

/** A Stripe refund's state, as the platform's refund statuses. */
export function refundStatusOf(status: string | null | undefined): 'PENDING' | 'SUCCEEDED' | 'FAILED' {
  if (status === 'succeeded') return 'SUCCEEDED'
  if (status === 'failed' || status === 'canceled') return 'FAILED'
  return 'PENDING'
}

/**
 * A Stripe refund as the processor seam answers one: its id, its state as ours, why it failed, and what it moved on a
 * balance kept in another currency when its balance transaction was expanded (issue 58).
 */
export const refundHeldOf = (refund: Stripe.Refund): ProcessorRefundAnswer => ({
  id: refund.id,
  status: refundStatusOf(refund.status),
  failureMessage: refund.failure_reason ?? null,
  settled: refundSettledOf(refund) ?? null,
})

/**
 * A dispute's status, as the platform's: decided (won, lost), closed without a decision against the centre (an
 * inquiry's `warning_closed`, `charge_refunded`), or still open (every other Stripe status).
 */
export function disputeStatusOf(status: string): 'OPEN' | 'WON' | 'LOST' | 'CLOSED' {
  if (status === 'won') return 'WON'
  if (status === 'lost') return 'LOST'
  if (status === 'warning_closed' || status === 'charge_refunded') return 'CLOSED'
  return 'OPEN'
}

/** Whether a Stripe dispute status is an inquiry's (`warning_needs_response`, `_under_review`, `_closed`). */
export const isInquiryStatus = (status: string) => status.startsWith('warning_')

/**
 * A balance transaction as Stripe expands it (a charge's, a dispute's): `amount` and `fee` in the balance's currency,
 * which is the object's own or, on an account settling in another, the converted one (`exchange_rate`: the object's
 * currency to the balance's).
 */
interface BalanceMove {
  amount: number
  fee: number
  currency: string
  exchange_rate?: number | null
}

/**
 * A fee Stripe charged in a balance transaction, in our minor units of the object's currency (a dispute's, a charge's):
 * converted back at the transaction's own rate when the balance is in another currency (rounded to the minor unit), 0
 * when Stripe gave no rate to convert by. Filtered out by currency, it read 0 on every account settling in another
 * currency (issue 58).
 */
function feeIn(move: BalanceMove, currency: string): number {
  if (move.currency === currency) return ours(move.fee, currency)
  const code = currencyOf(currency)
  const balance = currencyOf(move.currency)
  if (!move.exchange_rate || !isCurrency(code) || !isCurrency(balance)) return 0
  const inBalance = ours(move.fee, balance) / 10 ** minorUnitExponent(balance)
  return Math.round((inBalance / move.exchange_rate) * 10 ** minorUnitExponent(code))
}

/**
 * What balance transactions moved in the balance's currency, when it is not `currency` (Stripe converted the money,
 * issue 58): their amounts and fees summed, in our minor units of the balance's currency. Undefined when there is
 * none, or they are in `currency` itself.
 */
function settledIn(moves: readonly BalanceMove[], currency: string): SettledMoney | undefined {
  const converted = moves.filter((move) => currencyOf(move.currency) !== currencyOf(currency))
  const balance = converted[0]?.currency
  if (balance === undefined || converted.some((move) => move.currency !== balance)) return undefined
  return {
    currency: currencyOf(balance),
    amount: ours(
      converted.reduce((sum, move) => sum + move.amount, 0),
      balance
    ),
    fee: ours(
      converted.reduce((sum, move) => sum + move.fee, 0),
      balance
    ),
  }
}

/** What to expand of a payment intent for {@link chargeCostOf}. */
export const WITH_PROCESSING_FEE = ['latest_charge.balance_transaction']

/**
 * Stripe's cost of an intent's charge (issue 58): its balance transaction's processing fee in our minor units of the
 * intent's currency (converted back as a dispute's is), and what the transaction moved on a balance kept in another
 * currency. A zero fee for an intent with no charge; null when Stripe's answer does not carry the balance transaction
 * (not expanded, or not made yet), so the cost is unknown.
 */
export function chargeCostOf(intent: Stripe.PaymentIntent): ChargeCost | null {
  const charge = intent.latest_charge
  // Falsy also when an older API version or a hand-made object leaves it out.
  if (!charge) return { fee: 0, settled: null }
  if (typeof charge === 'string') return null
  const move = charge.balance_transaction
  if (!move || typeof move === 'string') return null
  return { fee: feeIn(move, intent.currency), settled: settledIn([move], intent.currency) ?? null }
}

/**
 * What a refund moved on a balance kept in another currency (issue 58): its balance transaction's amount (negative),
 * when Stripe's answer expanded it. Undefined otherwise, or when the balance keeps the refund's own currency.
 */
export function refundSettledOf(refund: Stripe.Refund): SettledMoney | undefined {
  const move = refund.balance_transaction
  return move && typeof move === 'object' ? settledIn([move], refund.currency) : undefined
}

/**
 * A Stripe dispute as the platform holds one. Its balance transactions say what moved: the withdrawal (negative, with
 * the dispute fee) and, when Stripe gave the funds back, the reinstatement (positive), in whatever currency the
 * account settles in. A lost dispute whose funds were reinstated, or one Stripe says reinstated
 * (`charge.dispute.funds_reinstated`), is the centre's again: `WON`. An inquiry (`warning_*`) withdraws nothing; any
 * other status, or a withdrawal, says Stripe took the funds (an inquiry escalated to a chargeback).
 */
export function disputeOf(dispute: Stripe.Dispute, reinstated = false): ProcessorDispute {
  const moves = (dispute.balance_transactions as BalanceMove[] | undefined) ?? []
  const status = disputeStatusOf(dispute.status)
  // A reinstatement is money coming back, whichever currency the balance keeps: read by its sign, not its currency.
  const givenBack = reinstated || moves.some((t) => t.amount > 0)
  const settled = settledIn(moves, dispute.currency)
  return {
    disputeId: dispute.id,
    intentId: idOf(dispute.payment_intent),
    amount: ours(dispute.amount, dispute.currency),
    currency: currencyOf(dispute.currency),
    status: status === 'LOST' && givenBack ? 'WON' : status,
    fee: moves.reduce((sum, t) => sum + feeIn(t, dispute.currency), 0),
    fundsWithdrawn: !isInquiryStatus(dispute.status) || moves.some((t) => t.amount < 0),
    ...(settled && { settled }),
  }
}

/**
 * The `purpose` in the metadata of a transfer reversal the platform makes to recover money a provider owes (a
 * clawback carried forward): booked as recovered from the provider, never as owed to them again (issue 46).
 */
export const RECOVERY_PURPOSE = 'recovery'

/**
 * The reversals Stripe sends inside a transfer, and whether they are all of them: it embeds only the ten most recent
 * (`has_more` says there are more, listed at `GET /v1/transfers/{id}/reversals`: stripe-transfer-reversals.ts), and a
 * transfer sent without its list holds them all only when nothing of it was reversed.
 */
export function embeddedReversals(transfer: Stripe.Transfer): {
  reversals: Stripe.TransferReversal[]
  complete: boolean
} {
  // Stripe's types say the list is always there; an event's object or an older API version may still leave it out.
  const list = transfer.reversals as Stripe.ApiList<Stripe.TransferReversal> | undefined
  if (!list) return { reversals: [], complete: !transfer.amount_reversed }
  return { reversals: list.data, complete: !list.has_more }
}

/**
 * What the platform took back of a transfer to recover money (those of its reversals whose metadata says so), in our
 * minor units of the transfer's currency.
 */
export function recoveredAmong(reversals: readonly Stripe.TransferReversal[], currency: string): number {
  const recovered = reversals.filter((r) => metadataOf(r).purpose === RECOVERY_PURPOSE)
  return ours(
    recovered.reduce((sum, r) => sum + r.amount, 0),
    currency
  )
}
