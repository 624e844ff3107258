/**
 * @module The online processor's seam (docs/payments.md, "Online payments"): what the platform asks of an external
 * processor that moves card money (Stripe, adapters/stripe/, selected by `ONLINE_PAYMENT_PROCESSOR=stripe`,
 * infra/config.ts; `none` by default) and the refusals it answers. It is two-phase because a network call must never
 * run inside the database transaction that holds the order's lock: create an intent (payment PENDING;
 * online-payment-service.ts), then apply the processor's signed confirmation (a webhook) in a new unit of work that
 * locks the order and moves the payment to SUCCEEDED or FAILED (processor-events.ts).
 */
import type {
  ChargeCost,
  ParsedProcessorEvent,
  SettledMoney,
  ProcessorDispute,
  WebhookEndpointKind,
} from './online-processor-events.ts'

/** An online processor's payment intent, as the seam sees it. */
export interface PaymentIntent {
  /** The processor's id, stored as the payment's `processorReference`. */
  id: string
  /** Handed to the payer's browser or app to complete the payment with the processor directly. */
  clientSecret: string
}

/**
 * What cancelling an intent found: it is cancelled, or it had already succeeded, with what the processor says it
 * charged (ISO minor units), which must be our payment's for the success to count (intent-outcomes.ts).
 */
export type IntentCancellation =
  | { status: 'canceled' }
  /** `charge`: the processor's cost of it (issue 58), null when it did not say. */
  | { status: 'succeeded'; amount: number; currency: string; charge: ChargeCost | null }

/**
 * A refund as the processor answers for it: its id, its state as ours, why it failed, and what it moved on a balance
 * kept in another currency (issue 58; null: kept as charged, or not said).
 */
export interface ProcessorRefundAnswer {
  id: string
  status: 'PENDING' | 'SUCCEEDED' | 'FAILED'
  failureMessage: string | null
  settled: SettledMoney | null
}

/**
 * An online processor (Stripe). Every call that creates something takes an idempotency key, stored with our record
 * before the call, so a retried request (or a retry after a crash) gets the processor's first answer back instead
 * of a second charge or refund.
 */
export interface OnlinePaymentProcessor {
  readonly name: string
  createPaymentIntent(input: {
    tenantId: string
    paymentId: string
    orderId: string
    amount: number
    currency: string
    idempotencyKey: string
  }): Promise<PaymentIntent>
  /** @throws ProcessorRefusedError when the processor refuses the refund itself (retrying cannot help) */
  createRefund(input: {
    tenantId: string
    paymentId: string
    refundId: string
    intentId: string
    amount: number
    currency: string
    idempotencyKey: string
  }): Promise<ProcessorRefundAnswer>
  /**
   * Why the processor cannot charge or refund `amount` (ISO minor units of `currency`) under its own currency rules,
   * or undefined when it can: asked before anything is recorded, so the caller is answered 400.
   */
  unchargeable(amount: number, currency: string): string | undefined
  /**
   * The refund the processor made for our refund `refundId` of the intent, if any: asked before a refund is sent
   * again past the processor's idempotency window (Stripe may have forgotten its key, and would refund again).
   */
  findRefund(input: { intentId: string; refundId: string }): Promise<ProcessorRefundAnswer | undefined>
  /**
   * The processor's cost of an intent's payment (issue 58): its processing fee in minor units of the payment's
   * currency, and what it moved on a balance kept in another currency. Asked when its success is applied, since the
   * event that says so does not carry it. Null when the processor does not say yet.
   */
  intentCharge(intentId: string): Promise<ChargeCost | null>
  /** A dispute as the processor holds it now (asked when an event's word about it is in doubt). */
  retrieveDispute(disputeId: string): Promise<ProcessorDispute>
  /** A refund as the processor holds it now (asked when an event's word about it is in doubt). */
  retrieveRefund(processorRefundId: string): Promise<ProcessorRefundAnswer>
  /**
   * Cancels an intent the payer has not completed (it expired, or the centre gave it up), so it can no longer pay.
   * @returns `canceled`, or `succeeded` with the intent's amount and currency when the processor had already taken
   *   the money (the success then counts, if they are our payment's)
   */
  cancelPaymentIntent(input: { intentId: string; idempotencyKey: string }): Promise<IntentCancellation>
  /**
   * Verifies a webhook's signature over the raw body and maps it.
   * @param endpoint - which of our endpoints received it: the platform account's events, or connected accounts'
   *   (Stripe signs each endpoint's deliveries with that endpoint's own secret)
   * @throws ProcessorSignatureError when the signature does not verify or is outside the tolerance
   */
  parseWebhook(rawBody: string, signature: string | undefined, endpoint?: WebhookEndpointKind): ParsedProcessorEvent
  /** Whether this processor runs in live mode (Stripe: a live secret key); an event of the other mode is refused. */
  readonly livemode: boolean
}

/** The processor refused a request itself (a refund of a charge already refunded): the same request would be refused again. */
export class ProcessorRefusedError extends Error {}

/** Which of the processor's own limits a request broke (issue 58): its minimum, its maximum, its account's currencies. */
export type ProcessorLimit = 'amount_too_small' | 'amount_too_large' | 'currency_not_supported'

/**
 * The processor refused a request for its amount or currency under its own limits (Stripe: below its minimum charge,
 * above its maximum, a currency not enabled on the account): the caller must change the request, not retry it.
 */
export class ProcessorLimitError extends ProcessorRefusedError {
  // A plain field, not a parameter property: Node runs this code with its types stripped, which cannot emit those.
  readonly limit: ProcessorLimit

  constructor(limit: ProcessorLimit, message: string) {
    super(message)
    this.limit = limit
  }

  /** The request's field the limit is about. */
  get field(): 'amount' | 'currency' {
    return this.limit === 'currency_not_supported' ? 'currency' : 'amount'
  }
}

/** A webhook whose signature did not verify (or is too old): nothing in it may be applied. */
export class ProcessorSignatureError extends Error {}
