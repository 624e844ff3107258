/**
 * One attempt of a queued delivery (attempt-delivery.ts: sign, POST, decide) against a real receiver on 127.0.0.1,
 * through the poster a worker builds: what it sends, and what it concludes from the answer. Recording the attempt
 * (the endpoint's failing clock, the breaker, a disable after too long) is the integration suite's, on PostgreSQL
 * (webhook-queue, webhook-delivery-window, webhook-endpoint-retry).
 */
import { createHmac } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { attemptDelivery } from '../../../../domain/webhooks/attempt-delivery.ts'
import type { QueuedDelivery } from '../../../../domain/webhooks/queued-delivery.ts'
import { createWebhookPoster } from '../../../../adapters/webhook-http/webhook-poster.ts'
import { createSecretBox, DEVELOPMENT_KEYRING } from '../../../../infra/secret-box.ts'
import { startWebhookReceiver, type ReceivedDelivery, type WebhookReceiver } from '../../../support/webhook-receiver.ts'

const DAY = 86_400_000
const retry = { windowMs: DAY, initialIntervalMs: 5_000, maxIntervalMs: 3_600_000 }

let receiver: WebhookReceiver

beforeAll(async () => {
  receiver = await startWebhookReceiver()
  receiver.respond('/signed', () => ({ status: 204 }))
  receiver.respond('/gone', () => ({ status: 410 }))
  receiver.respond('/fail', () => ({ status: 500 }))
  receiver.respond('/busy', () => ({ status: 429, headers: { 'Retry-After': '120' } }))
  receiver.respond('/hang', () => 'hang')
})

afterAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await receiver?.close()
})

const SECRET = 'whsec_current'
const PREVIOUS = 'whsec_previous'
// The current secret is stored sealed, the previous one in clear (a row written before sealing): both sign.
const secrets = createSecretBox(DEVELOPMENT_KEYRING)

function queued(
  options: {
    path?: string
    attemptCount?: number
    firstAttemptAt?: Date | null
    enabled?: boolean
    grantLapsed?: boolean
    previousSecretExpiresAt?: Date
  } = {}
): QueuedDelivery {
  return {
    id: 'whd_1',
    tenantId: 'ten_1',
    endpointId: 'whe_1',
    kind: 'EVENT',
    attemptCount: options.attemptCount ?? 0,
    firstAttemptAt: options.firstAttemptAt ?? null,
    event: {
      id: 'evt_1',
      type: 'appointment.booked',
      createdAt: new Date('2026-11-20T10:00:00Z'),
      data: { appointmentId: 'apt_1' },
    },
    endpoint: {
      url: receiver.url(options.path ?? '/ok'),
      signingScheme: 'V1',
      secret: secrets.seal(SECRET),
      previousSecret: options.previousSecretExpiresAt ? PREVIOUS : null,
      previousSecretExpiresAt: options.previousSecretExpiresAt ?? null,
      signingKey: null,
      previousSigningKey: null,
      enabled: options.enabled ?? true,
      grantLapsed: options.grantLapsed ?? false,
      failingSince: null,
    },
  }
}

/**
 * An attempt as a worker makes it: its own poster under the network policy (loopback allowed unless `strict`). Its
 * clock stands still, so a retry's delay is exactly what the attempt decided, whatever the machine's load.
 */
const attempt = (delivery: QueuedDelivery, strict = false) => {
  const at = new Date()
  return attemptDelivery(
    {
      poster: createWebhookPoster({ timeoutMs: 300, network: { allowPrivateNetworks: !strict } }),
      retry,
      now: () => at,
      secrets,
    },
    delivery
  )
}

const v1 = (secret: string, t: string, body: string) =>
  createHmac('sha256', secret).update(`${t}.${body}`).digest('hex')

const signaturesOf = (hit: ReceivedDelivery) => {
  const [t, ...signatures] = String(hit.headers['x-service-signature']).split(',')
  return { t: t!.replace('t=', ''), signatures }
}

describe('attemptDelivery', () => {
  it('posts the event envelope signed with the endpoint secret, and a 2xx succeeds', async () => {
    const before = Math.floor(Date.now() / 1000)
    const record = await attempt(
      queued({ path: '/signed', attemptCount: 2, firstAttemptAt: new Date(Date.now() - 60_000) })
    )
    expect(record).toMatchObject({ number: 3, attempted: true, statusCode: 204, succeeded: true, status: 'SUCCEEDED' })

    const hits = receiver.received('/signed')
    expect(hits).toHaveLength(1)
    const { headers, body } = hits[0]!
    expect(JSON.parse(body)).toEqual({
      id: 'evt_1',
      type: 'appointment.booked',
      createdAt: '2026-11-20T10:00:00.000Z',
      data: { appointmentId: 'apt_1' },
    })
    expect(headers['content-type']).toBe('application/json')
    const { t, signatures } = signaturesOf(hits[0]!)
    expect(Number(t)).toBeGreaterThanOrEqual(before)
    // Signed over exactly the bytes received, with the current secret only (no rotation in progress).
    expect(signatures).toEqual([`v1=${v1(SECRET, t, body)}`])
  })

  it('signs with both secrets while the previous one is in its rotation overlap, and only the current one after', async () => {
    await attempt(queued({ path: '/rotation', previousSecretExpiresAt: new Date(Date.now() + 60_000) }))
    await attempt(queued({ path: '/rotation', previousSecretExpiresAt: new Date(Date.now() - 1) }))
    const hits = receiver.received('/rotation')
    const during = signaturesOf(hits[0]!)
    expect(during.signatures).toEqual([
      `v1=${v1(SECRET, during.t, hits[0]!.body)}`,
      `v1=${v1(PREVIOUS, during.t, hits[0]!.body)}`,
    ])
    const after = signaturesOf(hits[1]!)
    expect(after.signatures).toEqual([`v1=${v1(SECRET, after.t, hits[1]!.body)}`])
  })

  it('ends the delivery on 410 Gone and marks the endpoint gone', async () => {
    expect(await attempt(queued({ path: '/gone' }))).toMatchObject({
      status: 'FAILED',
      gone: true,
      statusCode: 410,
      lastError: 'receiver answered 410 Gone: endpoint disabled',
    })
  })

  it('retries a 5xx after a jittered backoff, opening the retry window at this first attempt', async () => {
    const record = await attempt(queued({ path: '/fail' }))
    expect(record).toMatchObject({ number: 1, status: 'PENDING', statusCode: 500, succeeded: false, gone: false })
    expect(record.firstAttemptAt).toEqual(record.attemptedAt)
    // The first retry's nominal delay is 5 s: half fixed, half jitter.
    const delay = record.nextAttemptAt!.getTime() - record.attemptedAt.getTime()
    expect(delay).toBeGreaterThanOrEqual(2_500)
    expect(delay).toBeLessThanOrEqual(5_000)
  })

  it('waits at least what a 429 asked for in Retry-After', async () => {
    const record = await attempt(queued({ path: '/busy' }))
    expect(record.retryAfterMs).toBe(120_000)
    expect(record.nextAttemptAt!.getTime() - record.attemptedAt.getTime()).toBeGreaterThanOrEqual(120_000)
  })

  it('treats a receiver that does not answer within the timeout as a failed attempt to retry', async () => {
    const started = Date.now()
    const record = await attempt(queued({ path: '/hang' }))
    expect(Date.now() - started).toBeLessThan(2_000)
    expect(record).toMatchObject({ status: 'PENDING', statusCode: null, error: 'no response within 300 ms' })
  })

  it('refuses to connect to a loopback address under the strict network policy, and records why', async () => {
    const record = await attempt(queued({ path: '/strict' }), true)
    expect(receiver.received('/strict')).toHaveLength(0)
    expect(record).toMatchObject({ status: 'PENDING', statusCode: null, succeeded: false })
    expect(String(record.error)).toMatch(/127\.0\.0\.1/)
  })

  it('fails the delivery once the retry window is over, naming the last status', async () => {
    const record = await attempt(
      queued({ path: '/fail', attemptCount: 4, firstAttemptAt: new Date(Date.now() - DAY - 1_000) })
    )
    expect(record).toMatchObject({ number: 5, status: 'FAILED', lastError: 'HTTP 500; retry window over' })
  })

  it('does not post to a disabled endpoint, or one whose grantor no longer grants it: the delivery ends at once', async () => {
    expect(await attempt(queued({ path: '/disabled', enabled: false }))).toMatchObject({
      attempted: false,
      status: 'FAILED',
      lastError: 'endpoint disabled',
    })
    expect(await attempt(queued({ path: '/disabled', enabled: false, grantLapsed: true }))).toMatchObject({
      attempted: false,
      status: 'FAILED',
      lastError: expect.stringContaining('grant lapsed'),
    })
    expect(receiver.received('/disabled')).toHaveLength(0)
  })
})
