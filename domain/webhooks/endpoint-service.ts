/**
 * @module Webhook endpoints: a tenant's subscriptions (docs/webhooks.md). Create, list, read, merge-patch, delete,
 * rotate the secret (the old one keeps signing for 24 hours), and send a test event. The secrets and Ed25519 keys are
 * stored sealed (infra/secret-box.ts); a row keeps them so, and only the issued secret leaves in clear, once.
 */
import type { Prisma } from '../../generated/prisma/client.ts'
import type { SecretBinding, SecretBox } from '../../infra/secret-box.ts'
import { endpointSecretAt } from '../sealed-secrets.ts'
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import { conflict, notFound } from '../errors.ts'
import type { EventEnvelope } from '../events/event-envelope.ts'
import { toEnvelope } from '../events/event-envelope.ts'
import { recordEvent } from '../events/record-event.ts'
import { newId } from '../ids.ts'
import { keysetOrderBy, keysetWhere, parseList, toSortedPage, type Page, type SortParam } from '../listing.ts'
import { patchResource, withoutNulls, type JsonObject } from '../merge-patch.ts'
import { EndpointFieldsSchema, type EndpointFieldsInput } from './endpoint-fields.ts'
import { vetEndpointUrl, type EndpointUrlRules } from './endpoint-url.ts'
import { releaseHeld, releaseHeldOfDisabled } from './held-deliveries.ts'
import { newSigningKey, newWebhookSecret } from './webhook-secrets.ts'

/** How long a rotated-out secret keeps signing, so receivers can switch without losing a delivery. */
export const ROTATION_OVERLAP_MS = 24 * 3600 * 1000
/** Endpoints per tenant: every event fans out to each, so the number is bounded. */
export const MAX_ENDPOINTS_PER_TENANT = 50

export type EndpointRow = Prisma.WebhookEndpointGetPayload<object>

/** The endpoint (as stored: secrets sealed) and, only when it was just issued, its secret in clear. */
export interface EndpointWithSecret {
  endpoint: EndpointRow
  secret: string
}

/** A stored value carried to another column: opened at its place, sealed (under the current key) at the new one. */
const moved = (secrets: SecretBox, stored: string | null, from: SecretBinding, to: SecretBinding) =>
  stored === null ? null : secrets.seal(secrets.open(stored, from), to)

const scheme = (value: 'v1' | 'v2') => (value === 'v2' ? 'V2' : 'V1')

/**
 * Creates an endpoint with a new secret (and an Ed25519 key when asymmetric signing is asked for).
 * @param grantor - the caller (its `actorId`): the endpoint receives events while the caller grants it `webhooks`
 *   (domain/auth/credential-grants.ts)
 * @throws AppError `validation_error` (the URL's rules among them), `conflict` beyond the per-tenant limit
 */
export async function createEndpoint(
  uow: UnitOfWork,
  input: EndpointFieldsInput,
  rules: EndpointUrlRules,
  secrets: SecretBox,
  grantor: string
): Promise<EndpointWithSecret> {
  const fields = patchResource(EndpointFieldsSchema, {}, input as JsonObject)
  // Vetting resolves the host (DNS, a network call): holding no transaction.
  const url = await uow.release(() => vetEndpointUrl(fields.url, rules))
  const count = await uow.tx.webhookEndpoint.count({ where: { tenantId: uow.tenantId } })
  if (count >= MAX_ENDPOINTS_PER_TENANT) {
    throw conflict(`A tenant may have at most ${MAX_ENDPOINTS_PER_TENANT} webhook endpoints; delete one first.`)
  }
  const secret = newWebhookSecret()
  const id = newId('webhookEndpoint')
  const endpoint = await uow.tx.webhookEndpoint.create({
    data: {
      id,
      tenantId: uow.tenantId,
      url,
      description: fields.description ?? null,
      eventTypes: fields.events,
      signingScheme: scheme(fields.signingScheme),
      secret: secrets.seal(secret, endpointSecretAt(id, 'secret')),
      signingKey: fields.asymmetricSigning ? secrets.seal(newSigningKey(), endpointSecretAt(id, 'signing_key')) : null,
      enabled: fields.enabled,
      createdBy: grantor,
      disabledReason: fields.enabled ? null : 'MANUAL',
      disabledAt: fields.enabled ? null : new Date(),
    },
  })
  return { endpoint, secret }
}

/** One endpoint of the unit's tenant. @throws AppError `not_found` */
export async function getEndpoint({ tx, tenantId }: UnitOfWork, id: string): Promise<EndpointRow> {
  const endpoint = await tx.webhookEndpoint.findFirst({ where: { id, tenantId } })
  if (!endpoint) throw notFound('webhook endpoint', id)
  return endpoint
}

export const ENDPOINT_SORTS = ['createdAt'] as const

export interface ListEndpointsQuery {
  limit: number
  cursor?: string
  sort: SortParam<(typeof ENDPOINT_SORTS)[number]>
  enabled?: boolean
}

/** A page of the tenant's endpoints. */
export async function listEndpoints(
  { tx, tenantId }: UnitOfWork,
  query: ListEndpointsQuery
): Promise<Page<EndpointRow>> {
  const list = parseList(query)
  const rows = await tx.webhookEndpoint.findMany({
    where: { AND: [{ tenantId, enabled: query.enabled }, keysetWhere(list)] },
    orderBy: keysetOrderBy(list),
    take: list.limit + 1,
  })
  return toSortedPage(rows, list)
}

/** The writable fields of a stored endpoint, as the target of a merge patch. */
const writableFields = (endpoint: EndpointRow): JsonObject =>
  withoutNulls({
    url: endpoint.url,
    events: endpoint.eventTypes,
    description: endpoint.description,
    signingScheme: endpoint.signingScheme === 'V2' ? 'v2' : 'v1',
    asymmetricSigning: endpoint.signingKey !== null,
    enabled: endpoint.enabled,
  })

/**
 * Applies a JSON merge patch. Re-enabling clears the disabled reason and the failure clock; a changed URL is vetted
 * again; turning asymmetric signing on makes a key, off drops it. A patch that says `enabled: true` makes the caller
 * the endpoint's grantor: how an administrator takes over the endpoint of an integration or a person who has left.
 * @throws AppError `not_found`, `validation_error`
 */
export async function updateEndpoint(
  uow: UnitOfWork,
  id: string,
  patch: JsonObject,
  rules: EndpointUrlRules,
  secrets: SecretBox,
  grantor: string
): Promise<EndpointRow> {
  const current = await getEndpoint(uow, id)
  const fields = patchResource(EndpointFieldsSchema, writableFields(current), patch)
  // A new URL is vetted holding no transaction (DNS, a network call).
  const url = fields.url === current.url ? current.url : await uow.release(() => vetEndpointUrl(fields.url, rules))
  const enabling = fields.enabled && !current.enabled
  const disabling = !fields.enabled && current.enabled
  const keepKey = fields.asymmetricSigning && current.signingKey !== null
  // Enabling it again or changing its URL closes the endpoint's circuit breaker (docs/webhooks.md).
  const resetBreaker = enabling || url !== current.url
  const updated = await uow.tx.webhookEndpoint.update({
    where: { id: current.id },
    data: {
      url,
      description: fields.description ?? null,
      eventTypes: fields.events,
      signingScheme: scheme(fields.signingScheme),
      signingKey: keepKey
        ? current.signingKey
        : fields.asymmetricSigning
          ? secrets.seal(newSigningKey(), endpointSecretAt(current.id, 'signing_key'))
          : null,
      previousSigningKey: keepKey ? current.previousSigningKey : null,
      enabled: fields.enabled,
      ...(patch.enabled === true ? { createdBy: grantor } : {}),
      ...(enabling ? { disabledReason: null, disabledAt: null, failingSince: null } : {}),
      ...(disabling ? { disabledReason: 'MANUAL', disabledAt: new Date() } : {}),
      ...(resetBreaker ? { consecutiveFailures: 0, circuitOpenedAt: null } : {}),
    },
  })
  // Someone fixed the receiver (enabled it again, or pointed it elsewhere): what it holds is due now, for the pumps.
  // Disabled by hand: what it held is due too, so the claim ends it like the rest of its queue. The endpoint's row is
  // locked by the update above, so a fan-out still making held rows for it has committed (held-deliveries.ts).
  if (resetBreaker) await releaseHeld(uow.tx, [current.id], new Date())
  else if (disabling) await releaseHeldOfDisabled(uow.tx, current.id, new Date())
  return updated
}

/** Deletes an endpoint with its delivery log; its deliveries in flight stop at their next attempt. */
export async function deleteEndpoint(uow: UnitOfWork, id: string): Promise<void> {
  const endpoint = await getEndpoint(uow, id)
  await uow.tx.webhookEndpoint.delete({ where: { id: endpoint.id } })
}

/**
 * Issues a new secret (and Ed25519 key, if the endpoint has one). The previous ones keep signing, beside the new
 * ones, for 24 hours; a second rotation within that time retires the oldest at once.
 * @param now - the rotation time
 */
export async function rotateEndpointSecret(
  uow: UnitOfWork,
  id: string,
  now: Date,
  secrets: SecretBox
): Promise<EndpointWithSecret> {
  const current = await getEndpoint(uow, id)
  const secret = newWebhookSecret()
  const at = (column: Parameters<typeof endpointSecretAt>[1]) => endpointSecretAt(current.id, column)
  const endpoint = await uow.tx.webhookEndpoint.update({
    where: { id: current.id },
    data: {
      secret: secrets.seal(secret, at('secret')),
      previousSecret: moved(secrets, current.secret, at('secret'), at('previous_secret')),
      previousSecretExpiresAt: new Date(now.getTime() + ROTATION_OVERLAP_MS),
      signingKey: current.signingKey === null ? null : secrets.seal(newSigningKey(), at('signing_key')),
      previousSigningKey: moved(secrets, current.signingKey, at('signing_key'), at('previous_signing_key')),
    },
  })
  return { endpoint, secret }
}

/**
 * Records a `webhook.test` event for the endpoint; the dispatcher delivers it to that endpoint only.
 * @throws AppError `not_found`, `conflict` when the endpoint is disabled
 */
export async function sendTestEvent(uow: UnitOfWork, id: string, now: Date): Promise<EventEnvelope> {
  const endpoint = await getEndpoint(uow, id)
  if (!endpoint.enabled) throw conflict('The endpoint is disabled; enable it before sending a test event.')
  const event = await recordEvent(
    uow,
    'webhook.test',
    { endpointId: endpoint.id, message: 'A test event: your endpoint receives and verifies deliveries.' },
    { createdAt: now }
  )
  return toEnvelope(event)
}
