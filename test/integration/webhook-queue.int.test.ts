/**
 * The webhook delivery queue against the file's real database and a real receiver on loopback, driven one pump round
 * at a time (domain/webhooks/delivery-pump.ts `pumpOnce`): fan-out, claims and leases, the batch record, the circuit
 * breaker, the per-endpoint concurrency bound and partitions. No Temporal here: the pump's only use of it, starting
 * a failing endpoint's retry workflow, is recorded by a starter that notes what it was asked; the workflows
 * themselves are tested on Temporal in webhook-delivery.int.test.ts and webhook-endpoint-retry.int.test.ts.
 */
import { setTimeout as sleep } from 'node:timers/promises'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { claimDue, fanOutEvents } from '../../domain/webhooks/delivery-queue.ts'
import { pumpOnce, runDeliveryPump, type PumpDeps } from '../../domain/webhooks/delivery-pump.ts'
import { attemptsOf, getDelivery } from '../../domain/webhooks/delivery-log.ts'
import { endpointRetryStep } from '../../domain/webhooks/endpoint-retry.ts'
import { updateEndpoint } from '../../domain/webhooks/endpoint-service.ts'
import { addressRefusal } from '../../adapters/outbound/vetted-lookup.ts'
import { createWebhookPoster } from '../../adapters/webhook-http/webhook-poster.ts'
import type { WebhookSettings } from '../../domain/webhooks/webhook-settings.ts'
import { newId } from '../../domain/ids.ts'
import { idPattern } from '../../domain/id-schema.ts'
import { closeDb, createDb, type Db } from '../../infra/db.ts'
import { createLogger } from '../../infra/logger.ts'
import { createSecretBox, DEVELOPMENT_KEYRING } from '../../infra/secret-box.ts'
import { runInUnitOfWork } from '../../infra/unit-of-work.ts'
import { testDatabaseUrl } from '../support/file-database.ts'
import { replies, startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts'

const settings: WebhookSettings = {
  requireHttps: false,
  network: { allowPrivateNetworks: true },
  timeoutMs: 2000,
  retry: { windowMs: 86_400_000, initialIntervalMs: 5000, maxIntervalMs: 3_600_000 },
  disableAfterMs: 5 * 86_400_000,
  circuitFailures: 3,
  pump: { partitions: 1, pollMs: 20, concurrency: 16, endpointConcurrency: 2, leaseMs: 60_000 },
}

let db: Db
let receiver: WebhookReceiver
let tenantId: string
let clock: Date
const woken: string[] = []
let deps: PumpDeps
// The endpoints below are stored with a clear secret, as before sealing: such a row still signs (legacy clear).
const secrets = createSecretBox(DEVELOPMENT_KEYRING)

beforeAll(async () => {
  db = createDb(testDatabaseUrl(), 4)
  receiver = await startWebhookReceiver()
  tenantId = newId('tenant')
  await db.tenant.create({ data: { id: tenantId, name: `queue-${tenantId}` } })
  deps = {
    db,
    poster: createWebhookPoster({ timeoutMs: settings.timeoutMs, network: settings.network }),
    settings,
    now: () => clock,
    secrets,
    retries: {
      wake: async ({ endpointId }) => void woken.push(endpointId),
      ensureRunning: async () => undefined,
    },
    logger: createLogger('silent', 'webhook-queue-test'),
  }
})

afterAll(async () => {
  deps.poster.close()
  await receiver.close()
  await closeDb(db)
})

beforeEach(() => {
  clock = new Date()
  woken.length = 0
})

/** An endpoint at `path` of the receiver: by default the file's tenant's, enabled, subscribed to every event. */
async function endpoint(
  path: string,
  options: { tenant?: string; eventTypes?: string[]; enabled?: boolean } = {}
): Promise<string> {
  const { tenant = tenantId, eventTypes = ['*'], enabled = true } = options
  const id = newId('webhookEndpoint')
  await db.webhookEndpoint.create({
    data: {
      id,
      tenantId: tenant,
      url: receiver.url(path),
      eventTypes,
      enabled,
      signingScheme: 'V2',
      secret: 'whsec_dGVzdA==',
    },
  })
  return id
}

async function events(count: number): Promise<string[]> {
  const ids = Array.from({ length: count }, () => newId('event'))
  await db.event.createMany({
    data: ids.map((id) => ({ id, tenantId, type: 'payment.succeeded', data: { paymentId: id }, createdAt: clock })),
  })
  return ids
}

const deliveriesOf = (endpointId: string) =>
  db.webhookDelivery.findMany({
    where: { endpointId },
    include: { attempts: { orderBy: { number: 'asc' } } },
    orderBy: { createdAt: 'asc' },
  })

describe('first attempts', () => {
  it('fans events out to every subscribed endpoint and delivers each once, recording the attempt on the delivery row', async () => {
    const a = await endpoint('/first-a')
    const b = await endpoint('/first-b')
    await events(3)
    const stats = await pumpOnce(deps)
    expect(stats.attempted).toBeGreaterThanOrEqual(6)
    expect(receiver.received('/first-a')).toHaveLength(3)
    expect(receiver.received('/first-b')).toHaveLength(3)
    for (const id of [a, b]) {
      const rows = await deliveriesOf(id)
      // A first attempt that succeeded has no attempt row of its own; the delivery log shows it from the row.
      expect(rows.map((r) => [r.status, r.attemptCount, r.attempts.length])).toEqual([
        ['SUCCEEDED', 1, 0],
        ['SUCCEEDED', 1, 0],
        ['SUCCEEDED', 1, 0],
      ])
      expect(rows.every((r) => r.workflowId === null && r.firstAttemptAt !== null)).toBe(true)
      for (const row of rows) {
        const logged = await runInUnitOfWork(db, tenantId, (uow) => getDelivery(uow, id, row.id))
        expect(attemptsOf(logged)).toEqual([
          {
            number: 1,
            attemptedAt: row.firstAttemptAt,
            statusCode: 200,
            latencyMs: row.firstAttemptLatencyMs,
            error: null,
            succeeded: true,
          },
        ])
        expect(row.firstAttemptLatencyMs).toBeGreaterThanOrEqual(0)
      }
    }
    // Nothing left: a second round sends nothing again.
    await pumpOnce(deps)
    expect(receiver.received('/first-a')).toHaveLength(3)
  })

  it('schedules a failed attempt for a retry with backoff, and retries it when due', async () => {
    const id = await endpoint('/retry')
    receiver.respond('/retry', replies({ status: 500 }, { status: 200 }))
    await events(1)
    await pumpOnce(deps)
    const [failed] = await deliveriesOf(id)
    expect(failed).toMatchObject({ status: 'PENDING', attemptCount: 1, lastStatusCode: 500 })
    const delay = failed!.nextAttemptAt!.getTime() - clock.getTime()
    expect(delay).toBeGreaterThanOrEqual(2500)
    expect(delay).toBeLessThanOrEqual(5000)
    // Not due yet: nothing is sent.
    await pumpOnce(deps)
    expect(receiver.received('/retry')).toHaveLength(1)
    clock = new Date(clock.getTime() + 5000)
    await pumpOnce(deps)
    const [done] = await deliveriesOf(id)
    expect(done).toMatchObject({ status: 'SUCCEEDED', attemptCount: 2 })
    // Every attempt after a failure keeps its own row, the first one too.
    expect(done!.attempts.map((a) => [a.number, a.statusCode])).toEqual([
      [1, 500],
      [2, 200],
    ])
    expect(done!.firstAttemptLatencyMs).toBeNull()
  })
})

describe('the circuit breaker', () => {
  it('opens after the configured failures in a row, holds new deliveries without a request, and asks for the retry workflow once', async () => {
    const id = await endpoint('/breaker')
    receiver.respond('/breaker', () => ({ status: 503 }))
    await events(3)
    await pumpOnce(deps)
    expect(receiver.received('/breaker')).toHaveLength(3)
    const opened = await db.webhookEndpoint.findUniqueOrThrow({ where: { id } })
    expect(opened.consecutiveFailures).toBe(3)
    expect(opened.circuitOpenedAt).not.toBeNull()
    expect(opened.failingSince).not.toBeNull()
    expect(woken).toEqual([id])

    // New events while open: stored, not sent, even when their retries fall due.
    await events(5)
    clock = new Date(clock.getTime() + 3_600_000)
    await pumpOnce(deps)
    expect(receiver.received('/breaker')).toHaveLength(3)
    const held = await deliveriesOf(id)
    expect(held).toHaveLength(8)
    expect(held.every((d) => d.status === 'PENDING')).toBe(true)
    expect(woken).toEqual([id])
  })

  it('a success closes it and resets the run of failures; a healthy busy endpoint is not rewritten', async () => {
    const id = await endpoint('/recovers')
    receiver.respond('/recovers', replies({ status: 500 }, { status: 200 }))
    await events(1)
    await pumpOnce(deps)
    expect((await db.webhookEndpoint.findUniqueOrThrow({ where: { id } })).consecutiveFailures).toBe(1)
    clock = new Date(clock.getTime() + 10_000)
    await pumpOnce(deps)
    const healthy = await db.webhookEndpoint.findUniqueOrThrow({ where: { id } })
    expect(healthy).toMatchObject({ consecutiveFailures: 0, failingSince: null, circuitOpenedAt: null })
    // The row's version (xmin) changes with any write to it: successes leave a healthy endpoint's row alone.
    const version = () =>
      db.$queryRaw<Array<{ xmin: string }>>`SELECT xmin::text FROM webhook_endpoints WHERE id = ${id}`
    const before = await version()
    await events(3)
    await pumpOnce(deps)
    expect(receiver.received('/recovers')).toHaveLength(5)
    expect(await version()).toEqual(before)
  })
})

describe('held deliveries', () => {
  const nextTimes = async (endpointId: string) =>
    (await deliveriesOf(endpointId)).map((d) => [d.status, d.nextAttemptAt?.getTime() ?? null])

  it('leave the due range while the breaker is open, and are due again when a probe closes it', async () => {
    const id = await endpoint('/held')
    let up = false
    receiver.respond('/held', () => ({ status: up ? 200 : 503 }))
    await events(3)
    await pumpOnce(deps)
    expect((await db.webhookEndpoint.findUniqueOrThrow({ where: { id } })).circuitOpenedAt).not.toBeNull()
    // The batch that opened the breaker held what was queued, retries included.
    expect(await nextTimes(id)).toEqual([
      ['PENDING', null],
      ['PENDING', null],
      ['PENDING', null],
    ])
    // Fanned out while open: held from the start.
    clock = new Date(clock.getTime() + 1000)
    await events(2)
    await fanOutEvents(db, clock)
    expect((await nextTimes(id)).slice(3)).toEqual([
      ['PENDING', null],
      ['PENDING', null],
    ])
    // Rows that are not the queue's are never brought back: an ended delivery, one owned by a delivery workflow.
    const [ended, owned] = await deliveriesOf(id).then((rows) => rows.slice(3, 5))
    await db.webhookDelivery.update({ where: { id: ended!.id }, data: { status: 'FAILED', completedAt: clock } })
    await db.webhookDelivery.update({
      where: { id: owned!.id },
      data: { workflowId: `webhook-${owned!.id}`, workflowStartedAt: clock },
    })

    // A failed probe keeps them held, the probed one too (its retry belongs to the endpoint's schedule).
    const retryDeps = { db, poster: deps.poster, settings, now: () => clock, secrets }
    expect(await endpointRetryStep(retryDeps, { tenantId, endpointId: id, probe: true })).toMatchObject({
      state: 'failing',
    })
    expect((await nextTimes(id)).filter(([status]) => status === 'PENDING')).toEqual(
      Array.from({ length: 4 }, () => ['PENDING', null])
    )

    up = true
    clock = new Date(clock.getTime() + 60_000)
    expect(await endpointRetryStep(retryDeps, { tenantId, endpointId: id, probe: true })).toEqual({ state: 'closed' })
    const released = await deliveriesOf(id)
    const queued = released.filter((d) => d.status === 'PENDING' && d.workflowStartedAt === null)
    expect(queued.map((d) => d.nextAttemptAt?.getTime())).toEqual([clock.getTime(), clock.getTime()])
    expect(released.find((d) => d.id === ended!.id)).toMatchObject({ status: 'FAILED', nextAttemptAt: null })
    expect(released.find((d) => d.id === owned!.id)).toMatchObject({ status: 'PENDING', nextAttemptAt: null })
    await pumpOnce(deps)
    expect((await deliveriesOf(id)).filter((d) => d.status === 'SUCCEEDED')).toHaveLength(3)
  })

  it('an endpoint disabled by hand has what it held made due, and the claim ends it', async () => {
    const id = await endpoint('/held-disabled')
    receiver.respond('/held-disabled', () => ({ status: 500 }))
    await events(3)
    await pumpOnce(deps)
    expect(await nextTimes(id)).toEqual(Array.from({ length: 3 }, () => ['PENDING', null]))
    await runInUnitOfWork(db, tenantId, (uow) =>
      updateEndpoint(uow, id, { enabled: false }, { ...settings, vetAddress: addressRefusal }, secrets, 'operator')
    )
    // The API's clock made them due: the pump's catches up with it.
    clock = new Date(Date.now() + 1000)
    await pumpOnce(deps)
    const ended = await deliveriesOf(id)
    expect(ended.map((d) => [d.status, d.lastError])).toEqual(
      Array.from({ length: 3 }, () => ['FAILED', 'endpoint disabled'])
    )
    expect(receiver.received('/held-disabled')).toHaveLength(3)
  })

  it('a fan-out that raced the opening leaves due rows the claim skips, and the periodic check holds them', async () => {
    const id = await endpoint('/raced')
    await events(2)
    await fanOutEvents(db, clock)
    // The breaker opens after fan-out read the endpoint: its rows are due.
    await db.webhookEndpoint.update({ where: { id }, data: { circuitOpenedAt: clock, consecutiveFailures: 3 } })
    const claimed = await claimDue(db, {
      partition: 0,
      partitions: 1,
      limit: 100,
      perEndpoint: 10,
      excludeEndpoints: [],
      now: clock,
      leaseMs: 60_000,
    })
    expect(claimed.filter((d) => d.endpointId === id)).toEqual([])
    await pumpOnce(deps)
    expect(receiver.received('/raced')).toHaveLength(0)
    expect(await nextTimes(id)).toEqual([
      ['PENDING', null],
      ['PENDING', null],
    ])
  })
})

describe('claims', () => {
  it('never hands the same delivery to two pumps, and bounds what one endpoint gets at once', async () => {
    const id = await endpoint('/claims')
    await events(6)
    await fanOutEvents(db, clock)
    const options = {
      partition: 0,
      partitions: 1,
      limit: 10,
      perEndpoint: 2,
      excludeEndpoints: [],
      now: clock,
      leaseMs: 60_000,
    }
    const [first, second] = await Promise.all([claimDue(db, options), claimDue(db, options)])
    const mine = [...first, ...second].filter((d) => d.endpointId === id)
    expect(mine.length).toBeLessThanOrEqual(4)
    expect(new Set(mine.map((d) => d.id)).size).toBe(mine.length)
    // Leased: nobody claims them again until the lease ends; then they are due again.
    const third = await claimDue(db, { ...options, perEndpoint: 10 })
    expect(third.filter((d) => mine.some((m) => m.id === d.id))).toEqual([])
    const later = await claimDue(db, {
      ...options,
      limit: 100,
      perEndpoint: 10,
      now: new Date(clock.getTime() + 61_000),
    })
    expect(later.filter((d) => d.endpointId === id)).toHaveLength(6)
  })

  it('a pump stopped mid-attempt gives the claim back at the attempt’s deadline, not at the end of its lease', async () => {
    // A tenant of its own, so the run sends nothing of the other tests' endpoints' but this one delivery.
    const tenant = newId('tenant')
    await db.tenant.create({ data: { id: tenant, name: `queue-${tenant}` } })
    const id = await endpoint('/stopping', { tenant })
    receiver.respond('/stopping', () => 'hang')
    await db.event.create({
      data: { id: newId('event'), tenantId: tenant, type: 'payment.succeeded', data: {}, createdAt: clock },
    })
    // An attempt's deadline longer than a stopping pump's wait (3 s), as by default (10 s).
    const timeoutMs = 10_000
    const poster = createWebhookPoster({ timeoutMs, network: settings.network })
    const stopping = { ...deps, poster, settings: { ...settings, timeoutMs } }
    const stop = new AbortController()
    try {
      const run = runDeliveryPump(stopping, { partition: 0, runForMs: 60_000, signal: stop.signal })
      await receiver.waitFor('/stopping', 1)
      // Worker shutdown: the pump waits a few seconds for what is in flight, then returns with the attempt unanswered.
      stop.abort()
      await run
    } finally {
      poster.close()
    }
    const [delivery] = await deliveriesOf(id)
    expect(delivery).toMatchObject({ status: 'PENDING', attemptCount: 0 })
    // Taken again once the attempt would have timed out (the exiting worker records nothing), not a minute on.
    expect(delivery!.dispatchLeaseUntil!.getTime()).toBe(clock.getTime() + timeoutMs)
  })

  it('hears an event that comes while it is idle from its probe, not at the next full look', async () => {
    // Once idle, its full looks come a minute apart: only the probe between them can find the event in time.
    const pump = { ...settings.pump, pollMs: 60_000, idlePollMs: 60_000, probeMs: 20 }
    const idle: PumpDeps = { ...deps, now: () => new Date(), settings: { ...settings, pump } }
    await endpoint('/probe')
    const stop = new AbortController()
    let looks = 0
    const run = runDeliveryPump(idle, {
      partition: 0,
      runForMs: 120_000,
      signal: stop.signal,
      heartbeat: () => looks++,
    })
    try {
      // Idle: whatever earlier tests left due is done and no look has come for a while.
      let seen = -1
      while (looks !== seen) {
        seen = looks
        await sleep(300)
      }
      await events(1)
      // Without the probe, the next look (and the delivery) would come a minute on.
      const [delivery] = await receiver.waitFor('/probe', 1, 10_000)
      expect(delivery).toBeDefined()
      expect(looks).toBeGreaterThan(seen)
    } finally {
      stop.abort()
      await run
    }
  })

  it('splits endpoints between partitions: each pump claims only its own, together all of them', async () => {
    const ids = await Promise.all(Array.from({ length: 8 }, (_, i) => endpoint(`/part-${i}`)))
    await events(1)
    await fanOutEvents(db, clock)
    const options = { partitions: 3, limit: 100, perEndpoint: 10, excludeEndpoints: [], now: clock, leaseMs: 60_000 }
    const parts = await Promise.all([0, 1, 2].map((partition) => claimDue(db, { ...options, partition })))
    const claimed = parts.map((part) => part.map((d) => d.endpointId).filter((e) => ids.includes(e)))
    expect(claimed.flat().sort()).toEqual([...ids].sort())
    // No endpoint in two partitions.
    expect(new Set(claimed.flat()).size).toBe(ids.length)
  })
})

describe('fan-out', () => {
  it('sends each event to the enabled endpoints subscribed to its type or to *, a test event to its endpoint only', async () => {
    const tenant = newId('tenant')
    await db.tenant.create({ data: { id: tenant, name: `subscriptions-${tenant}` } })
    const endpointOf = (eventTypes: string[], enabled = true) =>
      endpoint('/subscriptions', { tenant, eventTypes, enabled })
    const all = await endpointOf(['*'])
    const payments = await endpointOf(['payment.succeeded'])
    const children = await endpointOf(['child.registered', 'payment.failed'])
    await endpointOf(['*'], false)
    const event = (type: string, data: object = {}) => ({
      id: newId('event'),
      tenantId: tenant,
      type,
      data,
      createdAt: clock,
    })
    const sent = {
      payment: event('payment.succeeded'),
      child: event('child.registered'),
      test: event('webhook.test', { endpointId: children }),
      // Not a type anyone may subscribe to, `*` included.
      internal: event('internal.unlisted'),
    }
    await db.event.createMany({ data: Object.values(sent) })

    await fanOutEvents(db, clock)
    const deliveries = await db.webhookDelivery.findMany({ where: { tenantId: tenant } })
    const to = (eventId: string) =>
      deliveries
        .filter((d) => d.eventId === eventId)
        .map((d) => d.endpointId)
        .sort()
    expect(to(sent.payment.id)).toEqual([all, payments].sort())
    expect(to(sent.child.id)).toEqual([all, children].sort())
    expect(to(sent.test.id)).toEqual([children])
    expect(to(sent.internal.id)).toEqual([])
    // The statement makes the platform's ids itself: the same form as newId's, time-ordered from the moment it ran.
    for (const delivery of deliveries) {
      expect(delivery.id).toMatch(idPattern('webhookDelivery'))
      const ms = parseInt(delivery.id.slice(4, 16), 16)
      expect(Math.abs(ms - Date.now())).toBeLessThan(60_000)
    }
    expect(deliveries.every((d) => d.kind === 'EVENT' && d.nextAttemptAt?.getTime() === clock.getTime())).toBe(true)
    expect(await db.event.count({ where: { tenantId: tenant, fannedOutAt: null } })).toBe(0)

    // A second fan-out of the same events (a pump that re-ran them) makes no second delivery.
    await db.event.updateMany({ where: { tenantId: tenant }, data: { fannedOutAt: null } })
    expect(await fanOutEvents(db, clock)).toBeGreaterThanOrEqual(4)
    expect(await db.webhookDelivery.count({ where: { tenantId: tenant } })).toBe(deliveries.length)
    await db.webhookDelivery.deleteMany({ where: { tenantId: tenant } })
  })

  it('marks the events of tenants without an enabled endpoint at once, and still fans out the rest of the batch', async () => {
    const listening = newId('tenant')
    const quiet = newId('tenant')
    const disabled = newId('tenant')
    await db.tenant.createMany({
      data: [listening, quiet, disabled].map((id) => ({ id, name: `fan-out-${id}` })),
    })
    const endpointOf = (tenant: string, enabled: boolean) => endpoint('/fan-out', { tenant, enabled })
    const listener = await endpointOf(listening, true)
    await endpointOf(disabled, false)
    // More than one batch of the listening tenant's events first: the quick pass finds a whole batch it cannot mark.
    const at = (i: number) => new Date(clock.getTime() - 10_000 + i)
    const made = (tenant: string, from: number, count: number) =>
      Array.from({ length: count }, (_, i) => ({
        id: newId('event'),
        tenantId: tenant,
        type: 'payment.succeeded',
        data: {},
        createdAt: at(from + i),
      }))
    const rows = [
      ...made(listening, 0, 205),
      ...made(quiet, 205, 3),
      ...made(disabled, 208, 2),
      ...made(listening, 210, 1),
    ]
    await db.event.createMany({ data: rows })

    expect(await fanOutEvents(db, clock)).toBeGreaterThanOrEqual(rows.length)
    const left = await db.event.count({ where: { id: { in: rows.map((r) => r.id) }, fannedOutAt: null } })
    expect(left).toBe(0)
    const deliveries = await db.webhookDelivery.findMany({ where: { tenantId: { in: [listening, quiet, disabled] } } })
    expect(deliveries).toHaveLength(206)
    expect(new Set(deliveries.map((d) => d.endpointId))).toEqual(new Set([listener]))
    // Not for the other tests' pump rounds.
    await db.webhookDelivery.deleteMany({ where: { endpointId: listener } })
  })
})
