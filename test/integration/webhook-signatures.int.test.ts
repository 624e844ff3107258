/**
 * Signed deliveries end to end: real endpoints created over HTTP, real events, real deliveries from the worker to a
 * receiver on loopback, verified with the SDK's verifier (what receivers are given), an independent HMAC computation (v1, Stripe's
 * construction) and the official Standard Webhooks library (v2).
 */
import { createHmac } from 'node:crypto'
import { Webhook } from 'standardwebhooks'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { verifyWebhookV1, verifyWebhookV2 } from '../../sdks/typescript/src/index.ts'
import { startPlatform, type Platform } from '../support/platform.ts'
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts'

let platform: Platform
let receiver: WebhookReceiver
let token: string

beforeAll(async () => {
  receiver = await startWebhookReceiver()
  platform = await startPlatform({
    overrides: {
      WEBHOOK_REQUIRE_HTTPS: 'false',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOK_RETRY_INITIAL_INTERVAL_MS: '300',
      WEBHOOK_RETRY_MAX_INTERVAL_MS: '1000',
    },
  })
  const client = await platform.newTenant(['children', 'webhooks'])
  token = await platform.token(client)
})

afterAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await platform?.stop()
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await receiver?.close()
})

async function createEndpoint(path: string, body: Record<string, unknown>) {
  const response = await platform.http.post('/v1/webhook-endpoints', {
    token,
    body: { url: receiver.url(path), ...body },
  })
  expect(response.status, JSON.stringify(response.body)).toBe(201)
  return response.body as { id: string; secret: string; publicKey: string | null }
}

const sendTest = async (endpointId: string) => {
  const response = await platform.http.post(`/v1/webhook-endpoints/${endpointId}/test`, { token })
  expect(response.status, JSON.stringify(response.body)).toBe(202)
  return response.body as { id: string; type: string }
}

describe('v1: X-Service-Signature', () => {
  it('signs t=<unix>,v1=<hex HMAC-SHA256("<t>.<raw body>")> with the secret as issued', async () => {
    const endpoint = await createEndpoint('/v1-basic', { events: ['*'], signingScheme: 'v1' })
    expect(endpoint.secret).toMatch(/^whsec_/)
    receiver.verifyWith('/v1-basic', { secret: endpoint.secret })
    const event = await sendTest(endpoint.id)

    const [delivery] = await receiver.waitFor('/v1-basic', 1)
    expect(delivery!.verificationError).toBeUndefined()
    expect(delivery!.verified).toMatchObject({ id: event.id })
    const header = delivery!.headers['x-service-signature'] as string
    const [, t, signature] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header)!
    expect(Math.abs(Number(t) - Date.now() / 1000)).toBeLessThan(30)
    expect(signature).toBe(createHmac('sha256', endpoint.secret).update(`${t}.${delivery!.body}`).digest('hex'))
    expect(delivery!.headers['content-type']).toBe('application/json')
    expect(JSON.parse(delivery!.body)).toEqual({
      id: event.id,
      type: 'webhook.test',
      createdAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      data: { endpointId: endpoint.id, message: expect.any(String) },
    })
  })

  it('carries two v1= signatures after a rotation; the old and the new secret both verify for 24 hours', async () => {
    const endpoint = await createEndpoint('/v1-rotation', { events: ['*'] })
    const rotated = await platform.http.post(`/v1/webhook-endpoints/${endpoint.id}/rotate-secret`, { token })
    expect(rotated.status).toBe(200)
    expect(rotated.body.secret).toMatch(/^whsec_/)
    expect(rotated.body.secret).not.toBe(endpoint.secret)
    const expires = Date.parse(rotated.body.previousSecretExpiresAt)
    expect(Math.abs(expires - (Date.now() + 24 * 3600 * 1000))).toBeLessThan(60_000)
    // The secret is never shown again.
    const read = await platform.http.get(`/v1/webhook-endpoints/${endpoint.id}`, { token })
    expect(read.body.secret).toBeUndefined()
    expect(JSON.stringify(read.body)).not.toContain(rotated.body.secret)

    await sendTest(endpoint.id)
    const [delivery] = await receiver.waitFor('/v1-rotation', 1)
    expect((delivery!.headers['x-service-signature'] as string).match(/v1=/g)).toHaveLength(2)
    for (const secret of [endpoint.secret, rotated.body.secret as string]) {
      expect((await verifyWebhookV1(delivery!.body, delivery!.headers, secret)).id).toMatch(/^evt_[0-9a-f]{32}$/)
    }
    await expect(verifyWebhookV1(delivery!.body, delivery!.headers, 'whsec_other')).rejects.toThrow()
  })
})

describe('v2: Standard Webhooks', () => {
  it('is verified by the official standardwebhooks library; webhook-id is the event id', async () => {
    const endpoint = await createEndpoint('/v2-basic', { events: ['child.registered'], signingScheme: 'v2' })
    const child = await platform.http.post('/v1/children', {
      token,
      body: { firstName: 'Ada', lastName: 'Quinn', dateOfBirth: '2022-05-01' },
    })
    expect(child.status).toBe(201)

    const [delivery] = await receiver.waitFor('/v2-basic', 1)
    const payload = new Webhook(endpoint.secret).verify(
      delivery!.body,
      delivery!.headers as Record<string, string>
    ) as {
      id: string
      type: string
      data: { childId: string }
    }
    expect(payload.type).toBe('child.registered')
    expect(payload.data.childId).toBe(child.body.id)
    expect(delivery!.headers['webhook-id']).toBe(payload.id)
    expect(delivery!.headers['x-service-signature']).toBeUndefined()
    // The payload carries ids only, never the child's name or date of birth.
    expect(delivery!.body).not.toContain('Ada')
    expect(delivery!.body).not.toContain('2022-05-01')
    // The same envelope as GET /v1/events/{id}.
    const stored = await platform.http.get(`/v1/events/${payload.id}`, { token })
    expect(stored.body).toEqual(JSON.parse(delivery!.body))
  })

  it('space-separates a signature per secret during a rotation; the library accepts the old and the new secret', async () => {
    const endpoint = await createEndpoint('/v2-rotation', { events: ['*'], signingScheme: 'v2' })
    const rotated = await platform.http.post(`/v1/webhook-endpoints/${endpoint.id}/rotate-secret`, { token })
    await sendTest(endpoint.id)
    const [delivery] = await receiver.waitFor('/v2-rotation', 1)
    const headers = delivery!.headers as Record<string, string>
    expect(headers['webhook-signature']!.split(' ')).toHaveLength(2)
    const sent: unknown = JSON.parse(delivery!.body)
    expect(new Webhook(endpoint.secret).verify(delivery!.body, headers)).toEqual(sent)
    expect(new Webhook(rotated.body.secret).verify(delivery!.body, headers)).toEqual(sent)
  })

  it('adds v1a Ed25519 signatures that verify with the published public key alone', async () => {
    const endpoint = await createEndpoint('/v2-ed25519', {
      events: ['*'],
      signingScheme: 'v2',
      asymmetricSigning: true,
    })
    expect(endpoint.publicKey).toMatch(/^whpk_/)
    const read = await platform.http.get(`/v1/webhook-endpoints/${endpoint.id}`, { token })
    expect(read.body.publicKey).toBe(endpoint.publicKey)
    receiver.verifyWith('/v2-ed25519', { publicKey: endpoint.publicKey! })
    await sendTest(endpoint.id)
    const [delivery] = await receiver.waitFor('/v2-ed25519', 1)
    expect(delivery!.verificationError).toBeUndefined()
    expect(delivery!.headers['webhook-signature']).toMatch(/^v1,\S+ v1a,\S+$/)
    expect(await verifyWebhookV2(delivery!.body, delivery!.headers, { publicKey: endpoint.publicKey! })).toMatchObject({
      type: 'webhook.test',
    })
  })

  it('refuses asymmetric signing on a v1 endpoint', async () => {
    const response = await platform.http.post('/v1/webhook-endpoints', {
      token,
      body: { url: receiver.url('/nope'), events: ['*'], signingScheme: 'v1', asymmetricSigning: true },
    })
    expect(response.status).toBe(400)
    expect(response.body.errors).toContainEqual(
      expect.objectContaining({ path: 'asymmetricSigning', code: 'requires_v2' })
    )
  })
})

describe('every attempt is signed afresh', () => {
  it('a retried delivery carries a new signature that still verifies', async () => {
    const endpoint = await createEndpoint('/retry-signed', { events: ['*'], signingScheme: 'v2' })
    receiver.respond('/retry-signed', (_d, n) => (n === 1 ? { status: 500 } : { status: 200 }))
    await sendTest(endpoint.id)
    const deliveries = await receiver.waitFor('/retry-signed', 2)
    for (const delivery of deliveries) {
      expect(new Webhook(endpoint.secret).verify(delivery.body, delivery.headers as Record<string, string>)).toEqual(
        JSON.parse(delivery.body)
      )
    }
    expect(deliveries[0]!.headers['webhook-id']).toBe(deliveries[1]!.headers['webhook-id'])
  })
})
