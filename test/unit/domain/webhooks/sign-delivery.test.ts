/**
 * Signing (server) against verifying (receivers): the SDK's verifier (sdks/typescript/src/webhooks, the one receivers are given),
 * an independent re-computation of Stripe's v1 construction, and the official Standard Webhooks library for v2.
 */
import { createHmac } from 'node:crypto'
import { Webhook } from 'standardwebhooks'
import { describe, expect, it } from 'vitest'
import { signatureHeaders, V1_SIGNATURE_HEADER } from '../../../../domain/webhooks/sign-delivery.ts'
import { newSigningKey, newWebhookSecret, publicKeyOf } from '../../../../domain/webhooks/webhook-secrets.ts'
import {
  verifyWebhook,
  verifyWebhookV1,
  verifyWebhookV2,
  WebhookVerificationError,
} from '../../../../sdks/typescript/src/index.ts'

const body = JSON.stringify({
  id: 'evt_1',
  type: 'booking.created',
  createdAt: '2026-11-21T12:00:00.000Z',
  data: { bookingId: 'apt_1' },
})
const now = new Date('2026-11-21T12:00:10Z')
const timestamp = Math.floor(now.getTime() / 1000)
const content = { eventId: 'evt_1', timestamp, body }
/** The receiver's clock, as the SDK takes it. */
const at = (date: Date) => ({ now: () => date.getTime() })

async function failure(run: () => Promise<unknown>): Promise<string> {
  try {
    await run()
  } catch (error) {
    expect(error).toBeInstanceOf(WebhookVerificationError)
    return (error as WebhookVerificationError).code
  }
  throw new Error('verification passed')
}

describe('v1 (X-Service-Signature, Stripe construction)', () => {
  const secret = newWebhookSecret()
  const headers = signatureHeaders({ scheme: 'v1', secrets: [secret], signingKeys: [] }, content)

  it('is t=<unix>,v1=<hex HMAC-SHA256 of "<t>.<body>"> keyed with the secret string as issued', () => {
    const expected = createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')
    expect(headers).toEqual({ [V1_SIGNATURE_HEADER]: `t=${timestamp},v1=${expected}` })
  })

  it('verifies, and refuses a changed body, a wrong secret, a stale or future timestamp', async () => {
    expect(await verifyWebhookV1(body, headers, secret, at(now))).toMatchObject({ id: 'evt_1' })
    expect(await failure(() => verifyWebhookV1(body.replace('apt_1', 'apt_2'), headers, secret, at(now)))).toBe(
      'signature_mismatch'
    )
    expect(await failure(() => verifyWebhookV1(body, headers, newWebhookSecret(), at(now)))).toBe('signature_mismatch')
    for (const skewMs of [301_000, -301_000]) {
      expect(await failure(() => verifyWebhookV1(body, headers, secret, at(new Date(now.getTime() + skewMs))))).toBe(
        'timestamp_out_of_tolerance'
      )
    }
    expect(await failure(() => verifyWebhookV1(body, {}, secret, at(now)))).toBe('missing_signature')
    expect(await failure(() => verifyWebhookV1(body, { 'x-service-signature': 'v1=abc' }, secret, at(now)))).toBe(
      'malformed_signature'
    )
  })

  it('signs with both secrets during a rotation, and either one verifies', async () => {
    const next = newWebhookSecret()
    const rotated = signatureHeaders({ scheme: 'v1', secrets: [next, secret], signingKeys: [] }, content)
    expect(rotated[V1_SIGNATURE_HEADER]!.match(/v1=/g)).toHaveLength(2)
    expect((await verifyWebhookV1(body, rotated, secret, at(now))).id).toBe('evt_1')
    expect((await verifyWebhookV1(body, rotated, next, at(now))).id).toBe('evt_1')
  })
})

describe('v2 (Standard Webhooks)', () => {
  const secret = newWebhookSecret()

  it('verifies with the official standardwebhooks library and with ours', async () => {
    const headers = signatureHeaders(
      { scheme: 'v2', secrets: [secret], signingKeys: [] },
      { ...content, timestamp: Math.floor(Date.now() / 1000) }
    )
    expect(headers['webhook-id']).toBe('evt_1')
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/)
    expect(new Webhook(secret).verify(body, headers)).toMatchObject({ id: 'evt_1', type: 'booking.created' })
    expect(await verifyWebhook(body, headers, secret)).toMatchObject({ id: 'evt_1' })
    expect(() => new Webhook(newWebhookSecret()).verify(body, headers)).toThrow()
  })

  it('space-separates one signature per secret during a rotation; the library accepts either secret', () => {
    const next = newWebhookSecret()
    const headers = signatureHeaders(
      { scheme: 'v2', secrets: [next, secret], signingKeys: [] },
      { ...content, timestamp: Math.floor(Date.now() / 1000) }
    )
    expect(headers['webhook-signature']!.split(' ')).toHaveLength(2)
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body))
    expect(new Webhook(next).verify(body, headers)).toEqual(JSON.parse(body))
  })

  it('adds v1a Ed25519 signatures verifiable with the published whpk_ public key alone', async () => {
    const key = newSigningKey()
    const publicKey = publicKeyOf(key)
    expect(publicKey).toMatch(/^whpk_[A-Za-z0-9+/]{43}=$/)
    const headers = signatureHeaders({ scheme: 'v2', secrets: [secret], signingKeys: [key] }, content)
    expect(headers['webhook-signature']).toMatch(/^v1,\S+ v1a,\S+$/)
    expect((await verifyWebhookV2(body, headers, { publicKey }, at(now))).id).toBe('evt_1')
    expect(
      await failure(() => verifyWebhookV2(body, headers, { publicKey: publicKeyOf(newSigningKey()) }, at(now)))
    ).toBe('signature_mismatch')
    expect(await failure(() => verifyWebhookV2(`${body} `, headers, { publicKey }, at(now)))).toBe('signature_mismatch')
  })
})

describe('either scheme through one entry point', () => {
  it('accepts v1, v2 and v1a deliveries as the platform signs them, and refuses a tampered one', async () => {
    const secret = newWebhookSecret()
    const key = newSigningKey()
    const fresh = { ...content, timestamp: Math.floor(Date.now() / 1000) }
    const v1 = signatureHeaders({ scheme: 'v1', secrets: [secret], signingKeys: [] }, fresh)
    const v2 = signatureHeaders({ scheme: 'v2', secrets: [secret], signingKeys: [key] }, fresh)
    expect(await verifyWebhook(body, v1, secret)).toMatchObject({ id: 'evt_1' })
    expect(await verifyWebhook(body, v2, secret)).toMatchObject({ id: 'evt_1' })
    expect(await verifyWebhook(body, v2, { publicKey: publicKeyOf(key) })).toMatchObject({ id: 'evt_1' })
    await expect(verifyWebhook(`${body} `, v1, secret)).rejects.toThrow()
  })
})
