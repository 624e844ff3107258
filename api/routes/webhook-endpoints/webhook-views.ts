/**
 * @module Stored webhook rows as the API shows them: secrets never, private keys never, public keys derived (from the
 * private key, opened for that: it is stored sealed).
 */
import type { z } from '@hono/zod-openapi'
import { attemptsOf, type DeliveryRow } from '../../../domain/webhooks/delivery-log.ts'
import type { EndpointRow } from '../../../domain/webhooks/endpoint-service.ts'
import { publicKeyOf } from '../../../domain/webhooks/webhook-secrets.ts'
import type { SecretBox } from '../../../infra/secret-box.ts'
import type { WebhookDelivery, WebhookEndpoint } from './webhook-schemas.ts'
import { endpointSecretAt } from '../../../domain/sealed-secrets.ts'

const iso = (value: Date | null) => value?.toISOString() ?? null

/**
 * How the API shows endpoints.
 * @param secrets - opens their sealed Ed25519 keys, to derive the public keys
 */
export function endpointView(secrets: SecretBox) {
  const publicKey = (id: string, signingKey: string, column: 'signing_key' | 'previous_signing_key') =>
    publicKeyOf(secrets.open(signingKey, endpointSecretAt(id, column)))
  return (e: EndpointRow): z.infer<typeof WebhookEndpoint> => ({
    id: e.id,
    url: e.url,
    description: e.description,
    events: e.eventTypes,
    signingScheme: e.signingScheme === 'V2' ? 'v2' : 'v1',
    asymmetricSigning: e.signingKey !== null,
    publicKey: e.signingKey === null ? null : publicKey(e.id, e.signingKey, 'signing_key'),
    previousPublicKey:
      e.previousSigningKey !== null && e.previousSecretExpiresAt !== null && e.previousSecretExpiresAt > new Date()
        ? publicKey(e.id, e.previousSigningKey, 'previous_signing_key')
        : null,
    enabled: e.enabled,
    disabledReason: e.disabledReason,
    disabledAt: iso(e.disabledAt),
    failingSince: iso(e.failingSince),
    previousSecretExpiresAt:
      e.previousSecretExpiresAt !== null && e.previousSecretExpiresAt > new Date()
        ? e.previousSecretExpiresAt.toISOString()
        : null,
    grantedBy: e.createdBy,
    createdAt: e.createdAt.toISOString(),
    updatedAt: e.updatedAt.toISOString(),
  })
}

export const toDelivery = (d: DeliveryRow): z.infer<typeof WebhookDelivery> => ({
  id: d.id,
  eventId: d.eventId,
  eventType: d.eventType,
  endpointId: d.endpointId,
  kind: d.kind,
  status: d.status,
  attemptCount: d.attemptCount,
  lastStatusCode: d.lastStatusCode,
  lastError: d.lastError,
  nextAttemptAt: iso(d.nextAttemptAt),
  createdAt: d.createdAt.toISOString(),
  completedAt: iso(d.completedAt),
  attempts: attemptsOf(d).map((a) => ({
    number: a.number,
    attemptedAt: a.attemptedAt.toISOString(),
    statusCode: a.statusCode,
    latencyMs: a.latencyMs,
    error: a.error,
    succeeded: a.succeeded,
  })),
})
