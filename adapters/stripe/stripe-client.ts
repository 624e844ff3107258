/**
 * @module Stripe's client, on Stripe's official `stripe` package, and the settings a deployment gives the Stripe adapter
 * (`STRIPE_*`, infra/config.ts; read by adapters/online-processors.ts).
 */
import Stripe from 'stripe'

export interface StripeSettings {
  secretKey: string
  /**
   * The signing secrets of the platform account's webhook endpoint: several during a rotation (Stripe signs with
   * each of an endpoint's secrets while both are valid), comma-separated in the configuration.
   */
  webhookSecret: string | readonly string[]
  /** The signing secrets of the Connect endpoint (connected accounts' events); unset: that endpoint refuses all. */
  connectWebhookSecret?: string | readonly string[]
  /** Stripe's API origin; unset for Stripe itself (stripe-mock's in the tests). */
  apiBase?: string
  /** A signature older than this is refused (Stripe's own default: 5 minutes). */
  toleranceSeconds?: number
}

/** Longest one Stripe call may take; Stripe's library repeats a failed call twice, with the same idempotency key. */
const CALL_TIMEOUT_MS = 10_000

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
