/**
 * @module The refund workflow (`refund-<refundId>`, common/payments/online-payment-contract.ts): started through the outbox
 * with the refund's record, it makes sure the processor is asked for the refund with the key stored on it, whatever
 * became of the request that recorded it. The request asks first; this starts after a delay and usually finds the
 * answer recorded. It asks until shortly before the processor forgets the key (24 hours), then gives up: the
 * processor's refunds of the intent are asked, and the one it made (its answer lost) is recorded; only when it made
 * none is the refund FAILED and its hold released (a later word from the processor that it did refund still counts).
 */
import { isCancellation, proxyActivities } from '@temporalio/workflow'
import type {
  OnlinePaymentActivities,
  RefundWorkflowInput,
  RefundWorkflowOutcome,
} from '../common/payments/online-payment-contract.ts'

const { sendRefundToProcessor } = proxyActivities<OnlinePaymentActivities>({
  // One call: Stripe's client tries three times, 10 s each.
  startToCloseTimeout: '1 minute',
  // Within the processor's 24-hour idempotency window, counted from the request's own call.
  scheduleToCloseTimeout: '22 hours',
  // A short outage is bridged within seconds; a long one is asked about every half hour.
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '30 minutes' },
})

const { giveUpRefund } = proxyActivities<OnlinePaymentActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '2 seconds', maximumInterval: '1 minute' },
})

/** Why a refund the processor never answered is FAILED (shown on the refund). */
export const REFUND_GAVE_UP =
  'The payment processor could not be reached for 22 hours; the refund was not made. Refund the payment again.'

export async function refundWorkflow(input: RefundWorkflowInput): Promise<RefundWorkflowOutcome> {
  try {
    await sendRefundToProcessor(input)
    return 'ANSWERED'
  } catch (error) {
    if (isCancellation(error)) throw error
    await giveUpRefund({ ...input, reason: REFUND_GAVE_UP })
    return 'GAVE_UP'
  }
}
