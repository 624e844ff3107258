/**
 * @module Signing a delivery (docs/webhooks.md). A fresh timestamp and signature on every attempt; one signature per
 * active secret, so during a rotation receivers holding either secret accept the delivery.
 *
 * - v1: `X-Service-Signature: t=<unix>,v1=<hex HMAC-SHA256("<t>.<body>")>[,v1=...]`, key = the secret string as
 *   issued. Byte for byte Stripe's `Stripe-Signature` construction.
 * - v2: Standard Webhooks 1.0: `webhook-id` (the event id), `webhook-timestamp`, `webhook-signature:
 *   v1,<base64 HMAC-SHA256("<id>.<t>.<body>")>` with the base64-decoded `whsec_` secret as key, entries separated by
 *   spaces, plus `v1a,<base64 Ed25519>` when the endpoint has a signing key.
 */
import { createHmac, createPrivateKey, createSecretKey, sign } from 'node:crypto'
import { SECRET_PREFIX } from './webhook-secrets.ts'

export type SigningScheme = 'v1' | 'v2'

/** The keys that sign one attempt, newest first. */
export interface SigningMaterial {
  scheme: SigningScheme
  /** HMAC secrets as issued (`whsec_...`): the current one, then the previous one during a rotation. */
  secrets: string[]
  /** Ed25519 private keys (PKCS#8 DER, base64); empty unless the endpoint asked for asymmetric signatures. */
  signingKeys: string[]
}

/** What is signed. */
export interface SignedContent {
  eventId: string
  /** Unix seconds of this attempt. */
  timestamp: number
  /** The raw JSON body, exactly as sent. */
  body: string
}

export const V1_SIGNATURE_HEADER = 'X-Service-Signature'

/** The HMAC key of a v2 secret: the bytes the base64 after `whsec_` stands for. */
export const v2HmacKey = (secret: string) =>
  Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64')

/**
 * The v2 key as a KeyObject. Handed a Buffer, createHmac spends ~20 µs telling it from a KeyObject or a CryptoKey
 * (Node 24), more than the HMAC of a 1 kB body, and a worker signs every delivery (docs/benchmarks.md, "Webhooks: the
 * worker's share per delivery").
 */
const v2HmacKeyObject = (secret: string) => createSecretKey(v2HmacKey(secret))

/** The v1 hex signature of one secret. */
export const v1Signature = (secret: string, timestamp: number, body: string) =>
  createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')

/** The headers that sign an attempt under the endpoint's scheme. */
export function signatureHeaders(material: SigningMaterial, content: SignedContent): Record<string, string> {
  const { eventId, timestamp, body } = content
  if (material.scheme === 'v1') {
    const signatures = material.secrets.map((secret) => `v1=${v1Signature(secret, timestamp, body)}`)
    return { [V1_SIGNATURE_HEADER]: [`t=${timestamp}`, ...signatures].join(',') }
  }
  const signed = `${eventId}.${timestamp}.${body}`
  const hmacs = material.secrets.map(
    (secret) => `v1,${createHmac('sha256', v2HmacKeyObject(secret)).update(signed).digest('base64')}`
  )
  const asymmetric = material.signingKeys.map((key) => {
    const privateKey = createPrivateKey({ key: Buffer.from(key, 'base64'), format: 'der', type: 'pkcs8' })
    return `v1a,${sign(null, Buffer.from(signed), privateKey).toString('base64')}`
  })
  return {
    'webhook-id': eventId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': [...hmacs, ...asymmetric].join(' '),
  }
}
