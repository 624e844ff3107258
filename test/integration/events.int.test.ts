/**
 * Events as a transactional outbox: written with the change that causes them (a rollback leaves none), listed by
 * `GET /v1/events`, and delivered even when the process dies between commit and dispatch or the API cannot reach
 * Temporal. Pumps side by side never deliver twice.
 */
import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { recordEvent } from '../../domain/events/record-event.ts'
import { newId } from '../../domain/ids.ts'
import { pumpOnce } from '../../domain/webhooks/delivery-pump.ts'
import { runInUnitOfWork } from '../../infra/unit-of-work.ts'
import { createChildAndProvider, futureSlot } from '../support/fixtures.ts'
import { eventually, startPlatform, type Platform } from '../support/platform.ts'
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.ts'
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts'
import { realPumpDeps } from '../support/webhook-pump.ts'

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
    // The published payload of booking.created, exactly (docs/webhooks.md).
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

  it("lets a bookings token read its bookings' events and no others; webhooks.read reads all (issue 22)", async () => {
    const client = await platform.newTenant(['children', 'providers', 'bookings', 'webhooks'])
    const full = await platform.token(client)
    const { childId, providerId } = await createChildAndProvider(platform.http, full)
    const booked = await platform.http.post('/v1/appointments', {
      token: full,
      body: { childId, providerId, type: 'THERAPY_SESSION', startsAt: futureSlot(6).toISOString() },
    })
    expect(booked.status).toBe(201)
    const typesOf = (body: { data: Array<{ type: string }> }) => body.data.map((e) => e.type)

    const bookings = await platform.token(client, 'bookings')
    const seen = await platform.http.get('/v1/events', { token: bookings })
    expect(seen.status).toBe(200)
    expect(typesOf(seen.body)).toContain('booking.created')
    expect(typesOf(seen.body).every((t) => /^(booking|appointment)\./.test(t))).toBe(true)

    const everything = await platform.http.get('/v1/events', { token: await platform.token(client, 'webhooks.read') })
    expect(typesOf(everything.body)).toEqual(expect.arrayContaining(['booking.created', 'child.registered']))
    const childEvent = everything.body.data.find((e: { type: string }) => e.type === 'child.registered')
    const bookingEvent = everything.body.data.find((e: { type: string }) => e.type === 'booking.created')

    expect((await platform.http.get(`/v1/events/${bookingEvent.id}`, { token: bookings })).status).toBe(200)
    const hidden = await platform.http.get(`/v1/events/${childEvent.id}`, { token: bookings })
    expect(hidden.status).toBe(404)
    const asked = await platform.http.get('/v1/events?type=child.registered', { token: bookings })
    expect(asked.status).toBe(403)
    expect(asked.body).toMatchObject({ code: 'insufficient_scope' })
    expect(asked.body.detail).toContain('children.read')
    // The delivery log is webhook data: still webhooks.read only.
    const deliveries = await platform.http.get(`/v1/events/${bookingEvent.id}/deliveries`, { token: bookings })
    expect(deliveries.status).toBe(403)

    // A scope that reads no events is refused, naming the scope that reads them all.
    const { token: pets } = await tenant(['pets'])
    const refused = await platform.http.get('/v1/events', { token: pets })
    expect(refused.status).toBe(403)
    expect(refused.body.code).toBe('insufficient_scope')
    expect(refused.body.detail).toContain('webhooks.read')
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

  it('records an event nobody listens to as fanned out, and one for an enabled endpoint as waiting for its fan-out', async () => {
    const quiet = await tenant()
    const listening = await tenant()
    await subscribe(listening.token, '/listening')
    const disabled = await tenant()
    const disabledId = await subscribe(disabled.token, '/disabled')
    await db().webhookEndpoint.updateMany({ where: { id: disabledId }, data: { enabled: false } })
    const record = (tenantId: string) =>
      runInUnitOfWork(db(), tenantId, (uow) =>
        recordEvent(uow, 'child.registered', { childId: newId('child'), locationId: null })
      )
    const [a, b, c] = await Promise.all([record(quiet.tenantId), record(listening.tenantId), record(disabled.tenantId)])
    const marks = await db().event.findMany({
      where: { id: { in: [a.id, b.id, c.id] } },
      select: { id: true, fannedOutAt: true, agentDispatchedAt: true },
    })
    const byId = new Map(marks.map((m) => [m.id, m]))
    // No agent workflow in any of them: nothing for the agent dispatcher either.
    expect(byId.get(a.id)).toEqual({ id: a.id, fannedOutAt: a.createdAt, agentDispatchedAt: a.createdAt })
    expect(byId.get(c.id)).toEqual({ id: c.id, fannedOutAt: c.createdAt, agentDispatchedAt: c.createdAt })
    expect(byId.get(b.id)?.agentDispatchedAt).toEqual(b.createdAt)
    // The listening tenant's event is fanned out by a pump, and delivered.
    const [delivery] = await receiver.waitFor('/listening', 1, 30_000)
    expect(JSON.parse(delivery!.body).id).toBe(b.id)
    expect(receiver.received('/disabled')).toEqual([])
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

  it('delivers while the API cannot reach Temporal: a first attempt needs no Temporal work', async () => {
    const { token } = await tenant()
    const endpointId = await subscribe(token, '/temporal-outage')
    proxy.cut()
    try {
      const child = await platform.http.post('/v1/children', {
        token,
        body: { firstName: 'Lior', lastName: 'Ben', dateOfBirth: '2020-03-03' },
      })
      expect(child.status).toBe(201)
      // The pump on the worker takes the event from PostgreSQL: nothing between the API and Temporal is involved.
      await receiver.waitFor('/temporal-outage', 1, 30_000)
    } finally {
      proxy.restore()
    }
    const row = await eventually(async () => {
      const [delivery] = await db().webhookDelivery.findMany({ where: { endpointId } })
      return delivery?.status === 'SUCCEEDED' ? delivery : undefined
    })
    expect(row).toMatchObject({ workflowId: null, workflowStartedAt: null, attemptCount: 1 })
  })
})

describe('pumps side by side', () => {
  it('deliver each event once: claims are leased, and a recorded delivery is never sent again', async () => {
    const { tenantId, token } = await tenant()
    await subscribe(token, '/once')
    // Three more pumps by hand beside the platform's own, all going for the same events at once.
    const deps = realPumpDeps(db(), platform.config, platform.temporal)
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
    try {
      await Promise.all([1, 2, 3].map(() => pumpOnce(deps)))
      await receiver.waitFor('/once', 10)
      // A lease that ends after the delivery was recorded (a slow pump) sends nothing again. (Recorded: a delivery
      // can reach the receiver a moment before its pump records it, and one unrecorded is rightly sent again.)
      await eventually(async () => {
        const rows = await db().webhookDelivery.findMany({ where: { tenantId } })
        return rows.length === 10 && rows.every((row) => row.status === 'SUCCEEDED') ? rows : undefined
      })
      await db().webhookDelivery.updateMany({ where: { tenantId }, data: { dispatchLeaseUntil: null } })
      await pumpOnce(deps)
    } finally {
      deps.poster.close()
    }
    await new Promise((resolve) => setTimeout(resolve, 1000))
    const received = receiver.received('/once').map((d) => JSON.parse(d.body).id as string)
    expect(received.sort()).toEqual([...ids].sort())
    const rows = await db().webhookDelivery.findMany({ where: { tenantId } })
    expect(rows).toHaveLength(10)
    expect(rows.every((row) => row.status === 'SUCCEEDED' && row.attemptCount === 1)).toBe(true)
  })
})
