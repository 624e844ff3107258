/**
 * @module The expiry of an online payment (`payment-expiry-<paymentId>`, common/payments/online-payment-contract.ts):
 * started through the outbox when the payment is, with Temporal's start delay up to its `expiresAt`, so the timer is
 * durable state of the server rather than a sweep's query. At that instant it cancels the intent unless the payer
 * completed it, releasing what the payment held of its order's balance; if the processor had taken the money just
 * before, the success is applied instead. It keeps trying until the processor answers: a hold is never left forever.
 */
import { proxyActivities } from '@temporalio/workflow'
import type {
  OnlinePaymentActivities,
  PaymentExpiryOutcome,
  PaymentExpiryWorkflowInput,
} from '../common/payments/online-payment-contract.ts'

const { expireOnlinePayment } = proxyActivities<OnlinePaymentActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '10 seconds', backoffCoefficient: 2, maximumInterval: '30 minutes' },
})

export async function paymentExpiryWorkflow(input: PaymentExpiryWorkflowInput): Promise<PaymentExpiryOutcome> {
  return expireOnlinePayment(input)
}
