/**
 * @module The online processor a deployment configured (`ONLINE_PAYMENT_PROCESSOR`, infra/config.ts): Stripe (card
 * payments, and marketplace payouts through Connect), or none, in which case only payments the centre records are
 * taken, CARD_ONLINE is refused as `method_not_available`, and settlements move no money.
 */
import type { Config } from '../../infra/config.ts'
import type { OnlinePaymentProcessor, PayoutProcessor } from './payment-processor.ts'
import { stripeProcessor } from './stripe-processor.ts'

export type OnlineProcessorConfig = Pick<
  Config,
  | 'ONLINE_PAYMENT_PROCESSOR'
  | 'STRIPE_SECRET_KEY'
  | 'STRIPE_WEBHOOK_SECRET'
  | 'STRIPE_CONNECT_WEBHOOK_SECRET'
  | 'STRIPE_API_BASE'
>

/** @returns the configured processor, or undefined for `none` */
export function onlineProcessorFrom(
  config: OnlineProcessorConfig
): (OnlinePaymentProcessor & PayoutProcessor) | undefined {
  switch (config.ONLINE_PAYMENT_PROCESSOR) {
    case 'none':
      return undefined
    case 'stripe':
      // The configuration's own check guarantees both keys with `stripe` (infra/config.ts).
      return stripeProcessor({
        secretKey: config.STRIPE_SECRET_KEY ?? '',
        webhookSecret: config.STRIPE_WEBHOOK_SECRET,
        connectWebhookSecret: config.STRIPE_CONNECT_WEBHOOK_SECRET,
        apiBase: config.STRIPE_API_BASE,
      })
  }
}
