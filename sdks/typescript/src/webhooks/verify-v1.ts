/**
 * @module Signature scheme v1 (docs/conventions.md, "Webhooks"): `X-Service-Signature: t=<unix seconds>,v1=<hex>[,v1=<hex>]`
 * where each `v1` is the lowercase hex HMAC-SHA256 of "<t>.<raw body>" keyed with an endpoint secret exactly as
 * issued (the `whsec_...` string itself, not decoded). During a secret rotation the API sends one `v1` per active
 * secret; any one matching is enough. Comparisons are Web Crypto's `verify`, which is constant-time.
 */
import { fromHex, utf8, type RawBody } from './bytes.ts'
import { headerValues, verifySignatureSets } from './delivery-parts.ts'
import type { VerifyOptions, WebhookEvent, WebhookHeaders } from './delivery-parts.ts'
import { WebhookVerificationError } from './verification-error.ts'

export const V1_SIGNATURE_HEADER = 'X-Service-Signature'

/** More entries than any rotation produces: a header with more is refused rather than costing an HMAC each. */
const MAX_SIGNATURES = 8

/** A parsed `X-Service-Signature`. */
export interface V1SignatureHeader {
  timestamp: string
  /** The `v1` entries, in order (other schemes' entries are ignored). */
  signatures: string[]
}

/**
 * Parses an `X-Service-Signature` value.
 * @throws {@link WebhookVerificationError} `malformed_signature` without exactly one `t` and at least one `v1`
 */
export function parseV1SignatureHeader(value: string): V1SignatureHeader {
  const timestamps: string[] = []
  const signatures: string[] = []
  for (const part of value.split(',')) {
    const at = part.indexOf('=')
    if (at < 0) continue
    const key = part.slice(0, at).trim()
    const entry = part.slice(at + 1).trim()
    if (key === 't') timestamps.push(entry)
    else if (key === 'v1') signatures.push(entry)
  }
  if (timestamps.length !== 1)
    throw new WebhookVerificationError('malformed_signature', 'The signature header needs exactly one t=.')
  if (signatures.length === 0)
    throw new WebhookVerificationError('malformed_signature', 'The signature header has no v1= signature.')
  if (signatures.length > MAX_SIGNATURES)
    throw new WebhookVerificationError('malformed_signature', 'The signature header has too many signatures.')
  return { timestamp: timestamps[0]!, signatures }
}

/**
 * Verifies a v1-signed delivery and returns its event.
 * @param body - the raw request body, exactly as received (verify before parsing: re-serialised JSON differs)
 * @param headers - the request headers, or the `X-Service-Signature` value itself
 * @param secret - the endpoint's secret as issued; several while you rotate yours
 * @throws {@link WebhookVerificationError}
 */
export async function verifyWebhookV1(
  body: RawBody,
  headers: WebhookHeaders | string,
  secret: string | string[],
  options: VerifyOptions = {}
): Promise<WebhookEvent> {
  const value = typeof headers === 'string' ? headers : headerValues(headers, V1_SIGNATURE_HEADER).join(',')
  if (!value) throw new WebhookVerificationError('missing_signature', `No ${V1_SIGNATURE_HEADER} header.`)
  const parsed = parseV1SignatureHeader(value)
  const signatures = parsed.signatures.map(fromHex).filter((s): s is Uint8Array<ArrayBuffer> => s?.length === 32)
  // The HMAC is keyed with the secret string as issued, not its decoded bytes.
  const keys = Array.isArray(secret) ? secret : [secret]
  return verifySignatureSets(
    body,
    parsed.timestamp,
    '',
    [{ algorithm: 'HMAC', keys, keyBytes: utf8, signatures }],
    'No v1 signature matches the secret: the body or the secret differ.',
    options
  )
}
