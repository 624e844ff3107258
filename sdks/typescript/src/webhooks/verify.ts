/**
 * @module One entry point for receivers: verifies a delivery under whichever scheme signed it — v2 (Standard
 * Webhooks) when `webhook-signature` is present, else v1 (`X-Service-Signature`) — and returns the event. The same
 * `whsec_` secret verifies both (v1 keys the HMAC with the string, v2 with its decoded bytes).
 *
 * @example
 * const event = await verifyWebhook(rawBody, req.headers, process.env.WEBHOOK_SECRET)
 */
import type { RawBody } from './bytes.ts'
import { headerValues, type VerifyOptions, type WebhookEvent, type WebhookHeaders } from './delivery-parts.ts'
import { V1_SIGNATURE_HEADER, verifyWebhookV1 } from './verify-v1.ts'
import { verifyWebhookV2, type V2Keys } from './verify-v2.ts'
import { WebhookVerificationError } from './verification-error.ts'

/**
 * Verifies a delivery signed with v1 or v2 and returns its event. Deduplicate on `event.id`: delivery is
 * at-least-once.
 * @param body - the raw request body, exactly as received (not re-serialised JSON)
 * @param keys - the endpoint's secret (`whsec_...`), several while rotating, or v2 keys with `whpk_` public keys
 * @throws {@link WebhookVerificationError} when the delivery must not be trusted
 */
export async function verifyWebhook(
  body: RawBody,
  headers: WebhookHeaders,
  keys: string | string[] | V2Keys,
  options: VerifyOptions = {}
): Promise<WebhookEvent> {
  if (headerValues(headers, 'webhook-signature').length > 0) return verifyWebhookV2(body, headers, keys, options)
  if (headerValues(headers, V1_SIGNATURE_HEADER).length > 0) {
    const secret = typeof keys === 'string' || Array.isArray(keys) ? keys : keys.secret
    if (secret === undefined) throw new TypeError('A v1 signature is verified with the endpoint secret (whsec_...).')
    return verifyWebhookV1(body, headers, secret, options)
  }
  throw new WebhookVerificationError(
    'missing_signature',
    `Neither webhook-signature nor ${V1_SIGNATURE_HEADER} is present.`
  )
}
