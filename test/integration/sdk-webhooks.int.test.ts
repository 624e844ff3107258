/**
 * The README's story with real deliveries: an integrator registers webhook endpoints and books an appointment with
 * the SDK, the worker delivers `booking.created` to a receiver on loopback, and the SDK's verifier accepts each
 * delivery under its endpoint's scheme (v1; v2 HMAC; v2 Ed25519 with the public key alone), during a secret
 * rotation with either secret, and refuses it with another secret or a changed body.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  TherapyCareClient,
  verifyWebhook,
  verifyWebhookV2,
  WebhookVerificationError,
} from '../../sdks/typescript/src/index.ts'
import { createChildAndProvider, futureSlot } from '../support/fixtures.ts'
import { startPlatform, type Platform } from '../support/platform.ts'
import { startWebhookReceiver, type ReceivedDelivery, type WebhookReceiver } from '../support/webhook-receiver.ts'

let platform: Platform
let receiver: WebhookReceiver
let api: TherapyCareClient
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
  const client = await platform.newTenant(['children', 'providers', 'bookings', 'webhooks'])
  api = new TherapyCareClient({
    baseUrl: platform.api.url,
    clientId: client.client_id,
    clientSecret: client.client_secret,
  })
  token = await platform.token(client)
})

afterAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await platform?.stop()
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await receiver?.close()
})

/** Books an appointment through the SDK and returns it. */
async function book(days: number) {
  const { childId, providerId } = await createChildAndProvider(platform.http, token)
  return api.appointments.create({
    childId,
    providerId,
    type: 'THERAPY_SESSION',
    startsAt: futureSlot(days).toISOString(),
  })
}

const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => 'accepted',
    (e: unknown) => (e instanceof WebhookVerificationError ? e.code : e)
  )

/** The delivery on `path` of the event about `appointmentId`. */
async function deliveryFor(path: string, appointmentId: string): Promise<ReceivedDelivery> {
  let found: ReceivedDelivery | undefined
  for (let count = 1; !found; count++) {
    const received = await receiver.waitFor(path, count, 60_000)
    found = received.find((d) => JSON.parse(d.body).data?.bookingId === appointmentId)
  }
  return found
}

describe('verifying real deliveries with the SDK', () => {
  it('accepts booking.created under v1, v2 and v2 with Ed25519, and refuses it with another key or body', async () => {
    const [v1, v2, ed25519] = await Promise.all([
      api.webhookEndpoints.create({ url: receiver.url('/sdk-v1'), events: ['booking.created'], signingScheme: 'v1' }),
      api.webhookEndpoints.create({ url: receiver.url('/sdk-v2'), events: ['booking.created'], signingScheme: 'v2' }),
      api.webhookEndpoints.create({
        url: receiver.url('/sdk-v2-ed25519'),
        events: ['booking.created'],
        signingScheme: 'v2',
        asymmetricSigning: true,
      }),
    ])
    const appointment = await book(30)

    const deliveredV1 = await deliveryFor('/sdk-v1', appointment.id)
    expect(deliveredV1.headers['x-service-signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/)
    const event = await verifyWebhook(deliveredV1.body, deliveredV1.headers, v1.secret)
    expect(event).toMatchObject({
      type: 'booking.created',
      data: {
        bookingId: appointment.id,
        childId: appointment.childId,
        service: expect.any(String),
        currency: expect.any(String),
      },
    })
    expect(event.id).toMatch(/^evt_/)

    const deliveredV2 = await deliveryFor('/sdk-v2', appointment.id)
    expect(deliveredV2.headers['webhook-signature']).toMatch(/^v1,/)
    expect(await verifyWebhook(Buffer.from(deliveredV2.body), deliveredV2.headers, v2.secret)).toEqual(event)

    const deliveredEd = await deliveryFor('/sdk-v2-ed25519', appointment.id)
    expect(ed25519.publicKey).toMatch(/^whpk_/)
    expect(await verifyWebhookV2(deliveredEd.body, deliveredEd.headers, { publicKey: ed25519.publicKey! })).toEqual(
      event
    )

    // Each endpoint's secret is its own; a changed body breaks every signature.
    expect(await refusal(verifyWebhook(deliveredV1.body, deliveredV1.headers, v2.secret))).toBe('signature_mismatch')
    expect(await refusal(verifyWebhook(deliveredV2.body, deliveredV2.headers, v1.secret))).toBe('signature_mismatch')
    const forge = (body: string) => body.replace(appointment.id, 'apt_forged')
    expect(forge(deliveredV1.body)).not.toBe(deliveredV1.body)
    expect(await refusal(verifyWebhook(forge(deliveredV1.body), deliveredV1.headers, v1.secret))).toBe(
      'signature_mismatch'
    )
    expect(await refusal(verifyWebhook(forge(deliveredV2.body), deliveredV2.headers, v2.secret))).toBe(
      'signature_mismatch'
    )
    const publicKey = { publicKey: ed25519.publicKey! }
    expect(await refusal(verifyWebhookV2(forge(deliveredEd.body), deliveredEd.headers, publicKey))).toBe(
      'signature_mismatch'
    )
    // Replayed much later, the same delivery is refused.
    const later = { now: () => Date.now() + 301_000 }
    expect(await refusal(verifyWebhook(deliveredV1.body, deliveredV1.headers, v1.secret, later))).toBe(
      'timestamp_out_of_tolerance'
    )
  })

  it('accepts deliveries signed during a secret rotation with either the old or the new secret', async () => {
    const endpoint = await api.webhookEndpoints.create({
      url: receiver.url('/sdk-rotation'),
      events: ['booking.created'],
      signingScheme: 'v1',
    })
    const rotated = await api.request('POST', '/v1/webhook-endpoints/{id}/rotate-secret', {
      params: { id: endpoint.id },
    })
    expect(rotated.secret).not.toBe(endpoint.secret)
    const appointment = await book(31)

    const delivery = await deliveryFor('/sdk-rotation', appointment.id)
    expect((delivery.headers['x-service-signature'] as string).match(/v1=/g)).toHaveLength(2)
    for (const secret of [endpoint.secret, rotated.secret]) {
      expect((await verifyWebhook(delivery.body, delivery.headers, secret)).data).toMatchObject({
        bookingId: appointment.id,
      })
    }
  })
})
