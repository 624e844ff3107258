/**
 * @module The writable fields of a webhook endpoint, one schema for create and PATCH (a patched endpoint must be one
 * a create would accept). The URL's network rules need DNS and live in endpoint-url.ts.
 */
import { z } from '@hono/zod-openapi'
import { ALL_SUBSCRIBABLE_EVENT_TYPES } from '../events/event-catalogue.ts'
import { ALL_EVENTS } from './subscriptions.ts'
import { MAX_URL_LENGTH } from './endpoint-url.ts'

const EVENT_CHOICES = [ALL_EVENTS, ...ALL_SUBSCRIBABLE_EVENT_TYPES] as [string, ...string[]]

export const EndpointFieldsSchema = z
  .object({
    url: z.string().min(1).max(MAX_URL_LENGTH).openapi({
      description:
        'Where deliveries are POSTed. https:// outside development; public addresses only unless the operator allows private ones.',
      example: 'https://example.org/webhooks/therapy-care',
    }),
    events: z
      .array(z.enum(EVENT_CHOICES))
      .min(1)
      .max(EVENT_CHOICES.length)
      .refine((types) => new Set(types).size === types.length, {
        params: { code: 'duplicate' },
        message: 'List each event type once.',
      })
      .refine((types) => !types.includes(ALL_EVENTS) || types.length === 1, {
        params: { code: 'wildcard_not_alone' },
        message: '"*" subscribes to every event type; use it alone.',
      })
      .openapi({
        description: 'Event types to receive, or ["*"] for all (including future ones).',
        example: ['booking.created'],
      }),
    description: z.string().trim().max(500).optional().openapi({ example: 'Front-desk system' }),
    signingScheme: z.enum(['v1', 'v2']).default('v1').openapi({
      description:
        '`v1`: X-Service-Signature (Stripe construction). `v2`: Standard Webhooks headers. See docs/webhooks.md.',
    }),
    asymmetricSigning: z.boolean().default(false).openapi({
      description:
        "v2 only: also sign with an Ed25519 key (`v1a,` signatures); verify with the endpoint's `publicKey`.",
    }),
    enabled: z.boolean().default(true).openapi({ description: 'Disabled endpoints receive nothing.' }),
  })
  .refine((fields) => !fields.asymmetricSigning || fields.signingScheme === 'v2', {
    path: ['asymmetricSigning'],
    params: { code: 'requires_v2' },
    message: 'Asymmetric signatures exist only in the v2 scheme.',
  })

export type EndpointFields = z.output<typeof EndpointFieldsSchema>
export type EndpointFieldsInput = z.input<typeof EndpointFieldsSchema>
