/**
 * @module Signature scheme v2, Standard Webhooks 1.0: `webhook-id`, `webhook-timestamp` (Unix seconds) and
 * `webhook-signature`, space-separated entries `v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<raw body>">` keyed
 * with the base64-decoded part of a `whsec_` secret, and `v1a,<base64 Ed25519 signature>` over the same content
 * for endpoints with asymmetric signing (verified with the endpoint's `whpk_` public key). Any one matching entry
 * is enough, so rotations need nothing on the receiver's side. Comparisons are Web Crypto's `verify`.
 */
import { fromBase64, type RawBody } from './bytes.ts'
import { headerValues, verifySignatureSets } from './delivery-parts.ts'
import type { VerifyOptions, WebhookEvent, WebhookHeaders } from './delivery-parts.ts'
import { WebhookVerificationError } from './verification-error.ts'

const SECRET_PREFIX = 'whsec_'
const PUBLIC_KEY_PREFIX = 'whpk_'
const MAX_SIGNATURES = 8

/** What verifies a v2 delivery: HMAC secrets (`whsec_...`), Ed25519 public keys (`whpk_...`), or both. */
export interface V2Keys {
  secret?: string | string[]
  publicKey?: string | string[]
}

/** A parsed `webhook-signature`. */
export interface V2SignatureHeader {
  /** `v1` entries: HMAC-SHA256. */
  hmac: Uint8Array<ArrayBuffer>[]
  /** `v1a` entries: Ed25519. */
  ed25519: Uint8Array<ArrayBuffer>[]
}

/**
 * Parses a `webhook-signature` value; entries of unknown versions and undecodable ones are skipped.
 * @throws {@link WebhookVerificationError} `malformed_signature` when nothing usable is left
 */
export function parseV2SignatureHeader(value: string): V2SignatureHeader {
  const entries = value.split(/\s+/).filter(Boolean)
  if (entries.length > MAX_SIGNATURES) throw new WebhookVerificationError('malformed_signature', 'Too many signatures.')
  const parsed: V2SignatureHeader = { hmac: [], ed25519: [] }
  for (const entry of entries) {
    const comma = entry.indexOf(',')
    const version = entry.slice(0, comma)
    const bytes = comma > 0 ? fromBase64(entry.slice(comma + 1)) : undefined
    if (!bytes) continue
    if (version === 'v1' && bytes.length === 32) parsed.hmac.push(bytes)
    else if (version === 'v1a' && bytes.length === 64) parsed.ed25519.push(bytes)
  }
  if (parsed.hmac.length + parsed.ed25519.length === 0) {
    throw new WebhookVerificationError(
      'malformed_signature',
      'The webhook-signature header has no v1 or v1a signature.'
    )
  }
  return parsed
}

const list = (value: string | string[] | undefined) =>
  value === undefined ? [] : Array.isArray(value) ? value : [value]

function keyBytes(value: string, prefix: string, what: string): Uint8Array<ArrayBuffer> {
  const bytes = fromBase64(value.startsWith(prefix) ? value.slice(prefix.length) : value)
  // A configuration mistake, not a bad delivery: thrown as a TypeError so it is not answered as a 4xx and forgotten.
  if (!bytes) throw new TypeError(`The ${what} is not ${prefix} followed by base64.`)
  return bytes
}

/**
 * Verifies a v2-signed (Standard Webhooks) delivery and returns its event.
 * @param body - the raw request body, exactly as received
 * @param keys - the endpoint's `whsec_` secret (a string), or secrets and/or `whpk_` public keys
 * @throws {@link WebhookVerificationError}
 */
export async function verifyWebhookV2(
  body: RawBody,
  headers: WebhookHeaders,
  keys: string | string[] | V2Keys,
  options: VerifyOptions = {}
): Promise<WebhookEvent> {
  const { secret, publicKey } =
    typeof keys === 'string' || Array.isArray(keys) ? { secret: keys, publicKey: undefined } : keys
  const [id] = headerValues(headers, 'webhook-id')
  const [rawTimestamp] = headerValues(headers, 'webhook-timestamp')
  const signature = headerValues(headers, 'webhook-signature').join(' ')
  if (!id || !rawTimestamp || !signature) {
    throw new WebhookVerificationError(
      'missing_signature',
      'A webhook-id, webhook-timestamp or webhook-signature header is missing.'
    )
  }
  const parsed = parseV2SignatureHeader(signature)
  return verifySignatureSets(
    body,
    rawTimestamp,
    `${id}.`,
    [
      {
        algorithm: 'HMAC',
        keys: list(secret),
        keyBytes: (s) => keyBytes(s, SECRET_PREFIX, 'secret'),
        signatures: parsed.hmac,
      },
      {
        algorithm: 'Ed25519',
        keys: list(publicKey),
        keyBytes: (k) => keyBytes(k, PUBLIC_KEY_PREFIX, 'public key'),
        signatures: parsed.ed25519,
      },
    ],
    'No signature matches the keys: the body, the id or the keys differ.',
    options
  )
}
