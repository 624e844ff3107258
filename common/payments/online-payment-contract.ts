/**
 * @module The contracts of the online-payment workflows (docs/payments.md), shared by the API and the payment
 * processor's webhook (which start them through the outbox) and the workflows: ids only, never amounts or names.
 *
 * - `refundWorkflow`, one per refund of an online payment (`refund-<refundId>`): makes sure the processor is asked for
 *   the refund with the key we stored, however the request that recorded it ended (a crash, the processor down), and
 *   gives up only when the processor's idempotency window (24 hours) is nearly over.
 * - `paymentExpiryWorkflow`, one per online payment (`payment-expiry-<paymentId>`): started with a start delay up to the
 *   payment's `expiresAt`, when it cancels the intent if the payer never completed it and releases what it held.
 */
export const REFUND_WORKFLOW = 'refundWorkflow'
export const REFUND_KIND = 'refund'
export const refundWorkflowId = (refundId: string) => `refund-${refundId}`

export interface RefundWorkflowInput {
  tenantId: string
  refundId: string
}

/** What a refund's workflow ended with: the processor answered (whatever it said), or it gave up asking. */
export type RefundWorkflowOutcome = 'ANSWERED' | 'GAVE_UP'

export const PAYMENT_EXPIRY_WORKFLOW = 'paymentExpiryWorkflow'
export const PAYMENT_EXPIRY_KIND = 'payment_expiry'
export const paymentExpiryWorkflowId = (paymentId: string) => `payment-expiry-${paymentId}`

export interface PaymentExpiryWorkflowInput {
  tenantId: string
  paymentId: string
}

/**
 * What the expiry found: the payment had settled (nothing to do), or it was cancelled now, or the processor said its
 * intent succeeded for another amount or currency than the payment's (not applied: a finding for an operator).
 */
export type PaymentExpiryOutcome = 'SETTLED' | 'CANCELED' | 'MISMATCH'

/**
 * The online-payment activities (activities/online-payment-activities.ts) as the refund and payment expiry workflows proxy them. The factory declares that it returns this
 * interface, so the compiler checks the two agree. Names, arguments and results are in recorded histories: changing
 * one breaks the replay of runs in flight.
 */
export interface OnlinePaymentActivities {
  /** Asks the processor for a PENDING refund with its stored key (unless answered), and records the answer. */
  sendRefundToProcessor: (input: RefundWorkflowInput) => Promise<void>
  /**
   * Records the refund the processor made for a refund it never answered (its refunds of the intent asked), or marks
   * it FAILED when it made none, releasing its hold.
   */
  giveUpRefund: (input: RefundWorkflowInput & { reason: string }) => Promise<void>
  /** Cancels a payment its payer never completed, or finds that it settled. */
  expireOnlinePayment: (input: PaymentExpiryWorkflowInput) => Promise<PaymentExpiryOutcome>
}
