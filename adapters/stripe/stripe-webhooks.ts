/**
 * @module Stripe's webhooks received: the signature over the raw body checked with each signing secret of the
 * endpoint that received it (several during a rotation), then the event's envelope (what is checked before anything
 * in it is applied) and what it means to the platform (stripe-events.ts).
 */
import type Stripe from 'stripe'
import type { ParsedProcessorEvent, WebhookEndpointKind } from '../../domain/payments/online-processor-events.ts'
import { ProcessorSignatureError, type OnlinePaymentProcessor } from '../../domain/payments/online-processor.ts'
import type { StripeSettings } from './stripe-client.ts'
import { toProcessorEvent } from './stripe-events.ts'

/** The envelope of a verified Stripe event: what is checked before anything in it is applied. */
function envelopeOf(event: Stripe.Event) {
  const object = event.data.object as { id?: unknown }
  return {
    eventId: event.id,
    type: event.type,
    livemode: event.livemode,
    account: event.account ?? null,
    // Stripe always sends `created`; an event without one is ordered as if it happened on arrival.
    occurredAt: Number.isFinite(event.created) ? new Date(event.created * 1000) : new Date(),
    objectId: typeof object.id === 'string' ? object.id : null,
  }
}

const secretsOf = (value: string | readonly string[] | undefined): readonly string[] =>
  value === undefined ? [] : typeof value === 'string' ? [value] : value

/** The processor's `parseWebhook` over Stripe's library, with the endpoints' secrets of `settings`. */
export function stripeWebhookParser(
  stripe: Stripe,
  settings: Pick<StripeSettings, 'webhookSecret' | 'connectWebhookSecret' | 'toleranceSeconds'>
): OnlinePaymentProcessor['parseWebhook'] {
  const secrets: Record<WebhookEndpointKind, readonly string[]> = {
    platform: secretsOf(settings.webhookSecret),
    connect: secretsOf(settings.connectWebhookSecret),
  }
  return (rawBody, signature, endpoint = 'platform'): ParsedProcessorEvent => {
    // Every secret of the endpoint is tried (a rotation); none configured verifies nothing.
    let lastError: unknown = new Error(`No signing secret is configured for the ${endpoint} endpoint.`)
    for (const secret of secrets[endpoint]) {
      try {
        const event = stripe.webhooks.constructEvent(rawBody, signature ?? '', secret, settings.toleranceSeconds)
        return { envelope: envelopeOf(event), event: toProcessorEvent(event) }
      } catch (error) {
        lastError = error
      }
    }
    throw new ProcessorSignatureError(lastError instanceof Error ? lastError.message : String(lastError))
  }
}
