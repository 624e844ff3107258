/**
 * @module What an attempt of a webhook delivery reads of its event and its endpoint, and the keys it signs with: read by
 * the claims (delivery-queue.ts), used by the attempt (attempt-delivery.ts).
 */
import type { SecretBox } from '../../infra/secret-box.ts'
import { endpointSecretAt } from '../sealed-secrets.ts'
import type { SigningMaterial } from './sign-delivery.ts'

/** The event a delivery sends. */
export interface DeliveryEvent {
  id: string
  type: string
  createdAt: Date
  data: unknown
}

/** An endpoint as stored: its secrets and keys sealed (opened only to sign, {@link signingMaterial}). */
export interface DeliveryEndpoint {
  url: string
  signingScheme: 'V1' | 'V2'
  secret: string
  previousSecret: string | null
  previousSecretExpiresAt: Date | null
  signingKey: string | null
  previousSigningKey: string | null
  /** Enabled, and its grantor still grants it (credential-grants.ts). */
  enabled: boolean
  /** Not enabled because its grantor no longer grants it (revoked, disabled, demoted or expired). */
  grantLapsed: boolean
  failingSince: Date | null
}

/** Why a delivery ends without an attempt: its endpoint is disabled, or its grantor no longer grants it. */
export const endedReason = (endpoint: Pick<DeliveryEndpoint, 'grantLapsed'>) =>
  endpoint.grantLapsed
    ? 'endpoint grant lapsed: its grantor was revoked, disabled or lost the webhooks scope'
    : 'endpoint disabled'

/** The event an attempt sends, from a row with `event_id`, `event_type`, `event_created_at` and `event_data`. */
export const eventOfRow = (row: Record<string, unknown>): DeliveryEvent => ({
  id: row.event_id as string,
  type: row.event_type as string,
  createdAt: row.event_created_at as Date,
  data: row.event_data,
})

/** The endpoint an attempt goes to, from a row with the endpoint's columns under their own names. */
export const endpointOfRow = (row: Record<string, unknown>): DeliveryEndpoint => ({
  url: row.url as string,
  signingScheme: row.signing_scheme as 'V1' | 'V2',
  secret: row.secret as string,
  previousSecret: row.previous_secret as string | null,
  previousSecretExpiresAt: row.previous_secret_expires_at as Date | null,
  signingKey: row.signing_key as string | null,
  previousSigningKey: row.previous_signing_key as string | null,
  // A row read without the grant (`granted` absent) is as enabled as its flag says.
  enabled: (row.enabled as boolean) && row.granted !== false,
  grantLapsed: (row.enabled as boolean) && row.granted === false,
  failingSince: row.failing_since as Date | null,
})

/**
 * The keys that sign now, opened: the current ones, and the previous ones until their rotation overlap ends. Opening
 * is an AES-GCM decryption of a few dozen bytes per key (microseconds), on the row the attempt loaded anyway.
 */
export function signingMaterial(
  endpointId: string,
  endpoint: DeliveryEndpoint,
  now: Date,
  secrets: SecretBox
): SigningMaterial {
  const previousValid = endpoint.previousSecretExpiresAt !== null && endpoint.previousSecretExpiresAt > now
  const at = (column: Parameters<typeof endpointSecretAt>[1]) => endpointSecretAt(endpointId, column)
  const opened = (stored: string | null, column: Parameters<typeof endpointSecretAt>[1]) =>
    stored === null ? [] : [secrets.open(stored, at(column))]
  return {
    scheme: endpoint.signingScheme === 'V2' ? 'v2' : 'v1',
    secrets: [
      ...opened(endpoint.secret, 'secret'),
      ...(previousValid ? opened(endpoint.previousSecret, 'previous_secret') : []),
    ],
    signingKeys: [
      ...opened(endpoint.signingKey, 'signing_key'),
      ...(previousValid ? opened(endpoint.previousSigningKey, 'previous_signing_key') : []),
    ],
  }
}
