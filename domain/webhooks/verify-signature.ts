/**
 * @module Verifying a webhook delivery, for receivers: the tests' receiver uses it, and the Node SDK ships it.
 * Self-contained (only `node:crypto`, no other module of this codebase) so it can be copied as is.
 *
 * ```ts
 * import { verifyWebhook } from './verify-signature.ts'
 * // Pass the RAW body (a string or Buffer, before any JSON parsing) and the request headers.
 * const event = verifyWebhook({ headers: req.headers, body: rawBody, secret: process.env.WEBHOOK_SECRET })
 * ```
 *
 * v1 (`X-Service-Signature: t=...,v1=...`) and v2 (Standard Webhooks `webhook-id` / `webhook-timestamp` /
 * `webhook-signature`) are told apart by their headers. Both reject timestamps more than 5 minutes away from the
 * receiver's clock (replays), and accept a delivery when any one signature matches any one configured secret
 * (rotation). For v2, a `whpk_` public key verifies the asymmetric `v1a` signatures instead of a secret.
 */
import { createHmac, createPublicKey, timingSafeEqual, verify as verifyEd25519 } from 'node:crypto'

/** Why a delivery was rejected. */
export type VerificationFailure =
  'missing_header' | 'malformed_header' | 'timestamp_too_old' | 'timestamp_too_new' | 'no_matching_signature'

export class WebhookVerificationError extends Error {
  readonly code: VerificationFailure

  constructor(code: VerificationFailure, message: string) {
    super(message)
    this.name = 'WebhookVerificationError'
    this.code = code
  }
}

/** Headers as Node's `IncomingHttpHeaders`, a fetch `Headers`, or a plain record. */
export type HeadersLike = Headers | Record<string, string | string[] | undefined>

export interface VerifyOptions {
  headers: HeadersLike
  /** The raw request body, byte for byte as received. */
  body: string | Buffer | Uint8Array
  /** The endpoint's secret(s) as issued (`whsec_...`); several during a rotation. */
  secret?: string | string[]
  /** v2 only: the endpoint's `whpk_` public key(s), to verify `v1a` (Ed25519) signatures. */
  publicKey?: string | string[]
  /** Largest accepted distance between the signed timestamp and now; 300 seconds by default. */
  toleranceSeconds?: number
  /** The receiver's clock, for tests. */
  now?: Date
}

/** A verified delivery. */
export interface VerifiedWebhook<T = unknown> {
  scheme: 'v1' | 'v2'
  /** The event id (v2: `webhook-id`; v1: the envelope's `id`); deduplicate on it, deliveries are at least once. */
  id: string
  timestamp: Date
  /** The parsed envelope `{ id, type, createdAt, data }`. */
  event: T
}

const DEFAULT_TOLERANCE_SECONDS = 300

function header(headers: HeadersLike, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined
  const record = headers as Record<string, string | string[] | undefined>
  const key = Object.keys(record).find((k) => k.toLowerCase() === name.toLowerCase())
  const value = key === undefined ? undefined : record[key]
  return Array.isArray(value) ? value.join(',') : value
}

const list = (value: string | string[] | undefined) =>
  value === undefined ? [] : Array.isArray(value) ? value : [value]

function safeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a)
  const right = Buffer.from(b)
  return left.length === right.length && timingSafeEqual(left, right)
}

function checkTimestamp(value: string, options: VerifyOptions): Date {
  if (!/^\d{1,12}$/.test(value))
    throw new WebhookVerificationError('malformed_header', 'The timestamp is not a number.')
  const seconds = Number(value)
  const now = Math.floor((options.now ?? new Date()).getTime() / 1000)
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS
  if (now - seconds > tolerance) throw new WebhookVerificationError('timestamp_too_old', 'The timestamp is too old.')
  if (seconds - now > tolerance)
    throw new WebhookVerificationError('timestamp_too_new', 'The timestamp is in the future.')
  return new Date(seconds * 1000)
}

const bodyText = (body: VerifyOptions['body']) => (typeof body === 'string' ? body : Buffer.from(body).toString('utf8'))

/**
 * Verifies a v1 delivery (`X-Service-Signature: t=<unix>,v1=<hex>[,v1=<hex>]`).
 * @throws WebhookVerificationError
 */
export function verifyV1(options: VerifyOptions): VerifiedWebhook {
  const value = header(options.headers, 'x-service-signature')
  if (!value) throw new WebhookVerificationError('missing_header', 'X-Service-Signature is missing.')
  const parts = value.split(',').map((part) => part.trim().split('='))
  const t = parts.find(([key]) => key === 't')?.[1]
  const signatures = parts.filter(([key]) => key === 'v1').map(([, signature]) => signature ?? '')
  if (t === undefined || signatures.length === 0) {
    throw new WebhookVerificationError('malformed_header', 'X-Service-Signature needs t= and at least one v1=.')
  }
  const timestamp = checkTimestamp(t, options)
  const body = bodyText(options.body)
  const expected = list(options.secret).map((secret) =>
    createHmac('sha256', secret).update(`${t}.${body}`).digest('hex')
  )
  if (!signatures.some((signature) => expected.some((e) => safeEqual(signature, e)))) {
    throw new WebhookVerificationError('no_matching_signature', 'No signature matches the secret.')
  }
  const event = JSON.parse(body) as { id: string }
  return { scheme: 'v1', id: event.id, timestamp, event }
}

function ed25519Key(publicKey: string) {
  const raw = Buffer.from(publicKey.replace(/^whpk_/, ''), 'base64')
  // The fixed SubjectPublicKeyInfo header of an Ed25519 key (RFC 8410), then the 32 raw bytes.
  const spki = Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), raw])
  return createPublicKey({ key: spki, format: 'der', type: 'spki' })
}

/**
 * Verifies a v2 (Standard Webhooks) delivery: `v1,` HMAC signatures against `secret`, `v1a,` Ed25519 signatures
 * against `publicKey`.
 * @throws WebhookVerificationError
 */
export function verifyV2(options: VerifyOptions): VerifiedWebhook {
  const id = header(options.headers, 'webhook-id')
  const t = header(options.headers, 'webhook-timestamp')
  const value = header(options.headers, 'webhook-signature')
  if (!id || !t || !value) {
    throw new WebhookVerificationError(
      'missing_header',
      'webhook-id, webhook-timestamp and webhook-signature are required.'
    )
  }
  const timestamp = checkTimestamp(t, options)
  const body = bodyText(options.body)
  const signed = Buffer.from(`${id}.${t}.${body}`)
  const hmacs = list(options.secret).map((secret) =>
    createHmac('sha256', Buffer.from(secret.replace(/^whsec_/, ''), 'base64'))
      .update(signed)
      .digest('base64')
  )
  const keys = list(options.publicKey).map(ed25519Key)
  const matches = value.split(' ').some((entry) => {
    const [version, signature] = entry.split(',')
    if (!signature) return false
    if (version === 'v1') return hmacs.some((expected) => safeEqual(signature, expected))
    if (version === 'v1a') {
      const bytes = Buffer.from(signature, 'base64')
      return keys.some((key) => verifyEd25519(null, signed, key, bytes))
    }
    return false
  })
  if (!matches) throw new WebhookVerificationError('no_matching_signature', 'No signature matches the secret or key.')
  return { scheme: 'v2', id, timestamp, event: JSON.parse(body) }
}

/**
 * Verifies a delivery of either scheme, chosen by the headers present.
 * @throws WebhookVerificationError
 */
export function verifyWebhook(options: VerifyOptions): VerifiedWebhook {
  return header(options.headers, 'webhook-signature') !== undefined ? verifyV2(options) : verifyV1(options)
}
