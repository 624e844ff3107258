/**
 * @module What a processor's word does to an online payment, whatever order its events arrive in and however often
 * each is redelivered (processors deliver at least once, in no guaranteed order). Pure, so the rules are tested on
 * their own (test/unit/domain/payments/online-payment-transitions.test.ts). Refunds have their own machine (refund-transitions.ts).
 *
 *   PENDING ──succeeded──► SUCCEEDED (final: the money was taken)
 *     │ ▲ └──failed──► FAILED ──succeeded──► SUCCEEDED   (the payer tried the same intent again)
 *     │ └──────────────┘  │
 *     └───canceled──► CANCELED ◄──canceled──┘  (final: the intent can no longer pay)
 */
import type { PaymentStatus } from '../../generated/prisma/enums.ts'

/** What the processor reports of an intent. */
export type IntentOutcome = 'SUCCEEDED' | 'FAILED' | 'CANCELED'

/**
 * A payment's next status after the processor reports `outcome`, or undefined when the report changes nothing.
 * SUCCEEDED and CANCELED are final: a redelivered success, a late failure of an earlier attempt, or a cancellation
 * after the money was taken change nothing. FAILED is not: the payer may try the same intent again with another
 * card, and its success then counts.
 */
export function nextPaymentStatus(current: PaymentStatus, outcome: IntentOutcome): PaymentStatus | undefined {
  if (current === 'SUCCEEDED' || current === 'CANCELED' || current === outcome) return undefined
  return outcome
}
