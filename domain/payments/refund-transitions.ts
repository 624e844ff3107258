/**
 * @module The refund state machine (docs/payments.md, "Refunds"), pure so its rules are tested on their own
 * (test/unit/domain/refund-transitions.test.ts).
 *
 *   PENDING ──succeeded──► SUCCEEDED ──failed later──► FAILED
 *      └────────failed──────────────────────────────────┘ │
 *                              ▲──────── succeeded ───────┘ (the processor's later word: it did pay)
 *
 * Only SUCCEEDED counts as money refunded. So every transition moves a payment's and an order's `amountRefunded`
 * by exactly {@link refundedDelta}: +amount into SUCCEEDED, −amount out of it, nothing otherwise. A PENDING refund
 * holds its amount against what is still refundable ({@link refundableOf}), so refunds in flight can never together
 * exceed the payment.
 */
import type { PaymentDisputeStatus, RefundStatus } from '../../generated/prisma/enums.ts'

/** How much a refund of `amount` moving from `from` (null: a new refund) to `to` changes the refunded amounts. */
export function refundedDelta(from: RefundStatus | null, to: RefundStatus, amount: number): number {
  const counted = (status: RefundStatus | null) => (status === 'SUCCEEDED' ? amount : 0)
  return counted(to) - counted(from)
}

/**
 * A refund's next status when the processor (or our own give-up) reports `reported`, or undefined when the report
 * changes nothing. A report of PENDING never moves a refund: the processor's pending is where every refund starts,
 * and a stale answer must not undo a settled one. Between SUCCEEDED and FAILED the later report wins (the caller
 * applies processor events in the order the processor created them).
 */
export function nextRefundStatus(current: RefundStatus, reported: RefundStatus): RefundStatus | undefined {
  if (reported === 'PENDING' || current === reported) return undefined
  return reported
}

/**
 * What is left to refund of a payment: its amount less what succeeded, what pending refunds hold, and what the payer's
 * bank took or holds (a lost dispute's loss; an open chargeback's amount, its funds withdrawn). The processor refuses
 * to refund a charged-back charge (Stripe: `charge_disputed`), and a refund of that money counted as well as the loss
 * would give the payer back what the bank already took (issue 58).
 */
export function refundableOf(payment: {
  amount: number
  amountRefunded: number
  refunds: ReadonlyArray<{ status: RefundStatus; amount: number }>
  disputes: ReadonlyArray<{
    status: PaymentDisputeStatus
    amount: number
    amountLost: number
    fundsWithdrawnAt: Date | null
  }>
}): number {
  const pending = payment.refunds.filter((r) => r.status === 'PENDING').reduce((sum, r) => sum + r.amount, 0)
  const withBank = payment.disputes.reduce(
    (sum, d) => sum + (d.status === 'LOST' ? d.amountLost : d.status === 'OPEN' && d.fundsWithdrawnAt ? d.amount : 0),
    0
  )
  return Math.max(payment.amount - payment.amountRefunded - pending - withBank, 0)
}
