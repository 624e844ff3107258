/**
 * @module The description of POST /processor-webhooks/stripe: where Stripe delivers its events (docs/payments.md,
 * "Online payments"). Not under /v1 and not authenticated: Stripe signs each delivery, and the handler checks the
 * signature over the raw body before anything else.
 */
import { z } from '@hono/zod-openapi'
import { problemResponses } from '../../openapi/routes.ts'

export const ProcessorWebhookReceipt = z
  .object({
    received: z.literal(true),
    outcome: z.enum(['applied', 'unchanged', 'ignored', 'unknown_record']).openapi({
      description:
        '`applied`: a payment, refund, payout account or transfer changed; `unchanged`: a redelivery, or a confirmation overtaken by a later ' +
        'one; `ignored`: an event type or object the platform does not act on; `unknown_record`: it names no ' +
        'record of ours.',
    }),
  })
  .openapi('ProcessorWebhookReceipt')

export const stripeWebhookRouteDoc = {
  method: 'post' as const,
  path: '/processor-webhooks/stripe',
  tags: ['Payments'],
  summary: "Stripe's webhook: payment and refund confirmations",
  description:
    'Configure this URL as a Stripe webhook endpoint (events `payment_intent.succeeded`, ' +
    '`payment_intent.payment_failed`, `refund.created`, `refund.updated`, `refund.failed`, and for marketplace ' +
    'payouts `account.updated` and `transfer.reversed`; Connect events need the endpoint to listen to connected ' +
    'accounts) and its signing secret as ' +
    '`STRIPE_WEBHOOK_SECRET`. The body is the event exactly as Stripe sent it; `Stripe-Signature` must verify over ' +
    'it within 5 minutes, or nothing is applied (400 `invalid_signature`). 200 only once the change is committed, ' +
    'so Stripe delivers again an event that a crash interrupted; redeliveries and events out of order change ' +
    'nothing. 404 when the deployment has no Stripe processor.',
  request: {
    headers: z.object({ 'stripe-signature': z.string().optional() }),
    body: { required: true, content: { 'application/json': { schema: z.object({}).passthrough() } } },
  },
  responses: {
    200: { description: 'Received', content: { 'application/json': { schema: ProcessorWebhookReceipt } } },
    ...problemResponses(400, 404, 413, 429, 500),
  },
}
