/**
 * @module Card payments at Stripe: payment intents (created, cancelled) and refunds (created, read back, found by our
 * id), and a dispute read back. Card data never reaches the platform: the payer confirms the PaymentIntent in
 * Stripe's own UI (Stripe.js, Payment Element, mobile SDKs) with the client secret we hand back, which keeps a centre
 * in PCI DSS SAQ A scope. What we learn of the outcome comes from Stripe's signed webhooks (stripe-webhooks.ts).
 *
 * Every object we create carries `tenant_id` and our record's id in its metadata (stripe-objects.ts).
 */
import Stripe from 'stripe'
import {
  ProcessorLimitError,
  ProcessorRefusedError,
  type IntentCancellation,
  type OnlinePaymentProcessor,
  type ProcessorLimit,
} from '../../domain/payments/online-processor.ts'
import { stripeAmountOf, toStripeAmount } from './stripe-currencies.ts'
import {
  currencyOf,
  disputeOf,
  metadataOf,
  ours,
  chargeCostOf,
  refundHeldOf,
  WITH_PROCESSING_FEE,
} from './stripe-objects.ts'

/** What of the online-payment seam these calls fill (the rest is the processor's name, mode and webhooks). */
export type StripePayments = Omit<OnlinePaymentProcessor, 'name' | 'livemode' | 'parseWebhook'>

/** Stripe's answer to cancelling an intent that is already past cancelling. */
const isUnexpectedState = (error: unknown) =>
  error instanceof Stripe.errors.StripeInvalidRequestError && error.code === 'payment_intent_unexpected_state'

/**
 * A succeeded intent's amount and currency, read as its webhook's are (stripe-events.ts), so the domain checks them
 * against our payment the same way on either path.
 */
const succeededOf = (intent: Stripe.PaymentIntent): IntentCancellation => ({
  status: 'succeeded',
  amount: ours(intent.amount, intent.currency),
  currency: currencyOf(intent.currency),
  charge: chargeCostOf(intent),
})

/**
 * Stripe's refusal of a request for its amount or currency under Stripe's own limits (issue 58): its minimum and
 * maximum amounts (`amount_too_small`, `amount_too_large`), or a currency it does not take for this account (any
 * refusal naming the `currency` parameter). Undefined for anything else.
 */
function limitOf(error: unknown): ProcessorLimit | undefined {
  if (!(error instanceof Stripe.errors.StripeInvalidRequestError)) return undefined
  if (error.code === 'amount_too_small' || error.code === 'amount_too_large') return error.code
  if (error.param === 'currency') return 'currency_not_supported'
  return undefined
}

/** Payment intents and refunds over `stripe`. */
export function stripePayments(stripe: Stripe): StripePayments {
  return {
    async createPaymentIntent(input) {
      let intent: Stripe.PaymentIntent
      try {
        intent = await stripe.paymentIntents.create(
          {
            amount: stripeAmountOf(input.amount, input.currency),
            currency: input.currency.toLowerCase(),
            automatic_payment_methods: { enabled: true },
            metadata: { tenant_id: input.tenantId, payment_id: input.paymentId, order_id: input.orderId },
          },
          { idempotencyKey: input.idempotencyKey }
        )
      } catch (error) {
        // Stripe's limits are the caller's to fix; anything else (unreachable, its 5xx) is thrown to be retried.
        const limit = limitOf(error)
        if (limit) throw new ProcessorLimitError(limit, (error as Error).message)
        throw error
      }
      if (!intent.client_secret) throw new Error(`Stripe returned PaymentIntent ${intent.id} without a client secret`)
      return { id: intent.id, clientSecret: intent.client_secret }
    },
    async cancelPaymentIntent({ intentId, idempotencyKey }) {
      try {
        const intent = await stripe.paymentIntents.cancel(
          intentId,
          { cancellation_reason: 'abandoned', expand: WITH_PROCESSING_FEE },
          { idempotencyKey }
        )
        return intent.status === 'succeeded' ? succeededOf(intent) : { status: 'canceled' }
      } catch (error) {
        if (!isUnexpectedState(error)) throw error
        // Already succeeded (the payer finished just before), or already cancelled: Stripe's own word on which.
        const intent = await stripe.paymentIntents.retrieve(intentId, { expand: WITH_PROCESSING_FEE })
        if (intent.status === 'succeeded') return succeededOf(intent)
        if (intent.status === 'canceled') return { status: 'canceled' }
        throw error
      }
    },
    unchargeable(amount, currency) {
      const sent = toStripeAmount(amount, currency)
      return 'refused' in sent ? sent.refused : undefined
    },
    async createRefund(input) {
      const sent = toStripeAmount(input.amount, input.currency)
      if ('refused' in sent) throw new ProcessorRefusedError(sent.refused)
      let refund: Stripe.Refund
      try {
        refund = await stripe.refunds.create(
          {
            payment_intent: input.intentId,
            amount: sent.amount,
            metadata: { tenant_id: input.tenantId, payment_id: input.paymentId, refund_id: input.refundId },
          },
          { idempotencyKey: input.idempotencyKey }
        )
      } catch (error) {
        // Stripe's own refusal (already refunded, amount above what is left, its limits): final. Anything else is
        // retried.
        const limit = limitOf(error)
        if (limit) throw new ProcessorLimitError(limit, (error as Error).message)
        if (error instanceof Stripe.errors.StripeInvalidRequestError) throw new ProcessorRefusedError(error.message)
        throw error
      }
      return refundHeldOf(refund)
    },
    async retrieveRefund(processorRefundId) {
      return refundHeldOf(await stripe.refunds.retrieve(processorRefundId, { expand: ['balance_transaction'] }))
    },
    async findRefund({ intentId, refundId }) {
      // Every refund of the intent, ours told apart by the id we put in its metadata.
      const refunds = stripe.refunds.list({
        payment_intent: intentId,
        limit: 100,
        expand: ['data.balance_transaction'],
      })
      for await (const refund of refunds) {
        if (metadataOf(refund).refund_id === refundId) return refundHeldOf(refund)
      }
      return undefined
    },
    async intentCharge(intentId) {
      return chargeCostOf(await stripe.paymentIntents.retrieve(intentId, { expand: WITH_PROCESSING_FEE }))
    },
    async retrieveDispute(disputeId) {
      return disputeOf(await stripe.disputes.retrieve(disputeId))
    },
  }
}
