/**
 * @module Payment processors: who moves the money (docs/payments.md).
 *
 * The platform ships one processor, `recorded`: payments the centre took itself (cash at the desk, a card terminal,
 * a bank transfer, an insurer's remittance, a cheque) and records through the API. It moves no money; it
 * accepts what the centre reports, including a failure (a declined card), so the order and the books match the till.
 *
 * Online card payments go through an external processor, behind {@link OnlinePaymentProcessor}: Stripe
 * (adapters/stripe/), selected by `ONLINE_PAYMENT_PROCESSOR=stripe` (infra/config.ts; `none` by default). It is
 * two-phase because a network call must never run inside the database transaction that holds the order's lock:
 * create an intent (payment PENDING; online-payment-service.ts), then apply the processor's signed confirmation (a
 * webhook) in a new unit of work that locks the order and moves the payment to SUCCEEDED or FAILED
 * (processor-events.ts).
 */
import type { PaymentMethod } from '../../generated/prisma/enums.ts'

/** The ways a centre takes money itself. */
export const RECORDED_METHODS = [
  'CASH',
  'CARD_TERMINAL',
  'BANK_TRANSFER',
  'INSURER_REMITTANCE',
  'CHEQUE',
] as const satisfies readonly PaymentMethod[]

/** Why a payment failed (stable codes, documented in docs/payments.md). */
export const PAYMENT_FAILURE_CODES = [
  'CARD_DECLINED',
  'INSUFFICIENT_FUNDS',
  'EXPIRED_CARD',
  'TERMINAL_ERROR',
  'PAYMENT_REJECTED',
  'OTHER',
] as const

export type PaymentFailureCode = (typeof PAYMENT_FAILURE_CODES)[number]

export interface CollectRequest {
  paymentId: string
  orderId: string
  /** Integer minor units of `currency`. */
  amount: number
  currency: string
  method: PaymentMethod
  /** The centre's own reference (receipt, slip, cheque or remittance-advice number). */
  reference?: string
  /** For recorded payments: the failure the centre reports (a declined card), if the attempt failed. */
  reportedFailure?: { code: PaymentFailureCode; message?: string }
}

export type CollectOutcome =
  | { status: 'SUCCEEDED'; processorReference: string | null }
  | {
      status: 'FAILED'
      processorReference: string | null
      failureCode: PaymentFailureCode
      failureMessage: string | null
    }

export interface RefundRequest {
  refundId: string
  paymentId: string
  amount: number
  currency: string
  /** The processor's reference of the payment being refunded. */
  processorReference: string | null
}

export interface RefundOutcome {
  status: 'SUCCEEDED'
  processorReference: string | null
}

/** A processor that settles synchronously, inside the caller's unit of work (so: no network calls). */
export interface PaymentProcessor {
  /** Stored on each payment as `processor`. */
  readonly name: string
  /** Whether this processor takes payments by `method`. */
  handles(method: PaymentMethod): boolean
  collect(request: CollectRequest): Promise<CollectOutcome>
  refund(request: RefundRequest): Promise<RefundOutcome>
}

/**
 * Payments recorded by the centre. The money already changed hands (or failed to) at the desk, so the outcome is what
 * the centre reports: succeeded, or failed with a code. A recorded refund is money the centre handed back.
 */
export const recordedPaymentProcessor: PaymentProcessor = {
  name: 'recorded',
  handles: (method) => (RECORDED_METHODS as readonly string[]).includes(method),
  async collect(request) {
    if (request.reportedFailure) {
      return {
        status: 'FAILED',
        processorReference: null,
        failureCode: request.reportedFailure.code,
        failureMessage: request.reportedFailure.message ?? null,
      }
    }
    return { status: 'SUCCEEDED', processorReference: null }
  },
  async refund() {
    return { status: 'SUCCEEDED', processorReference: null }
  },
}

/** An online processor's payment intent, as the seam sees it. */
export interface PaymentIntent {
  /** The processor's id, stored as the payment's `processorReference`. */
  id: string
  /** Handed to the payer's browser or app to complete the payment with the processor directly. */
  clientSecret: string
}

/** Whose payment or refund a processor's event is about: what we put in the processor's metadata. */
export interface ProcessorEventSubject {
  tenantId: string
  paymentId: string
}

/**
 * A dispute (chargeback) as the processor holds it. `WON` also when it was lost and the processor gave the funds back
 * (reinstated); `CLOSED` for an inquiry closed without a chargeback, or a dispute closed by a refund of the charge.
 */
export interface ProcessorDispute {
  disputeId: string
  intentId: string | null
  amount: number
  currency: string
  status: 'OPEN' | 'WON' | 'LOST' | 'CLOSED'
  /** The processor's dispute fee, net of any fee it gave back, in minor units of `currency`: the centre's cost. */
  fee: number
}

/** A processor's signed notification that an intent or a refund settled, mapped to what the platform acts on. */
export type OnlineProcessorEvent =
  | ({
      kind: 'payment.succeeded'
      eventId: string
      intentId: string
      /** What the processor received, in minor units of `currency` (checked against our payment). */
      amount: number
      currency: string
    } & ProcessorEventSubject)
  | ({
      kind: 'payment.failed'
      eventId: string
      intentId: string
      amount: number
      currency: string
      failureCode: PaymentFailureCode
      failureMessage: string | null
    } & ProcessorEventSubject)
  /** The intent was cancelled at the processor (by us, by the processor, or in its dashboard): it can no longer pay. */
  | ({ kind: 'payment.canceled'; eventId: string; intentId: string } & ProcessorEventSubject)
  /**
   * A refund's state at the processor: one of ours (its id in the metadata), or one made in the processor's dashboard
   * (no id of ours: recorded as a refund of the payment its intent paid).
   */
  | {
      kind: 'refund.updated'
      eventId: string
      /** Ours, from the metadata; absent for a refund made at the processor directly. */
      subject?: ProcessorEventSubject & { refundId: string }
      processorRefundId: string
      intentId: string | null
      amount: number
      currency: string
      status: 'PENDING' | 'SUCCEEDED' | 'FAILED'
      failureMessage: string | null
    }
  /** A dispute (chargeback) of a payment opened, changed or closed. */
  | ({ kind: 'dispute.updated'; eventId: string } & ProcessorDispute)
  /** A provider's connected account changed: whether it can receive payouts now. */
  | {
      kind: 'account.updated'
      eventId: string
      tenantId: string
      providerId: string
      accountId: string
      payoutsEnabled: boolean
    }
  /**
   * A payout from a provider's connected account to their bank failed (Stripe's `payout.failed`): the money went back
   * to the account's balance, and the provider has not received it.
   */
  | {
      kind: 'payout.failed'
      eventId: string
      accountId: string
      payoutId: string
      amount: number
      currency: string
      failureCode: string | null
      failureMessage: string | null
    }
  /** A payout transfer the processor took back, in part or whole. */
  | {
      kind: 'transfer.reversed'
      eventId: string
      tenantId: string
      transferId: string
      processorReference: string
      /** Everything taken back of this processor transfer so far (cumulative: Stripe's `amount_reversed`). */
      amountReversed: number
      /**
       * The part of it the platform took back to recover what the provider owed (cumulative: its reversals whose
       * metadata says `purpose: recovery`): a recovery, not money owed to the provider again.
       */
      amountRecovered: number
    }
  /** Signed and genuine, but nothing the platform acts on (another event type, or not one of our objects). */
  | { kind: 'ignored'; eventId: string; type: string }

/**
 * Marketplace payouts through the processor (Stripe Connect): a connected account per provider, onboarded on the
 * processor's own pages, and a transfer per provider settlement (docs/marketplace.md, "Payouts").
 */
export interface PayoutProcessor {
  readonly name: string
  createConnectedAccount(input: { tenantId: string; providerId: string; idempotencyKey: string }): Promise<{
    accountId: string
  }>
  /** A connected account as the processor holds it now (asked when two of its events cannot be ordered). */
  retrieveAccount(accountId: string): Promise<{ payoutsEnabled: boolean }>
  /** A one-time link to the processor's onboarding pages for the account (it expires within minutes). */
  createOnboardingLink(input: { accountId: string; refreshUrl: string; returnUrl: string }): Promise<{
    url: string
    expiresAt: Date
  }>
  /**
   * @throws PayoutRefusedError when the processor refuses the transfer itself (retrying the same request cannot help)
   */
  createTransfer(input: {
    tenantId: string
    transferId: string
    /** Which attempt of the transfer this is (in the processor's metadata, for {@link PayoutProcessor.findTransfer}). */
    attempt: number
    settlementId: string
    providerId: string
    accountId: string
    amount: number
    currency: string
    idempotencyKey: string
  }): Promise<{ id: string }>
  /**
   * The processor's transfer made for one attempt of ours, if any: asked before an attempt is sent again after the
   * processor may have forgotten its idempotency key (24 hours), so that a transfer it made is never made twice.
   */
  findTransfer(input: {
    transferId: string
    attempt: number
    settlementId: string
  }): Promise<{ id: string; amount: number; amountReversed: number } | undefined>
}

/** A transfer the processor refused (no funds, account unable to receive): final for this attempt. */
export class PayoutRefusedError extends Error {}

/** The processor refused a request itself (a refund of a charge already refunded): the same request would be refused again. */
export class ProcessorRefusedError extends Error {}

/** A webhook whose signature did not verify (or is too old): nothing in it may be applied. */
export class ProcessorSignatureError extends Error {}

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
  }): Promise<{ id: string; status: 'PENDING' | 'SUCCEEDED' | 'FAILED'; failureMessage: string | null }>
  /**
   * Why the processor cannot charge or refund `amount` (ISO minor units of `currency`) under its own currency rules,
   * or undefined when it can: asked before anything is recorded, so the caller is answered 400.
   */
  unchargeable(amount: number, currency: string): string | undefined
  /**
   * The refund the processor made for our refund `refundId` of the intent, if any: asked before a refund is sent
   * again past the processor's idempotency window (Stripe may have forgotten its key, and would refund again).
   */
  findRefund(input: {
    intentId: string
    refundId: string
  }): Promise<{ id: string; status: 'PENDING' | 'SUCCEEDED' | 'FAILED'; failureMessage: string | null } | undefined>
  /** A dispute as the processor holds it now (asked when an event's word about it is in doubt). */
  retrieveDispute(disputeId: string): Promise<ProcessorDispute>
  /** A refund as the processor holds it now (asked when an event's word about it is in doubt). */
  retrieveRefund(
    processorRefundId: string
  ): Promise<{ id: string; status: 'PENDING' | 'SUCCEEDED' | 'FAILED'; failureMessage: string | null }>
  /**
   * Cancels an intent the payer has not completed (it expired, or the centre gave it up), so it can no longer pay.
   * @returns `canceled`, or `succeeded` when the processor had already taken the money (the success then counts)
   */
  cancelPaymentIntent(input: { intentId: string; idempotencyKey: string }): Promise<'canceled' | 'succeeded'>
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

/** Our two processor webhook endpoints: the platform account's events, and connected accounts' (Connect). */
export type WebhookEndpointKind = 'platform' | 'connect'

/** What every processor event carries besides what it is about: checked before anything is applied. */
export interface ProcessorEventEnvelope {
  eventId: string
  /** The processor's event type (Stripe: `payment_intent.succeeded`). */
  type: string
  livemode: boolean
  /** The connected account it came from (Connect); null for the platform account's own events. */
  account: string | null
  /** When the processor created the event. */
  occurredAt: Date
  /** The processor's id of the object it is about. */
  objectId: string | null
}

/** A verified webhook: its envelope and what it means to the platform. */
export interface ParsedProcessorEvent {
  envelope: ProcessorEventEnvelope
  event: OnlineProcessorEvent
}

/**
 * The processor that takes payments by `method`. Recorded methods go to the recorded processor; there is no online
 * method until an online processor is configured.
 * @returns undefined when no configured processor handles `method`
 */
export function processorFor(
  method: PaymentMethod,
  processors: readonly PaymentProcessor[]
): PaymentProcessor | undefined {
  return processors.find((p) => p.handles(method))
}
