/**
 * The SDK's webhook verification (sdks/typescript/src/webhooks/) against signatures made independently of it: v1 with
 * node:crypto's HMAC as docs/conventions.md describes it, v2 with the `standardwebhooks` reference library and
 * node:crypto's Ed25519. Header parsing, rotations, tolerance both ways, and every way a delivery is refused.
 */
import { createHmac, generateKeyPairSync, randomBytes, sign } from 'node:crypto'
import { Webhook } from 'standardwebhooks'
import { describe, expect, expectTypeOf, it } from 'vitest'
import {
  parseV1SignatureHeader,
  parseV2SignatureHeader,
  verifyWebhook,
  verifyWebhookV1,
  verifyWebhookV2,
  WebhookVerificationError,
  type WebhookEvent,
  type WebhookVerificationCode,
} from '../../../../../../sdks/typescript/src/index.ts'
import type { DescribedEvents } from '../../../../../../sdks/typescript/src/webhooks/delivery-parts.ts'

const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`
const secret = newSecret()
const now = Math.floor(Date.now() / 1000)
const event = {
  id: 'evt_01J9ZK6Q3W',
  type: 'booking.created',
  createdAt: '2026-06-01T12:00:00.000Z',
  // A non-ASCII character: the signature covers UTF-8 bytes, not UTF-16 code units.
  data: {
    bookingId: 'apt_1',
    childId: 'chd_1',
    service: 'EARLY_INTERVENTION',
    amount: 12500,
    currency: 'EUR',
    note: 'Zoë',
  },
}
const body = JSON.stringify(event)

/** v1 as the API signs it: lowercase hex HMAC-SHA256 of "<t>.<body>", keyed with the secret string as issued. */
const v1 = (key: string, t: number, payload = body) => createHmac('sha256', key).update(`${t}.${payload}`).digest('hex')

async function refusal(promise: Promise<unknown>): Promise<WebhookVerificationCode> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e
  )
  expect(error).toBeInstanceOf(WebhookVerificationError)
  return (error as WebhookVerificationError).code
}

describe('parsing X-Service-Signature', () => {
  it('reads one timestamp and every v1 entry, ignoring other schemes and spaces', () => {
    expect(parseV1SignatureHeader('t=1700000000, v1=abc ,v0=zzz,v1=def')).toEqual({
      timestamp: '1700000000',
      signatures: ['abc', 'def'],
    })
  })

  it('refuses a header without exactly one t or without a v1', () => {
    for (const header of ['v1=abc', 't=1,t=2,v1=abc', 't=1', 't=1,v0=abc', '', 'garbage']) {
      expect(() => parseV1SignatureHeader(header), header).toThrow(WebhookVerificationError)
    }
  })
})

describe('parsing webhook-signature', () => {
  it('keeps decodable v1 (32 bytes) and v1a (64 bytes) entries and skips the rest', () => {
    const hmac = randomBytes(32).toString('base64')
    const ed = randomBytes(64).toString('base64')
    const parsed = parseV2SignatureHeader(
      `v1,${hmac}  v2,${hmac} v1a,${ed} v1,not*base64 v1,${randomBytes(16).toString('base64')}`
    )
    expect(parsed.hmac.map((b) => Buffer.from(b).toString('base64'))).toEqual([hmac])
    expect(parsed.ed25519.map((b) => Buffer.from(b).toString('base64'))).toEqual([ed])
  })

  it('refuses a header with nothing usable', () => {
    for (const header of ['', 'v1', 'v1,', 'v2,abcd', 'v1,!!!!'])
      expect(() => parseV2SignatureHeader(header), header).toThrow(WebhookVerificationError)
  })
})

describe('v1 (X-Service-Signature)', () => {
  it('accepts a signature made with node:crypto, from Node headers or fetch Headers, string or Buffer body', async () => {
    const header = `t=${now},v1=${v1(secret, now)}`
    expect(await verifyWebhookV1(body, { 'x-service-signature': header }, secret)).toEqual(event)
    expect(await verifyWebhookV1(Buffer.from(body), new Headers({ 'X-Service-Signature': header }), secret)).toEqual(
      event
    )
    expect(await verifyWebhook(new TextEncoder().encode(body), { 'X-Service-Signature': header }, secret)).toEqual(
      event
    )
  })

  it('accepts any matching entry during a rotation, with either the old or the new secret', async () => {
    const previous = newSecret()
    const header = `t=${now},v1=${v1(secret, now)},v1=${v1(previous, now)}`
    expect((await verifyWebhookV1(body, { 'x-service-signature': header }, previous)).id).toBe(event.id)
    expect((await verifyWebhookV1(body, { 'x-service-signature': header }, secret)).id).toBe(event.id)
    // The receiver's own rotation: it holds both secrets, the sender signs with one.
    const single = `t=${now},v1=${v1(previous, now)}`
    expect((await verifyWebhookV1(body, { 'x-service-signature': single }, [secret, previous])).id).toBe(event.id)
  })

  it('refuses a tampered body, another secret, a signature over another timestamp, and non-hex', async () => {
    const header = `t=${now},v1=${v1(secret, now)}`
    expect(await refusal(verifyWebhookV1(body.replace('12500', '1'), header, secret))).toBe('signature_mismatch')
    expect(await refusal(verifyWebhookV1(body, header, newSecret()))).toBe('signature_mismatch')
    expect(await refusal(verifyWebhookV1(body, `t=${now - 1},v1=${v1(secret, now)}`, secret))).toBe(
      'signature_mismatch'
    )
    expect(await refusal(verifyWebhookV1(body, `t=${now},v1=${'z'.repeat(64)}`, secret))).toBe('signature_mismatch')
    expect(await refusal(verifyWebhookV1(body, `t=${now},v1=${v1(secret, now).toUpperCase().slice(2)}`, secret))).toBe(
      'signature_mismatch'
    )
  })

  it('accepts 300 seconds of skew either way and refuses 301', async () => {
    const at = (t: number) => verifyWebhookV1(body, `t=${t},v1=${v1(secret, t)}`, secret, { now: () => now * 1000 })
    expect((await at(now - 300)).id).toBe(event.id)
    expect((await at(now + 300)).id).toBe(event.id)
    expect(await refusal(at(now - 301))).toBe('timestamp_out_of_tolerance')
    expect(await refusal(at(now + 301))).toBe('timestamp_out_of_tolerance')
    const late = verifyWebhookV1(body, `t=${now - 301},v1=${v1(secret, now - 301)}`, secret, { toleranceSeconds: 600 })
    expect((await late).id).toBe(event.id)
  })

  it('refuses a missing or malformed header, and a signed body that is not an event', async () => {
    expect(await refusal(verifyWebhookV1(body, {}, secret))).toBe('missing_signature')
    expect(await refusal(verifyWebhookV1(body, `v1=${v1(secret, now)}`, secret))).toBe('malformed_signature')
    expect(await refusal(verifyWebhookV1(body, `t=12.5,v1=${v1(secret, now)}`, secret))).toBe('malformed_signature')
    const notAnEvent = '["x"]'
    expect(await refusal(verifyWebhookV1(notAnEvent, `t=${now},v1=${v1(secret, now, notAnEvent)}`, secret))).toBe(
      'invalid_payload'
    )
  })
})

describe('v2 (Standard Webhooks)', () => {
  const signed = (keys: string[], id = event.id, t = now, payload = body) => ({
    'webhook-id': id,
    'webhook-timestamp': String(t),
    'webhook-signature': keys.map((k) => new Webhook(k).sign(id, new Date(t * 1000), payload)).join(' '),
  })

  it('accepts what the standardwebhooks library signs, and the library accepts the same delivery', async () => {
    const headers = signed([secret])
    expect(await verifyWebhookV2(body, headers, secret)).toEqual(event)
    expect(await verifyWebhook(Buffer.from(body), new Headers(headers), secret)).toEqual(event)
    expect(new Webhook(secret).verify(body, headers)).toEqual(event)
  })

  it('accepts any matching entry during a rotation', async () => {
    const previous = newSecret()
    const headers = signed([secret, previous])
    expect((await verifyWebhookV2(body, headers, previous)).id).toBe(event.id)
    expect((await verifyWebhookV2(body, headers, { secret: [newSecret(), secret] })).id).toBe(event.id)
  })

  it('refuses what the library refuses: a tampered body, another id, another secret, a stale timestamp', async () => {
    const headers = signed([secret])
    const tampered = body.replace('EUR', 'USD')
    expect(() => new Webhook(secret).verify(tampered, headers)).toThrow()
    expect(await refusal(verifyWebhookV2(tampered, headers, secret))).toBe('signature_mismatch')
    expect(await refusal(verifyWebhookV2(body, { ...headers, 'webhook-id': 'evt_other' }, secret))).toBe(
      'signature_mismatch'
    )
    expect(await refusal(verifyWebhookV2(body, headers, newSecret()))).toBe('signature_mismatch')
    const stale = signed([secret], event.id, now - 301)
    expect(() => new Webhook(secret).verify(body, stale)).toThrow()
    // Against the clock `now` was read from: on a slow machine a second passes before this line, and 301 seconds
    // ahead of the real clock would be only 300 (seen in CI).
    const clock = { now: () => now * 1000 }
    expect(await refusal(verifyWebhookV2(body, stale, secret, clock))).toBe('timestamp_out_of_tolerance')
    expect(await refusal(verifyWebhookV2(body, signed([secret], event.id, now + 301), secret, clock))).toBe(
      'timestamp_out_of_tolerance'
    )
  })

  it('verifies v1a Ed25519 signatures with the whpk_ public key, and only with the right key', async () => {
    const keyPair = () => generateKeyPairSync('ed25519')
    const { privateKey, publicKey } = keyPair()
    const whpk = (key: typeof publicKey) =>
      `whpk_${key.export({ format: 'der', type: 'spki' }).subarray(-32).toString('base64')}`
    const signature = sign(null, Buffer.from(`${event.id}.${now}.${body}`), privateKey).toString('base64')
    const headers = {
      'webhook-id': event.id,
      'webhook-timestamp': String(now),
      'webhook-signature': `v1a,${signature}`,
    }
    expect((await verifyWebhookV2(body, headers, { publicKey: whpk(publicKey) })).id).toBe(event.id)
    expect(await refusal(verifyWebhookV2(body, headers, { publicKey: whpk(keyPair().publicKey) }))).toBe(
      'signature_mismatch'
    )
    // An HMAC secret alone cannot vouch for an Ed25519 signature.
    expect(await refusal(verifyWebhookV2(body, headers, secret))).toBe('signature_mismatch')
  })

  it('refuses a delivery missing any of the three headers', async () => {
    const headers = signed([secret])
    for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature'] as const) {
      const partial: Record<string, string> = { ...headers }
      delete partial[name]
      expect(await refusal(verifyWebhookV2(body, partial, secret)), name).toBe('missing_signature')
    }
    expect(await refusal(verifyWebhook(body, { 'content-type': 'application/json' }, secret))).toBe('missing_signature')
  })

  it('treats a malformed secret as a configuration error, not as a bad delivery', async () => {
    await expect(verifyWebhookV2(body, signed([secret]), 'whsec_***')).rejects.toThrow(TypeError)
  })
})

describe('event types', () => {
  it('are the union of the payloads a generated webhooks interface documents', () => {
    // The shape openapi-typescript 7 generates for an OpenAPI 3.1 `webhooks` section.
    interface Generated {
      'booking.created': {
        parameters: { query?: never }
        get?: never
        post: {
          requestBody?: {
            content: { 'application/json': { id: string; type: 'booking.created'; data: { bookingId: string } } }
          }
          responses: { 200: { content?: never } }
        }
      }
      'child.registered': {
        post: {
          requestBody: {
            content: { 'application/json': { id: string; type: 'child.registered'; data: { childId: string } } }
          }
        }
      }
    }
    expectTypeOf<DescribedEvents<Generated>>().toEqualTypeOf<
      | { id: string; type: 'booking.created'; data: { bookingId: string } }
      | { id: string; type: 'child.registered'; data: { childId: string } }
    >()
    // A description without webhooks gives the envelope.
    expectTypeOf<DescribedEvents<Record<string, never>>>().toBeNever()
    expectTypeOf<WebhookEvent>().toHaveProperty('type')
  })
})
