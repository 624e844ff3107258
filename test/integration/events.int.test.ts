/**
 * Events as a transactional outbox: written with the change that causes them (a rollback leaves none), listed by
 * `GET /v1/events`, and delivered even when the process dies between commit and dispatch or Temporal is briefly
 * unreachable. Dispatching twice never delivers twice.
 */
import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { recordEvent } from '../../domain/events/record-event.ts'
import { newId } from '../../domain/ids.ts'
import { createWebhookDispatcher } from '../../domain/webhooks/webhook-dispatcher.ts'
import { webhookSettings } from '../../domain/webhooks/webhook-settings.ts'
import { createLogger } from '../../infra/logger.ts'
import { runInUnitOfWork } from '../../infra/unit-of-work.ts'
import { createChildAndProvider, futureSlot } from '../support/fixtures.ts'
import { eventually, startPlatform, type Platform } from '../support/platform.ts'
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.ts'
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts'

let platform: Platform
let receiver: WebhookReceiver
let proxy: TcpProxy

beforeAll(async () => {
  receiver = await startWebhookReceiver()
  // The API reaches Temporal only through the proxy; the worker and the test's client connect directly.
  proxy = await startTcpProxy(inject('temporalAddress'))
  platform = await startPlatform({
    overrides: {
      TEMPORAL_ADDRESS: proxy.address,
      WEBHOOK_REQUIRE_HTTPS: 'false',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOK_DISPATCH_INTERVAL_MS: '500',
    },
  })
})

afterAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await platform?.stop()
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await proxy?.close()
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await receiver?.close()
})

async function tenant(scopes = ['children', 'providers', 'bookings', 'webhooks']) {
  const client = await platform.newTenant(scopes)
  return { tenantId: client.tenantId, token: await platform.token(client) }
}

async function subscribe(token: string, path: string, events: string[] = ['*']) {
  const response = await platform.http.post('/v1/webhook-endpoints', {
    token,
    body: { url: receiver.url(path), events },
  })
  expect(response.status).toBe(201)
  return response.body.id as string
}

const db = () => platform.api.deps.db

describe('GET /v1/events', () => {
  it('lists the events operations emitted, in the envelope, filtered and paginated', async () => {
    const { token } = await tenant()
    const { childId, providerId } = await createChildAndProvider(platform.http, token)
    const booked = await platform.http.post('/v1/appointments', {
      token,
      body: { childId, providerId, type: 'THERAPY_SESSION', startsAt: futureSlot(7).toISOString() },
    })
    expect(booked.status).toBe(201)

    const all = await platform.http.get('/v1/events', { token })
    expect(all.status).toBe(200)
    const types = all.body.data.map((e: { type: string }) => e.type)
    expect(types).toEqual(expect.arrayContaining(['booking.created', 'child.registered']))
    // Newest first.
    expect(types[0]).toBe('booking.created')

    const created = await platform.http.get('/v1/events?type=booking.created', { token })
    expect(created.body.data).toHaveLength(1)
    const event = created.body.data[0]
    expect(Object.keys(event).sort()).toEqual(['createdAt', 'data', 'id', 'type'])
    expect(event.id).toMatch(/^evt_/)
    expect(event.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/)
    // Spec Part 2, exactly.
    expect(event.data).toEqual({
      bookingId: booked.body.id,
      childId,
      service: expect.any(String),
      amount: expect.any(Number),
      currency: expect.stringMatching(/^[A-Z]{3}$/),
    })

    const one = await platform.http.get(`/v1/events/${event.id}`, { token })
    expect(one.body).toEqual(event)

    const page1 = await platform.http.get('/v1/events?limit=1&sort=createdAt', { token })
    expect(page1.body.data[0].type).toBe('child.registered')
    const page2 = await platform.http.get(`/v1/events?limit=1&sort=createdAt&cursor=${page1.body.nextCursor}`, {
      token,
    })
    expect(page2.body.data[0].id).not.toBe(page1.body.data[0].id)

    const later = await platform.http.get(
      `/v1/events?from=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`,
      { token }
    )
    expect(later.body.data).toEqual([])
    const bad = await platform.http.get('/v1/events?type=not.a.type', { token })
    expect(bad.status).toBe(400)

    // Another tenant sees none of it.
    const other = await tenant(['webhooks'])
    expect((await platform.http.get('/v1/events', { token: other.token })).body.data).toEqual([])
    const hidden = await platform.http.get(`/v1/events/${event.id}`, { token: other.token })
    expect(hidden.status).toBe(404)
    expect(hidden.body.code).toBe('not_found')
  })

  it('needs webhooks.read', async () => {
    const { token } = await tenant(['children'])
    const response = await platform.http.get('/v1/events', { token })
    expect(response.status).toBe(403)
    expect(response.body.code).toBe('insufficient_scope')
  })
})

describe('the transactional outbox', () => {
  it('leaves no event and no delivery when the change rolls back', async () => {
    const { tenantId, token } = await tenant()
    await subscribe(token, '/rollback')
    const childId = newId('child')
    await expect(
      runInUnitOfWork(db(), tenantId, async (uow) => {
        await recordEvent(uow, 'child.registered', { childId, locationId: null })
        throw new Error('the change failed')
      })
    ).rejects.toThrow('the change failed')
    await new Promise((resolve) => setTimeout(resolve, 1500))
    const stored = await db().event.findMany({ where: { tenantId } })
    expect(stored.filter((e) => (e.data as { childId?: string }).childId === childId)).toEqual([])
    expect(receiver.received('/rollback')).toEqual([])
  })

  it('delivers an event committed by a process that died before dispatching it (the sweep)', async () => {
    const { tenantId, token } = await tenant()
    await subscribe(token, '/orphan')
    // Exactly what a crash right after commit leaves: the event row, not fanned out, and no signal to anyone.
    const id = newId('event')
    await db().event.create({
      data: {
        id,
        tenantId,
        type: 'child.registered',
        data: { childId: newId('child'), locationId: null },
        createdAt: new Date(),
      },
    })
    const [delivery] = await receiver.waitFor('/orphan', 1, 30_000)
    expect(JSON.parse(delivery!.body).id).toBe(id)
    expect((await db().event.findUniqueOrThrow({ where: { id } })).fannedOutAt).not.toBeNull()
  })

  it('keeps deliveries while Temporal is unreachable and starts them when it is back', async () => {
    const { token } = await tenant()
    const endpointId = await subscribe(token, '/temporal-outage')
    proxy.cut()
    try {
      const child = await platform.http.post('/v1/children', {
        token,
        body: { firstName: 'Lior', lastName: 'Ben', dateOfBirth: '2020-03-03' },
      })
      // The API answers while Temporal is down: the delivery waits in its outbox row.
      expect(child.status).toBe(201)
      const pending = await eventually(async () => {
        const rows = await db().webhookDelivery.findMany({ where: { endpointId } })
        return rows.length === 1 ? rows[0] : undefined
      })
      expect(pending.workflowStartedAt).toBeNull()
      await new Promise((resolve) => setTimeout(resolve, 1500))
      expect(receiver.received('/temporal-outage')).toEqual([])
    } finally {
      proxy.restore()
    }
    await receiver.waitFor('/temporal-outage', 1, 60_000)
    // The dispatcher stamps the row once Temporal has accepted the start, and the delivery can reach the receiver
    // before that stamp commits (seen in CI).
    const started = await eventually(async () => {
      const row = await db().webhookDelivery.findFirstOrThrow({ where: { endpointId } })
      return row.workflowStartedAt ?? undefined
    })
    expect(started).toBeInstanceOf(Date)
  })
})

describe('duplicate dispatch', () => {
  it('is harmless: racing dispatchers and a repeated start deliver each event once', async () => {
    const { tenantId, token } = await tenant()
    await subscribe(token, '/once')
    const settings = webhookSettings(platform.config)
    const rivals = [1, 2, 3].map(() =>
      createWebhookDispatcher({
        db: db(),
        temporal: platform.temporal,
        taskQueue: platform.config.TEMPORAL_TASK_QUEUE,
        logger: createLogger('silent', 'test'),
        settings,
      })
    )
    // Committed without the in-process signal, so the rivals and the API's own sweep all go for them at once.
    const ids = Array.from({ length: 10 }, () => newId('event'))
    await db().event.createMany({
      data: ids.map((id) => ({
        id,
        tenantId,
        type: 'child.registered',
        data: { childId: `chd_${randomBytes(8).toString('hex')}`, locationId: null },
        createdAt: new Date(),
      })),
    })
    await Promise.all(rivals.map((rival) => rival.dispatchPending()))
    await receiver.waitFor('/once', 10)

    // A start that is repeated after the delivery finished (a lost "started" mark) is refused by Temporal.
    await db().webhookDelivery.updateMany({
      where: { tenantId },
      data: { workflowStartedAt: null, dispatchLeaseUntil: null },
    })
    await rivals[0]!.dispatchPending()
    await new Promise((resolve) => setTimeout(resolve, 2000))
    const received = receiver.received('/once').map((d) => JSON.parse(d.body).id as string)
    expect(received.sort()).toEqual([...ids].sort())
    expect(await db().webhookDelivery.count({ where: { tenantId } })).toBe(10)
    expect(await db().webhookDelivery.count({ where: { tenantId, workflowStartedAt: null } })).toBe(0)
  })
})
