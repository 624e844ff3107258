/**
 * The webhook delivery activity (one attempt: load, sign, POST, classify, record) against a real receiver on
 * 127.0.0.1. The database is a small in-memory fake of the few rows and calls the attempt touches (see
 * fake-unit-of-work.ts): these tests check the activity's decisions — what it sends, what it concludes from the
 * answer, what it writes and what it tells the workflow — not PostgreSQL.
 */
import { createHmac } from 'node:crypto'
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { createWebhookActivities } from '../../../activities/webhook-activities.ts'
import type { WebhookSettings } from '../../../domain/webhooks/webhook-settings.ts'
import { createSecretBox, DEVELOPMENT_KEYRING } from '../../../infra/secret-box.ts'
import { fakeDb } from './fake-unit-of-work.ts'

vi.mock('../../../infra/unit-of-work.ts', () => import('./fake-unit-of-work.ts'))

const DAY = 86_400_000
const retry = { windowMs: DAY, initialIntervalMs: 5_000, maxIntervalMs: 3_600_000 }
const settings = (allowPrivateNetworks: boolean): WebhookSettings => ({
  requireHttps: false,
  network: { allowPrivateNetworks },
  timeoutMs: 300,
  retry,
  disableAfterMs: 5 * DAY,
  circuitFailures: 5,
  pump: { partitions: 1, pollMs: 50, concurrency: 8, endpointConcurrency: 4, leaseMs: 60_000 },
})

// --- the receiver ---------------------------------------------------------------------------------------------
interface Hit {
  path: string
  headers: IncomingHttpHeaders
  body: string
}
let server: Server
let base: string
const hits: Hit[] = []

beforeAll(async () => {
  server = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      hits.push({ path: request.url ?? '', headers: request.headers, body: Buffer.concat(chunks).toString() })
      if (request.url === '/ok') response.writeHead(204).end()
      else if (request.url === '/gone') response.writeHead(410).end()
      else if (request.url === '/fail') response.writeHead(500).end()
      else if (request.url === '/busy') response.writeHead(429, { 'Retry-After': '120' }).end()
      // '/hang': never answers
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})

afterAll(async () => {
  server.closeAllConnections()
  await new Promise((resolve) => server.close(resolve))
})

beforeEach(() => {
  hits.length = 0
})

// --- the fake rows ----------------------------------------------------------------------------------------------
type Where = Record<string, unknown>

/** Whether a row satisfies a Prisma `where` of the shapes the endpoint-status writes use. */
function matches(row: Record<string, unknown>, where: Where): boolean {
  return Object.entries(where).every(([key, condition]) => {
    const value = row[key]
    if (condition === null) return value === null
    if (condition instanceof Date || typeof condition !== 'object') {
      return condition instanceof Date
        ? value instanceof Date && value.getTime() === condition.getTime()
        : value === condition
    }
    const c = condition as { not?: null; lte?: Date }
    if ('not' in c) return value !== null
    if (c.lte) return value instanceof Date && value <= c.lte
    return false
  })
}

interface StoreOptions {
  path?: string
  status?: 'PENDING' | 'SUCCEEDED' | 'FAILED'
  attemptCount?: number
  nextAttemptAt?: Date | null
  firstAttemptAt?: Date | null
  enabled?: boolean
  failingSince?: Date | null
  previousSecret?: string | null
  previousSecretExpiresAt?: Date | null
  /** Makes the attempt's insert fail as a duplicate, after `beforeConflict` changed the rows (the other execution). */
  conflict?: (store: Store) => void
  missing?: boolean
}

type Store = ReturnType<typeof createStore>

const SECRET = 'whsec_current'
const PREVIOUS = 'whsec_previous'
// The current secret is stored sealed, the previous one in clear (a row written before sealing): both sign.
const secrets = createSecretBox(DEVELOPMENT_KEYRING)

function createStore(options: StoreOptions = {}) {
  const delivery: Record<string, unknown> = {
    id: 'whd_1',
    status: options.status ?? 'PENDING',
    attemptCount: options.attemptCount ?? 0,
    nextAttemptAt: options.nextAttemptAt ?? null,
    lastError: null,
    lastStatusCode: null,
    completedAt: null,
  }
  const endpoint: Record<string, unknown> = {
    id: 'whe_1',
    url: `${base}${options.path ?? '/ok'}`,
    enabled: options.enabled ?? true,
    failingSince: options.failingSince ?? null,
    disabledReason: null,
  }
  const attempts: Array<Record<string, unknown>> = []
  if (options.firstAttemptAt) attempts.push({ number: 1, attemptedAt: options.firstAttemptAt })
  const events: Array<{ type: string; data: Record<string, unknown> }> = []
  const queried: unknown[][] = []
  const event = {
    id: 'evt_1',
    type: 'appointment.booked',
    createdAt: new Date('2026-11-20T10:00:00Z'),
    data: { appointmentId: 'apt_1' },
  }

  const tx = {
    $queryRaw(strings: TemplateStringsArray, ...values: unknown[]) {
      // recordEvent's INSERT (domain/events/record-event.ts): id, tenant, type, data as JSON, ...
      if (strings.join('?').includes('INSERT INTO events')) {
        events.push({ type: values[2] as string, data: JSON.parse(values[3] as string) as Record<string, unknown> })
        return Promise.resolve([{ heard: false }])
      }
      queried.push(values)
      if (options.missing) return Promise.resolve([])
      return Promise.resolve([
        {
          id: delivery.id,
          status: delivery.status,
          attempt_count: delivery.attemptCount,
          next_attempt_at: delivery.nextAttemptAt,
          endpoint_id: endpoint.id,
          first_attempt_at: attempts.find((a) => a.number === 1)?.attemptedAt ?? null,
          event_id: event.id,
          event_type: event.type,
          event_created_at: event.createdAt,
          event_data: event.data,
          url: endpoint.url,
          signing_scheme: 'V1',
          secret: secrets.seal(SECRET),
          previous_secret: options.previousSecret ?? null,
          previous_secret_expires_at: options.previousSecretExpiresAt ?? null,
          signing_key: null,
          previous_signing_key: null,
          enabled: endpoint.enabled,
          failing_since: endpoint.failingSince,
        },
      ])
    },
    webhookDelivery: {
      async updateMany({ where, data }: { where: Where; data: Where }) {
        if (!matches(delivery, where)) return { count: 0 }
        Object.assign(delivery, data)
        return { count: 1 }
      },
      async update({ data }: { where: Where; data: Where }) {
        Object.assign(delivery, data)
        return delivery
      },
    },
    webhookDeliveryAttempt: {
      async create({ data }: { data: Record<string, unknown> }) {
        if (options.conflict) {
          options.conflict(store)
          throw Object.assign(new Error('Unique constraint failed'), { code: 'P2002' })
        }
        attempts.push(data)
        return data
      },
    },
    webhookEndpoint: {
      async updateMany({ where, data }: { where: Where; data: Where }) {
        if (!matches(endpoint, where)) return { count: 0 }
        Object.assign(endpoint, data)
        return { count: 1 }
      },
    },
  }
  const store = { delivery, endpoint, attempts, events, queried, db: fakeDb(tx) }
  return store
}

/** One attempt through the activity as the worker builds it (its own poster under `settings.network`). */
function attempt(store: Store, input: { attempt?: number; firstAttemptAt?: number } = {}, strict = false) {
  const { attemptWebhookDelivery } = createWebhookActivities({ db: store.db, webhooks: settings(!strict), secrets })
  return attemptWebhookDelivery({
    tenantId: 'ten_1',
    deliveryId: 'whd_1',
    attempt: input.attempt ?? 1,
    firstAttemptAt: input.firstAttemptAt,
    retry,
  })
}

const v1 = (secret: string, t: string, body: string) =>
  createHmac('sha256', secret).update(`${t}.${body}`).digest('hex')

describe('attemptWebhookDelivery', () => {
  it('posts the event envelope signed with the endpoint secret and records a success', async () => {
    const store = createStore()
    const before = Math.floor(Date.now() / 1000)
    expect(await attempt(store)).toEqual({ outcome: 'SUCCEEDED' })

    expect(hits).toHaveLength(1)
    const { headers, body } = hits[0]!
    expect(JSON.parse(body)).toEqual({
      id: 'evt_1',
      type: 'appointment.booked',
      createdAt: '2026-11-20T10:00:00.000Z',
      data: { appointmentId: 'apt_1' },
    })
    expect(headers['content-type']).toBe('application/json')
    const [t, ...signatures] = String(headers['x-service-signature']).split(',')
    const timestamp = t!.replace('t=', '')
    expect(Number(timestamp)).toBeGreaterThanOrEqual(before)
    // Signed over exactly the bytes received, with the current secret only (no rotation in progress).
    expect(signatures).toEqual([`v1=${v1(SECRET, timestamp, body)}`])

    expect(store.attempts).toMatchObject([
      { number: 1, statusCode: 204, succeeded: true, error: null, tenantId: 'ten_1' },
    ])
    expect(store.delivery).toMatchObject({
      status: 'SUCCEEDED',
      attemptCount: 1,
      lastStatusCode: 204,
      nextAttemptAt: null,
    })
    expect(store.delivery.completedAt).toBeInstanceOf(Date)
    // The load is scoped to the workflow's delivery and tenant (after the grantor check's fragment).
    expect(store.queried[0]?.slice(-2)).toEqual(['whd_1', 'ten_1'])
  })

  it('signs with both secrets while the previous one is still in its rotation overlap, and only the current one after', async () => {
    const during = createStore({ previousSecret: PREVIOUS, previousSecretExpiresAt: new Date(Date.now() + 60_000) })
    await attempt(during)
    const after = createStore({ previousSecret: PREVIOUS, previousSecretExpiresAt: new Date(Date.now() - 1) })
    await attempt(after)

    const signaturesOf = (hit: Hit) => {
      const [t, ...signatures] = String(hit.headers['x-service-signature']).split(',')
      return { t: t!.replace('t=', ''), signatures }
    }
    const first = signaturesOf(hits[0]!)
    expect(first.signatures).toEqual([
      `v1=${v1(SECRET, first.t, hits[0]!.body)}`,
      `v1=${v1(PREVIOUS, first.t, hits[0]!.body)}`,
    ])
    const second = signaturesOf(hits[1]!)
    expect(second.signatures).toEqual([`v1=${v1(SECRET, second.t, hits[1]!.body)}`])
  })

  it('ends the delivery on 410 Gone and disables the endpoint, telling the tenant', async () => {
    const store = createStore({ path: '/gone' })
    expect(await attempt(store)).toEqual({ outcome: 'FAILED' })
    expect(store.delivery).toMatchObject({
      status: 'FAILED',
      lastStatusCode: 410,
      lastError: 'receiver answered 410 Gone: endpoint disabled',
    })
    expect(store.endpoint).toMatchObject({ enabled: false, disabledReason: 'GONE' })
    expect(store.events).toEqual([
      { type: 'webhook_endpoint.disabled', data: expect.objectContaining({ endpointId: 'whe_1', reason: 'GONE' }) },
    ])
  })

  it('retries a 5xx after a jittered backoff, starts the endpoint failing clock, and keeps the window start', async () => {
    const store = createStore({ path: '/fail' })
    const result = await attempt(store)
    expect(result.outcome).toBe('RETRY')
    if (result.outcome !== 'RETRY') return
    // The first retry's nominal delay is 5 s: half fixed, half jitter.
    expect(result.retryInMs).toBeGreaterThanOrEqual(2_500)
    expect(result.retryInMs).toBeLessThanOrEqual(5_000)
    // Attempt 1 opens the retry window: the workflow carries this instant into every later attempt.
    expect(result.firstAttemptAt).toBe((store.attempts[0]!.attemptedAt as Date).getTime())
    expect(store.attempts[0]).toMatchObject({ statusCode: 500, succeeded: false })
    expect(store.delivery).toMatchObject({ status: 'PENDING', attemptCount: 1, lastStatusCode: 500 })
    expect(store.delivery.nextAttemptAt).toBeInstanceOf(Date)
    expect(store.endpoint.failingSince).toEqual(store.attempts[0]!.attemptedAt)
    expect(store.endpoint.enabled).toBe(true)
  })

  it('waits at least what a 429 asked for in Retry-After', async () => {
    const store = createStore({ path: '/busy' })
    const result = await attempt(store)
    expect(result).toMatchObject({ outcome: 'RETRY', retryInMs: 120_000 })
  })

  it('treats a receiver that does not answer within the timeout as a failed attempt to retry', async () => {
    const store = createStore({ path: '/hang' })
    const started = Date.now()
    const result = await attempt(store)
    expect(Date.now() - started).toBeLessThan(2_000)
    expect(result.outcome).toBe('RETRY')
    expect(store.attempts[0]).toMatchObject({ statusCode: null, succeeded: false, error: 'no response within 300 ms' })
  })

  it('refuses to connect to a loopback address under the strict network policy, and records why', async () => {
    const store = createStore({ path: '/ok' })
    const result = await attempt(store, {}, true)
    expect(hits).toHaveLength(0)
    expect(result.outcome).toBe('RETRY')
    expect(store.attempts[0]).toMatchObject({ statusCode: null, succeeded: false })
    expect(String(store.attempts[0]!.error)).toMatch(/127\.0\.0\.1/)
  })

  it('fails the delivery once the retry window is over, naming the last status', async () => {
    const firstAttemptAt = Date.now() - DAY - 1_000
    const store = createStore({ path: '/fail', attemptCount: 4, firstAttemptAt: new Date(firstAttemptAt) })
    expect(await attempt(store, { attempt: 5, firstAttemptAt })).toEqual({ outcome: 'FAILED' })
    expect(store.delivery).toMatchObject({
      status: 'FAILED',
      attemptCount: 5,
      lastError: 'HTTP 500; retry window over',
    })
  })

  it('disables an endpoint that has been failing for longer than disableAfterMs, and fails the delivery', async () => {
    const store = createStore({ path: '/fail', failingSince: new Date(Date.now() - 6 * DAY) })
    expect(await attempt(store)).toEqual({ outcome: 'FAILED' })
    expect(store.delivery).toMatchObject({
      status: 'FAILED',
      lastError: 'endpoint disabled after failing for too long',
    })
    expect(store.endpoint).toMatchObject({ enabled: false, disabledReason: 'FAILING' })
    expect(store.events.map((e) => e.data.reason)).toEqual(['FAILING'])
  })

  it('stops the failing clock of an endpoint that answers again', async () => {
    const store = createStore({ path: '/ok', failingSince: new Date(Date.now() - DAY) })
    await attempt(store)
    expect(store.endpoint.failingSince).toBeNull()
    expect(store.endpoint.enabled).toBe(true)
  })

  it('does not post to a disabled endpoint: the delivery fails at once', async () => {
    const store = createStore({ enabled: false })
    expect(await attempt(store)).toEqual({ outcome: 'FAILED' })
    expect(hits).toHaveLength(0)
    expect(store.attempts).toHaveLength(0)
    expect(store.delivery).toMatchObject({ status: 'FAILED', lastError: 'endpoint disabled', nextAttemptAt: null })
  })

  it('abandons a delivery whose row is gone (endpoint or event deleted) without posting', async () => {
    const store = createStore({ missing: true })
    expect(await attempt(store)).toEqual({ outcome: 'ABANDONED' })
    expect(hits).toHaveLength(0)
  })

  it('answers an attempt already recorded from the record instead of posting again (an activity retried after a crash)', async () => {
    const firstAttemptAt = new Date(Date.now() - 30_000)
    const nextAttemptAt = new Date(Date.now() + 60_000)
    const store = createStore({ attemptCount: 2, firstAttemptAt, nextAttemptAt })
    const result = await attempt(store, { attempt: 2, firstAttemptAt: firstAttemptAt.getTime() })
    expect(hits).toHaveLength(0)
    expect(result).toMatchObject({ outcome: 'RETRY', firstAttemptAt: firstAttemptAt.getTime() })
    if (result.outcome !== 'RETRY') return
    expect(result.retryInMs).toBeGreaterThan(55_000)
    expect(result.retryInMs).toBeLessThanOrEqual(60_000)

    const done = createStore({ status: 'SUCCEEDED', attemptCount: 1 })
    expect(await attempt(done, { attempt: 2 })).toEqual({ outcome: 'SUCCEEDED' })
    expect(hits).toHaveLength(0)
  })

  it('lets the record of a concurrent execution of the same attempt decide when its insert loses the race', async () => {
    const store = createStore({
      path: '/fail',
      conflict: (s) => Object.assign(s.delivery, { status: 'SUCCEEDED', attemptCount: 1 }),
    })
    // This execution saw a 500, but the other one recorded a success first: the workflow is told SUCCEEDED.
    expect(await attempt(store)).toEqual({ outcome: 'SUCCEEDED' })
    expect(hits).toHaveLength(1)
  })
})
