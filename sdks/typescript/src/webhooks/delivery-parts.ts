/**
 * @module The parts of a delivery both signature schemes read the same way: headers (from a fetch `Headers` or a
 * Node `IncomingHttpHeaders`), the timestamp window, the check of the signatures over "<prefix><t>." and the raw
 * body, and the event envelope once a signature holds. A scheme only parses its own headers.
 */
import type { webhooks } from '../openapi.generated.ts'
import { bodyBytes, signedContent, type RawBody } from './bytes.ts'
import { WebhookVerificationError } from './verification-error.ts'

/** Request headers as web frameworks (`Headers`) or Node's `http` (`req.headers`) hand them over. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>

/** Verification settings. */
export interface VerifyOptions {
  /**
   * How far the signature's timestamp may be from now, either way, in seconds (default 300). Older deliveries are
   * refused as possible replays; every retry of a delivery is signed afresh, so a genuine one is never that old.
   */
  toleranceSeconds?: number
  /** The current time in epoch milliseconds (default `Date.now`). */
  now?: () => number
}

export const DEFAULT_TOLERANCE_SECONDS = 300

/** The envelope of every event, as the API delivers and lists it. */
export interface WebhookEnvelope {
  id: string
  type: string
  createdAt: string
  data: Record<string, unknown>
}

/** The payload types of a generated `webhooks` interface (one `post` operation per event type), as a union. */
export type DescribedEvents<W> = {
  [K in keyof W]: NonNullable<W[K]> extends { post: infer Op }
    ? NonNullable<Op> extends { requestBody?: infer R }
      ? NonNullable<R> extends { content: { 'application/json': infer B } }
        ? B
        : never
      : never
    : never
}[keyof W]

/**
 * A verified event: the union of the payloads the API's description documents under `webhooks`, discriminated by
 * `type`, or the bare envelope while the description documents none.
 */
export type WebhookEvent = [DescribedEvents<webhooks>] extends [never] ? WebhookEnvelope : DescribedEvents<webhooks>

/** Every value of header `name` (case-insensitive), or an empty list. */
export function headerValues(headers: WebhookHeaders, name: string): string[] {
  if (typeof (headers as Headers).get === 'function') {
    const value = (headers as Headers).get(name)
    return value === null ? [] : [value]
  }
  const lower = name.toLowerCase()
  const values: string[] = []
  for (const [key, value] of Object.entries(headers as Record<string, string | string[] | undefined>)) {
    if (key.toLowerCase() !== lower || value === undefined) continue
    values.push(...(Array.isArray(value) ? value : [value]))
  }
  return values
}

/**
 * Parses a Unix-seconds timestamp and checks it is within the tolerance of now.
 * @returns the timestamp as it was signed (the exact digits)
 */
export function checkTimestamp(raw: string, options: VerifyOptions): string {
  if (!/^\d{1,12}$/.test(raw))
    throw new WebhookVerificationError('malformed_signature', 'The signature timestamp is not Unix seconds.')
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS
  const nowSeconds = Math.floor((options.now ?? Date.now)() / 1000)
  if (Math.abs(nowSeconds - Number(raw)) > tolerance) {
    throw new WebhookVerificationError(
      'timestamp_out_of_tolerance',
      `The signature timestamp is more than ${tolerance} seconds from now: a replay, or a clock far off.`
    )
  }
  return raw
}

/** One algorithm's signatures in a delivery, and the keys any of them may have been made with. */
export interface SignatureSet {
  algorithm: 'HMAC' | 'Ed25519'
  /** The keys as configured; decoded one by one with `keyBytes`, so a malformed one fails only when reached. */
  keys: readonly string[]
  keyBytes(key: string): Uint8Array<ArrayBuffer>
  signatures: readonly Uint8Array<ArrayBuffer>[]
}

const ALGORITHMS = {
  HMAC: { name: 'HMAC', hash: 'SHA-256' },
  Ed25519: { name: 'Ed25519' },
} as const

/**
 * What both schemes do once their headers are parsed: checks the timestamp, then whether any signature of `sets`
 * signs "<signedPrefix><timestamp>." followed by the raw body under any of its keys (Web Crypto's `verify`, which is
 * constant-time), and returns the event.
 * @param signedPrefix - what the signed content has before the timestamp (v2: "<webhook-id>.", v1: nothing)
 * @param mismatch - the message of the `signature_mismatch` error
 * @throws {@link WebhookVerificationError} `malformed_signature`, `timestamp_out_of_tolerance`, `signature_mismatch`,
 *   `invalid_payload`
 */
export async function verifySignatureSets(
  body: RawBody,
  rawTimestamp: string,
  signedPrefix: string,
  sets: readonly SignatureSet[],
  mismatch: string,
  options: VerifyOptions
): Promise<WebhookEvent> {
  const timestamp = checkTimestamp(rawTimestamp, options)
  const bytes = bodyBytes(body)
  const content = signedContent(`${signedPrefix}${timestamp}.`, bytes)
  for (const set of sets) {
    const algorithm = ALGORITHMS[set.algorithm]
    for (const configured of set.keys) {
      const key = await crypto.subtle.importKey('raw', set.keyBytes(configured), algorithm, false, ['verify'])
      for (const signature of set.signatures) {
        if (await crypto.subtle.verify(algorithm, key, signature, content)) return parseEvent(bytes)
      }
    }
  }
  throw new WebhookVerificationError('signature_mismatch', mismatch)
}

/** The event of a delivery whose signature was verified. */
export function parseEvent(body: Uint8Array): WebhookEvent {
  let event: unknown
  try {
    event = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(body))
  } catch {
    throw new WebhookVerificationError('invalid_payload', 'The signed body is not JSON.')
  }
  const e = event as Partial<WebhookEnvelope> | null
  if (typeof e !== 'object' || e === null || typeof e.id !== 'string' || typeof e.type !== 'string') {
    throw new WebhookVerificationError('invalid_payload', 'The signed body is not an event envelope (id, type, data).')
  }
  return event as WebhookEvent
}
