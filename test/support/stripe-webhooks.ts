/**
 * @module Delivering a Stripe event to the API as Stripe would: the JSON body, signed with an endpoint's secret by
 * Stripe's own library (`Stripe-Signature`), posted to one of the processor webhook endpoints.
 */
import Stripe from 'stripe'
import type { HttpClient } from './http.ts'

const signer = new Stripe('sk_test_123')

export interface StripeDelivery {
  /** The endpoint's signing secret. */
  secret: string
  /** Unix seconds of the signature (a stale one to test the tolerance); now by default. */
  timestamp?: number
  /** Default: the platform account's endpoint. */
  path?: string
}

/** Posts `event` signed as Stripe signs it; answers the API's response. */
export function deliverStripeEvent(http: HttpClient, event: object, delivery: StripeDelivery) {
  const payload = JSON.stringify(event)
  const header = signer.webhooks.generateTestHeaderString({
    payload,
    secret: delivery.secret,
    timestamp: delivery.timestamp,
  })
  return http.request('POST', delivery.path ?? '/processor-webhooks/stripe', {
    raw: payload,
    headers: { 'Content-Type': 'application/json', 'Stripe-Signature': header },
  })
}
