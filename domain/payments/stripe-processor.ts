/**
 * @module The Stripe adapter behind the online-payment seam (payment-processor.ts; docs/payments.md, "Online
 * payments"), on Stripe's official `stripe` package. Card data never reaches the platform: the payer confirms the
 * PaymentIntent in Stripe's own UI (Stripe.js, Payment Element, mobile SDKs) with the client secret we hand back,
 * which keeps a centre in PCI DSS SAQ A scope. What we learn of the outcome comes from Stripe's signed webhooks.
 *
 * Every object we create carries `tenant_id` and our record's id in its metadata, which is how a webhook (which
 * carries no credential of ours) finds the one tenant and record it is about.
 */
import Stripe from 'stripe'
import type {
  OnlineProcessorEvent,
  OnlinePaymentProcessor,
  PaymentFailureCode,
  PayoutProcessor,
  ProcessorEventSubject,
} from './payment-processor.ts'
import { PayoutRefusedError, ProcessorSignatureError } from './payment-processor.ts'

export interface StripeSettings {
  secretKey: string
  webhookSecret: string
  /** Stripe's API origin; unset for Stripe itself (stripe-mock's in the tests). */
  apiBase?: string
  /** A signature older than this is refused (Stripe's own default: 5 minutes). */
  toleranceSeconds?: number
}

/** Longest one Stripe call may take; Stripe's library repeats a failed call twice, with the same idempotency key. */
const CALL_TIMEOUT_MS = 10_000

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

/** Our tenant and payment, from an object's metadata; undefined for an object we did not create. */
function subjectOf(metadata: Stripe.Metadata | null | undefined): ProcessorEventSubject | undefined {
  const tenantId = metadata?.tenant_id
  const paymentId = metadata?.payment_id
  return tenantId && paymentId ? { tenantId, paymentId } : undefined
}

/** An object's metadata; Stripe's types disagree across versions on whether an account always has one. */
const metadataOf = (object: { metadata?: Stripe.Metadata | null }): Stripe.Metadata => object.metadata ?? {}

/** Maps a verified Stripe event to what the platform acts on. */
export function toProcessorEvent(event: Stripe.Event): OnlineProcessorEvent {
  const ignored = { kind: 'ignored' as const, eventId: event.id, type: event.type }
  switch (event.type) {
    case 'payment_intent.succeeded':
    case 'payment_intent.payment_failed': {
      const intent = event.data.object
      const subject = subjectOf(intent.metadata)
      if (!subject) return ignored
      if (event.type === 'payment_intent.succeeded') {
        return { kind: 'payment.succeeded', eventId: event.id, intentId: intent.id, ...subject }
      }
      return {
        kind: 'payment.failed',
        eventId: event.id,
        intentId: intent.id,
        failureCode: failureCodeOf(intent.last_payment_error),
        failureMessage: intent.last_payment_error?.message?.slice(0, 500) ?? null,
        ...subject,
      }
    }
    case 'account.updated': {
      const account = event.data.object
      const { tenant_id: tenantId, provider_id: providerId } = metadataOf(account)
      if (!tenantId || !providerId) return ignored
      return {
        kind: 'account.updated',
        eventId: event.id,
        tenantId,
        providerId,
        accountId: account.id,
        payoutsEnabled: account.payouts_enabled === true,
      }
    }
    case 'transfer.reversed': {
      const transfer = event.data.object
      const { tenant_id: tenantId, transfer_id: transferId } = metadataOf(transfer)
      if (!tenantId || !transferId) return ignored
      return { kind: 'transfer.reversed', eventId: event.id, tenantId, transferId, processorReference: transfer.id }
    }
    case 'refund.created':
    case 'refund.updated':
    case 'refund.failed': {
      const refund = event.data.object
      const subject = subjectOf(refund.metadata)
      const refundId = refund.metadata?.refund_id
      if (!subject || !refundId) return ignored
      if (refund.status === 'succeeded') return { kind: 'refund.succeeded', eventId: event.id, refundId, ...subject }
      if (refund.status === 'failed' || refund.status === 'canceled') {
        return { kind: 'refund.failed', eventId: event.id, refundId, ...subject }
      }
      return ignored
    }
    default:
      return ignored
  }
}

/** Stripe's client, pointed at `apiBase` when one is given. */
export function stripeClient(settings: Pick<StripeSettings, 'secretKey' | 'apiBase'>): Stripe {
  const base = settings.apiBase ? new URL(settings.apiBase) : undefined
  return new Stripe(settings.secretKey, {
    maxNetworkRetries: 2,
    timeout: CALL_TIMEOUT_MS,
    appInfo: { name: 'therapy-care-platform' },
    ...(base
      ? {
          host: base.hostname,
          port: Number(base.port || (base.protocol === 'https:' ? 443 : 80)),
          protocol: base.protocol === 'https:' ? ('https' as const) : ('http' as const),
        }
      : {}),
  })
}

/** The Stripe processor: online payments, and marketplace payouts through Connect. */
export function stripeProcessor(settings: StripeSettings): OnlinePaymentProcessor & PayoutProcessor {
  const stripe = stripeClient(settings)
  return {
    name: 'stripe',
    async createConnectedAccount({ tenantId, providerId, idempotencyKey }) {
      // Express: Stripe hosts onboarding and the provider's dashboard; the platform only transfers to it.
      const account = await stripe.accounts.create(
        {
          type: 'express',
          capabilities: { transfers: { requested: true } },
          metadata: { tenant_id: tenantId, provider_id: providerId },
        },
        { idempotencyKey }
      )
      return { accountId: account.id }
    },
    async createOnboardingLink({ accountId, refreshUrl, returnUrl }) {
      const link = await stripe.accountLinks.create({
        account: accountId,
        refresh_url: refreshUrl,
        return_url: returnUrl,
        type: 'account_onboarding',
      })
      return { url: link.url, expiresAt: new Date(link.expires_at * 1000) }
    },
    async createTransfer(input) {
      try {
        const transfer = await stripe.transfers.create(
          {
            amount: input.amount,
            currency: input.currency.toLowerCase(),
            destination: input.accountId,
            transfer_group: input.settlementId,
            metadata: { tenant_id: input.tenantId, transfer_id: input.transferId, provider_id: input.providerId },
          },
          { idempotencyKey: input.idempotencyKey }
        )
        return { id: transfer.id }
      } catch (error) {
        // Stripe's own refusal of this request (balance too low, account cannot receive): the same request would be
        // refused again. Connection errors, rate limits and Stripe's 5xx are thrown as they are, to be retried.
        if (
          error instanceof Stripe.errors.StripeInvalidRequestError ||
          error instanceof Stripe.errors.StripePermissionError
        ) {
          throw new PayoutRefusedError(error.message)
        }
        throw error
      }
    },
    async createPaymentIntent(input) {
      const intent = await stripe.paymentIntents.create(
        {
          amount: input.amount,
          currency: input.currency.toLowerCase(),
          automatic_payment_methods: { enabled: true },
          metadata: { tenant_id: input.tenantId, payment_id: input.paymentId, order_id: input.orderId },
        },
        { idempotencyKey: input.idempotencyKey }
      )
      if (!intent.client_secret) throw new Error(`Stripe returned PaymentIntent ${intent.id} without a client secret`)
      return { id: intent.id, clientSecret: intent.client_secret }
    },
    async createRefund(input) {
      const refund = await stripe.refunds.create(
        {
          payment_intent: input.intentId,
          amount: input.amount,
          metadata: { tenant_id: input.tenantId, payment_id: input.paymentId, refund_id: input.refundId },
        },
        { idempotencyKey: input.idempotencyKey }
      )
      const status =
        refund.status === 'succeeded'
          ? 'SUCCEEDED'
          : refund.status === 'failed' || refund.status === 'canceled'
            ? 'FAILED'
            : 'PENDING'
      return { id: refund.id, status }
    },
    parseWebhook(rawBody, signature) {
      let event: Stripe.Event
      try {
        event = stripe.webhooks.constructEvent(
          rawBody,
          signature ?? '',
          settings.webhookSecret,
          settings.toleranceSeconds
        )
      } catch (error) {
        throw new ProcessorSignatureError(error instanceof Error ? error.message : String(error))
      }
      return toProcessorEvent(event)
    },
  }
}
