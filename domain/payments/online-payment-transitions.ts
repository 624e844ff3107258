/**
 * @module What a processor's confirmation does to an online payment or refund, whatever order confirmations arrive
 * in and however often each is redelivered (processors deliver at least once, in no guaranteed order). Pure, so the
 * rules are tested on their own (test/unit/domain/online-payment-transitions.test.ts).
 */
import type { PaymentStatus, RefundStatus } from '../../generated/prisma/enums.ts'

/**
 * A payment's next status after the processor reports `outcome`, or undefined when the report changes nothing.
 * SUCCEEDED is final: a redelivered success, or a failure of an earlier attempt arriving late, is ignored. FAILED is
 * not: the payer may try the same intent again with another card, and its success then counts.
 */
export function nextPaymentStatus(current: PaymentStatus, outcome: 'SUCCEEDED' | 'FAILED'): PaymentStatus | undefined {
  if (current === 'SUCCEEDED') return undefined
  if (current === outcome) return undefined
  return outcome
}

/**
 * A refund's next status after the processor reports `outcome`, or undefined when it changes nothing. FAILED is
 * final (its amount has been given back to the payment); a refund the processor had confirmed can still fail later
 * (the card account was closed), and is then undone.
 */
export function nextRefundStatus(current: RefundStatus, outcome: 'SUCCEEDED' | 'FAILED'): RefundStatus | undefined {
  if (current === 'FAILED' || current === outcome) return undefined
  return outcome
}
