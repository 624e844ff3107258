/**
 * @module The arithmetic of a payout transfer's attempts (docs/marketplace.md, "Payouts"), pure. Each send of a
 * transfer is an attempt, recorded before it is sent with its own idempotency key and the amount still owed then; the
 * processor may pay it, refuse it, or later take part or all of a paid one back (a reversal). What the provider has
 * received is what the paid attempts moved net of reversals, and what is still owed is the rest of the transfer.
 */
import type { PayoutAttemptStatus, PayoutTransferStatus } from '../../generated/prisma/enums.ts'

/**
 * How long the processor remembers an idempotency key: Stripe keeps a key at least 24 hours and may forget it after.
 * An attempt first sent longer ago than this is looked up at the processor before anything is sent again.
 */
export const IDEMPOTENCY_WINDOW_MS = 24 * 3_600_000

/** One attempt, as far as the money goes. */
export interface AttemptMoney {
  status: PayoutAttemptStatus
  amount: number
  amountReversed: number
  /** The part of `amountReversed` the platform took back to recover what the provider owed: not owed again. */
  amountRecovered?: number
}

/** The idempotency key of one attempt of a transfer: the same for every resend of that attempt, never reused. */
export const attemptKeyOf = (tenantId: string, transferId: string, attempt: number) =>
  `transfer:${tenantId}:${transferId}:${attempt}`

/**
 * What the transfer has settled: Σ paid attempts − Σ taken back to be owed again. A recovery (money the provider owed,
 * taken back by the platform) leaves the transfer settled: the provider paid it back, nothing is sent again.
 */
export const paidOf = (attempts: readonly AttemptMoney[]): number =>
  attempts.reduce(
    (sum, a) => sum + (a.status === 'PAID' ? a.amount : 0) - (a.amountReversed - (a.amountRecovered ?? 0)),
    0
  )

/**
 * What a transfer owes the provider in all: its amount less what an operator's retry carried back to their payable
 * balance (the part below the processor's transferable unit, paid by their next settlement instead).
 */
export const dueOf = (transfer: { amount: number; amountCarried: number }): number =>
  transfer.amount - transfer.amountCarried

/** What is still owed on a transfer that owes `amount` in all ({@link dueOf}): what a retry sends. */
export const owedOf = (amount: number, attempts: readonly AttemptMoney[]): number => amount - paidOf(attempts)

/**
 * The status a transfer shows once its attempts say how much arrived: PAID when nothing is owed, PARTIALLY_REVERSED
 * when the provider still holds part of it, REVERSED when everything paid was taken back.
 */
export function settledStatusOf(amount: number, attempts: readonly AttemptMoney[]): PayoutTransferStatus {
  if (owedOf(amount, attempts) <= 0) return 'PAID'
  return paidOf(attempts) > 0 ? 'PARTIALLY_REVERSED' : 'REVERSED'
}

/** Whether an attempt first sent at `firstSentAt` may have outlived its idempotency key at `now`. */
export const outlivedKey = (firstSentAt: Date | null, now: Date): boolean =>
  firstSentAt !== null && now.getTime() - firstSentAt.getTime() > IDEMPOTENCY_WINDOW_MS
