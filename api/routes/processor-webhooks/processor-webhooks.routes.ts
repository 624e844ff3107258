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
    outcome: z.enum(['applied', 'unchanged', 'duplicate', 'ignored', 'unknown_record', 'mismatch']).openapi({
      description:
        '`applied`: a payment, refund, dispute, payout account or transfer changed; `unchanged`: a state we already ' +
        'hold, or an event older than the one that set it; `duplicate`: this event id was processed before; ' +
        '`ignored`: an event type or object the platform does not act on; `unknown_record`: it names no record of ours; ' +
        '`mismatch`: its amount, currency, mode (live or test) or account disagrees with our record, so nothing was ' +
        'applied and a reconciliation finding says why.',
    }),
  })
  .openapi('ProcessorWebhookReceipt')

const request = {
  headers: z.object({ 'stripe-signature': z.string().optional() }),
  body: { required: true, content: { 'application/json': { schema: z.object({}).passthrough() } } },
}
const responses = {
  200: { description: 'Received', content: { 'application/json': { schema: ProcessorWebhookReceipt } } },
  ...problemResponses(400, 404, 413, 429, 500),
}
const handling =
  'The body is the event exactly as Stripe sent it; `Stripe-Signature` must verify over it within 5 minutes with ' +
  'one of the secrets, or nothing is applied (400 `invalid_signature`). Each event id is processed once and stored ' +
  'with its outcome; 200 only once that is committed, so Stripe delivers again an event that a crash interrupted. ' +
  'Redeliveries and events out of order change nothing. 404 when the deployment has no Stripe processor.'

export const stripeWebhookRouteDoc = {
  method: 'post' as const,
  path: '/processor-webhooks/stripe',
  tags: ['Payments'],
  summary: "Stripe's webhook: payments, refunds, disputes and payout transfers",
  description:
    'Configure this URL as a Stripe webhook endpoint of the platform account (events `payment_intent.succeeded`, ' +
    '`payment_intent.payment_failed`, `payment_intent.canceled`, `refund.created`, `refund.updated`, ' +
    '`refund.failed`, `charge.refunded`, `charge.dispute.created`, `charge.dispute.updated`, ' +
    '`charge.dispute.closed`, and for marketplace payouts `transfer.reversed`) and its signing secret as ' +
    '`STRIPE_WEBHOOK_SECRET` (comma-separated while a secret is rotated). ' +
    handling,
  request,
  responses,
}

export const stripeConnectWebhookRouteDoc = {
  method: 'post' as const,
  path: '/processor-webhooks/stripe/connect',
  tags: ['Payments'],
  summary: "Stripe's Connect webhook: connected accounts' events",
  description:
    'Configure this URL as a second Stripe webhook endpoint, one that listens to events on connected accounts ' +
    '(`account.updated`: whether a provider can receive payouts), and its signing secret, which Stripe makes for ' +
    'that endpoint alone, as `STRIPE_CONNECT_WEBHOOK_SECRET`. An event must come from the account it is about. ' +
    handling,
  request,
  responses,
}
