/**
 * @module The Stripe adapter behind the online-payment and payout seams (domain/payments/online-processor.ts,
 * domain/payouts/payout-processor.ts; docs/payments.md, "Online payments"), on Stripe's official `stripe` package:
 * card payments and refunds (stripe-payments.ts), marketplace payouts through Connect (stripe-connect.ts) and
 * Stripe's signed webhooks (stripe-webhooks.ts), over one client (stripe-client.ts).
 */
import type { OnlinePaymentProcessor } from '../../domain/payments/online-processor.ts'
import type { PayoutProcessor } from '../../domain/payouts/payout-processor.ts'
import { stripeClient, type StripeSettings } from './stripe-client.ts'
import { stripeConnect } from './stripe-connect.ts'
import { stripePayments } from './stripe-payments.ts'
import { stripeWebhookParser } from './stripe-webhooks.ts'

/** The Stripe processor: online payments, and marketplace payouts through Connect. */
export function stripeProcessor(settings: StripeSettings): OnlinePaymentProcessor & PayoutProcessor {
  const stripe = stripeClient(settings)
  return {
    name: 'stripe',
    livemode: settings.secretKey.startsWith('sk_live_') || settings.secretKey.startsWith('rk_live_'),
    ...stripePayments(stripe),
    ...stripeConnect(stripe),
    parseWebhook: stripeWebhookParser(stripe, settings),
  }
}
