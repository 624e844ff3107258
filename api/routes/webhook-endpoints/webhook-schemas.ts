/** @module Schemas of webhook endpoints, deliveries and attempts as the API shows them. */
import { z } from '@hono/zod-openapi'
import { EndpointFieldsSchema } from '../../../domain/webhooks/endpoint-fields.ts'
import { DELIVERY_SORTS } from '../../../domain/webhooks/delivery-log.ts'
import { ENDPOINT_SORTS } from '../../../domain/webhooks/endpoint-service.ts'
import { listQuerySchema } from '../../../domain/listing.ts'
import { OffsetDateTime, UtcDateTime } from '../../openapi/schemas.ts'
import { resourceId } from '../../../domain/id-schema.ts'

const fields = EndpointFieldsSchema.shape

export const WebhookEndpointCreate = z
  .strictObject({
    url: fields.url,
    events: fields.events,
    description: fields.description,
    signingScheme: fields.signingScheme,
    asymmetricSigning: fields.asymmetricSigning,
    enabled: fields.enabled,
  })
  .openapi('WebhookEndpointCreate')

export const WebhookEndpointPatch = z
  .strictObject({
    url: fields.url.optional(),
    events: fields.events.optional(),
    description: fields.description.unwrap().nullable().optional(),
    signingScheme: fields.signingScheme.unwrap().optional(),
    asymmetricSigning: fields.asymmetricSigning.unwrap().optional(),
    enabled: fields.enabled.unwrap().optional(),
  })
  .openapi('WebhookEndpointPatch', { description: 'A JSON merge patch (RFC 7396) of the writable fields' })

export const WebhookEndpoint = z
  .object({
    id: resourceId('webhookEndpoint'),
    url: z.string(),
    description: z.string().nullable(),
    events: z.array(z.string()),
    signingScheme: z.enum(['v1', 'v2']),
    asymmetricSigning: z.boolean(),
    publicKey: z.string().nullable().openapi({
      description: 'v2 with asymmetric signing: the Ed25519 public key (`whpk_...`) that verifies `v1a` signatures',
    }),
    previousPublicKey: z
      .string()
      .nullable()
      .openapi({ description: 'During a rotation, the key still signing beside it' }),
    enabled: z.boolean(),
    disabledReason: z.enum(['MANUAL', 'GONE', 'FAILING']).nullable().openapi({
      description:
        'MANUAL: disabled through the API; GONE: the receiver answered 410; FAILING: every attempt failed for 5 days',
    }),
    disabledAt: UtcDateTime.nullable(),
    failingSince: UtcDateTime.nullable().openapi({
      description: 'Start of the current run of failed attempts; null while deliveries succeed',
    }),
    previousSecretExpiresAt: UtcDateTime.nullable().openapi({
      description: 'After a rotation: until when the previous secret still signs (beside the new one)',
    }),
    grantedBy: z
      .string()
      .nullable()
      .openapi({
        description:
          'Who made the endpoint, or last set `enabled: true` on it: an OAuth client, a user or an API key id, or ' +
          '`operator`. It receives events only while that grantor still grants it the `webhooks` scope (not revoked, ' +
          'disabled, demoted or expired); a PATCH with `enabled: true` makes the caller its grantor. Null on ' +
          'endpoints made before grantors were kept. GET /v1/credentials lists what each grantor granted.',
      }),
    createdAt: UtcDateTime,
    updatedAt: UtcDateTime,
  })
  .openapi('WebhookEndpoint')

export const WebhookEndpointWithSecret = WebhookEndpoint.extend({
  secret: z.string().openapi({
    description: 'The signing secret (`whsec_...`). Shown only in this response: store it now.',
    example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  }),
}).openapi('WebhookEndpointWithSecret')

export const WebhookEndpointListQuery = listQuerySchema(ENDPOINT_SORTS, '-createdAt').extend({
  enabled: z
    .enum(['true', 'false'])
    .transform((v) => v === 'true')
    .optional()
    .openapi({ param: { name: 'enabled', in: 'query' }, description: 'true or false' }),
})

export const WebhookAttempt = z
  .object({
    number: z.number().int().openapi({ description: '1 for the first attempt' }),
    attemptedAt: UtcDateTime,
    statusCode: z.number().int().nullable().openapi({ description: 'Null when no response came' }),
    latencyMs: z.number().int(),
    error: z.string().nullable().openapi({ example: 'no response within 10000 ms' }),
    succeeded: z.boolean(),
  })
  .openapi('WebhookAttempt')

export const WebhookDelivery = z
  .object({
    id: resourceId('webhookDelivery'),
    eventId: z.string(),
    eventType: z.string(),
    endpointId: z.string(),
    kind: z.enum(['EVENT', 'REDELIVERY']),
    status: z.enum(['PENDING', 'SUCCEEDED', 'FAILED']),
    attemptCount: z.number().int(),
    lastStatusCode: z.number().int().nullable(),
    lastError: z.string().nullable(),
    nextAttemptAt: UtcDateTime.nullable().openapi({
      description:
        "When a PENDING delivery is tried again. Null once it has ended, and while the endpoint's circuit breaker is " +
        "open: held deliveries wait for the endpoint's retry workflow, which probes it with the oldest of them; when a " +
        'probe succeeds they are all due at once.',
    }),
    createdAt: UtcDateTime,
    completedAt: UtcDateTime.nullable(),
    attempts: z.array(WebhookAttempt),
  })
  .openapi('WebhookDelivery')

export const WebhookDeliveryListQuery = listQuerySchema(DELIVERY_SORTS, '-createdAt').extend({
  status: z
    .enum(['PENDING', 'SUCCEEDED', 'FAILED'])
    .optional()
    .openapi({ param: { name: 'status', in: 'query' } }),
  eventType: z
    .string()
    .max(64)
    .optional()
    .openapi({ param: { name: 'eventType', in: 'query' } }),
})

export const RedeliveryRequest = z
  .strictObject({ eventId: z.string().min(1).max(64).openapi({ example: 'evt_019a...' }) })
  .openapi('WebhookRedeliveryRequest')

export const RecoveryRequest = z
  .strictObject({
    from: OffsetDateTime.openapi({
      description: 'Events created at or after this instant',
      example: '2026-11-20T00:00:00Z',
    }),
    to: OffsetDateTime.openapi({ description: 'Events created before this instant', example: '2026-11-21T00:00:00Z' }),
  })
  .openapi('WebhookRecoveryRequest')

export const RecoveryResult = z
  .object({
    redelivered: z.number().int().openapi({ description: 'Deliveries created (at most 1000 per request)' }),
    hasMore: z.boolean().openapi({ description: 'More failed events are left: send the same request again' }),
  })
  .openapi('WebhookRecoveryResult')
