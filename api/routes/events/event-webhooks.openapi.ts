/**
 * @module The OpenAPI 3.1 `webhooks` section: one entry per event type, the envelope around the catalogue's `data`
 * schema (domain/events/event-catalogue.ts, the same schemas `recordEvent` checks), the operation that emits it, and
 * the signature headers of both schemes. Generated once through a registry of its own and merged into the served
 * description by api/openapi/document.ts.
 */
import { OpenAPIHono, z } from '@hono/zod-openapi'
import { EVENT_DATA_SCHEMAS, PLATFORM_EVENT_TYPES, type EventType } from '../../../domain/events/event-catalogue.ts'
import { EVENT_ORIGINS } from '../../../domain/events/event-origins.ts'

const pascal = (type: string) =>
  type
    .split(/[._]/)
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('')

const SIGNATURE_HEADERS = z.object({
  'x-service-signature': z
    .string()
    .optional()
    .openapi({
      description:
        'v1 endpoints: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>" keyed with the secret as issued>`; ' +
        'two `v1=` entries during a secret rotation. Reject timestamps older than 300 seconds.',
      example: 't=1763748000,v1=5257a869e7ecebeda32affa62cdca3fa51cad7e77a0e56ff536d0ce8e108d8bd',
    }),
  'webhook-id': z
    .string()
    .optional()
    .openapi({ description: 'v2 endpoints (Standard Webhooks): the event id, the same on every retry' }),
  'webhook-timestamp': z.string().optional().openapi({ description: 'v2 endpoints: unix seconds of this attempt' }),
  'webhook-signature': z
    .string()
    .optional()
    .openapi({
      description:
        'v2 endpoints: space-separated `v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<raw body>">` entries (key: the ' +
        'base64-decoded `whsec_` secret), one per active secret, plus `v1a,<base64 Ed25519>` for asymmetric endpoints',
    }),
})

function envelopeOf(type: EventType) {
  return z
    .object({
      id: z.string().openapi({ example: 'evt_019a...', description: 'Stable across retries: deduplicate on it' }),
      type: z.literal(type),
      createdAt: z.string().openapi({ format: 'date-time', description: 'UTC, with Z' }),
      data: EVENT_DATA_SCHEMAS[type].openapi(`${pascal(type)}Data`),
    })
    .openapi(`${pascal(type)}Event`)
}

let cached: { webhooks: Record<string, unknown>; schemas: Record<string, unknown> } | undefined

/** The `webhooks` object and the component schemas it refers to (built once). */
export function eventWebhooksSection() {
  if (cached) return cached
  const app = new OpenAPIHono()
  for (const type of Object.keys(EVENT_DATA_SCHEMAS) as EventType[]) {
    const extra = (PLATFORM_EVENT_TYPES as readonly string[]).includes(type) ? ' (platform extra, not in the spec)' : ''
    app.openAPIRegistry.registerWebhook({
      method: 'post',
      path: type,
      tags: ['Events'],
      summary: `${type}${extra}`,
      description:
        `**Emitted by:** ${EVENT_ORIGINS[type]}\n\n` +
        "POSTed to every enabled endpoint subscribed to the type (or to `*`), signed per the endpoint's scheme " +
        '(docs/webhooks.md). Any 2xx within 10 seconds acknowledges it; anything else is retried with exponential ' +
        'backoff and jitter for up to 24 hours; 410 Gone disables the endpoint. At least once, unordered.',
      request: {
        headers: SIGNATURE_HEADERS,
        body: { required: true, content: { 'application/json': { schema: envelopeOf(type) } } },
      },
      responses: {
        200: { description: 'Any 2xx: delivered' },
        410: { description: 'Gone: the platform disables the endpoint and stops delivering' },
      },
    })
  }
  const document = app.getOpenAPI31Document({ openapi: '3.1.0', info: { title: 'webhooks', version: '1' } })
  cached = {
    webhooks: document.webhooks ?? {},
    schemas: document.components?.schemas ?? {},
  }
  return cached
}
