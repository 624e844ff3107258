/**
 * Webhook delivery survives its worker and its API, at small scale (the benchmark does the same at 1,000 deliveries a
 * second): a worker killed with SIGKILL while attempts are in flight, a worker stopped with SIGTERM during a backlog,
 * and an API process killed with SIGKILL while it answers emitting calls. After a restart every event reaches every
 * endpoint; duplicates are possible (at least once) and counted. The claim lease is shortened
 * (WEBHOOK_CLAIM_LEASE_MS) so a dead worker's claims come back in seconds rather than a minute.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { httpClient } from '../support/http.ts'
import { eventually, startPlatform, type Platform } from '../support/platform.ts'
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts'
import { startApiProcess, type EntryProcess } from '../../scripts/start/worker-process.ts'

const ENDPOINTS = 3
const EVENTS = 15

let platform: Platform
let receiver: WebhookReceiver

beforeAll(async () => {
  receiver = await startWebhookReceiver()
  platform = await startPlatform({
    overrides: {
      WEBHOOK_REQUIRE_HTTPS: 'false',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOK_TIMEOUT_MS: '2000',
      WEBHOOK_CLAIM_LEASE_MS: '4000',
      // Few slots per endpoint, so a burst makes a backlog that is still being worked when the worker goes.
      WEBHOOK_ENDPOINT_CONCURRENCY: '2',
    },
  })
})

afterAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await platform?.stop()
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await receiver?.close()
})

/** A tenant with `ENDPOINTS` endpoints on paths `<prefix>-<n>`, each answering after `delayMs`. */
async function tenantWithEndpoints(prefix: string, delayMs: number) {
  const client = await platform.newTenant(['children', 'webhooks'])
  const token = await platform.token(client)
  const paths: string[] = []
  for (let n = 0; n < ENDPOINTS; n++) {
    const path = `/${prefix}-${n}`
    receiver.respond(path, () => ({ status: 200, delayMs }))
    const created = await platform.http.post('/v1/webhook-endpoints', {
      token,
      body: { url: receiver.url(path), events: ['child.registered'] },
    })
    expect(created.status).toBe(201)
    paths.push(path)
  }
  return { token, tenantId: client.tenantId, paths }
}

async function registerChildren(token: string): Promise<void> {
  for (let i = 0; i < EVENTS; i++) {
    const response = await platform.http.post('/v1/children', {
      token,
      body: { firstName: 'Ada', lastName: `Crash${i}`, dateOfBirth: '2021-01-01' },
    })
    expect(response.status).toBe(201)
  }
}

/** Waits until every path has `events` events, then reports duplicates (a delivery received more than once). */
async function everyEventEverywhere(paths: string[], events = EVENTS) {
  return eventually(
    async () => {
      const perPath = paths.map((path) => receiver.received(path).map((d) => JSON.parse(d.body).id as string))
      if (perPath.some((ids) => new Set(ids).size < events)) return undefined
      return perPath.reduce((n, ids) => n + ids.length - new Set(ids).size, 0)
    },
    90_000,
    250
  )
}

describe('a worker that dies while delivering', () => {
  it('SIGKILL with attempts in flight: the restarted worker delivers everything', async () => {
    const { token, tenantId, paths } = await tenantWithEndpoints('killed', 400)
    await registerChildren(token)
    // Some delivered, most still claimed, in flight or waiting.
    await eventually(async () => paths.some((path) => receiver.received(path).length >= 2) || undefined, 30_000, 50)
    await platform.killWorkers('SIGKILL')
    const receivedAtKill = new Set(
      paths.flatMap((path) => receiver.received(path).map((d) => `${path} ${JSON.parse(d.body).id as string}`))
    )
    expect(receivedAtKill.size).toBeLessThan(ENDPOINTS * EVENTS)

    await platform.startWorker()
    await everyEventEverywhere(paths)
    // Only what had reached the receiver unrecorded when the worker died is sent again: every delivery received twice
    // was received before the kill.
    for (const path of paths) {
      const ids = receiver.received(path).map((d) => JSON.parse(d.body).id as string)
      const twice = ids.filter((id, i) => ids.indexOf(id) !== i)
      for (const id of twice) expect(receivedAtKill.has(`${path} ${id}`)).toBe(true)
    }
    // Every delivery row says so too (its record may follow its arrival at the receiver by a moment).
    await eventually(async () => {
      const rows = await platform.api.deps.db.webhookDelivery.findMany({ where: { tenantId } })
      return rows.length === ENDPOINTS * EVENTS && rows.every((row) => row.status === 'SUCCEEDED') ? rows : undefined
    })
  })

  it('SIGTERM during a backlog: the worker stops within its grace time, and nothing is lost after the restart', async () => {
    const { token, paths } = await tenantWithEndpoints('stopped', 300)
    await registerChildren(token)
    await eventually(async () => paths.some((path) => receiver.received(path).length >= 2) || undefined, 30_000, 50)
    const stopping = performance.now()
    await platform.killWorkers('SIGTERM')
    const stopMs = performance.now() - stopping
    // Within the worker's grace time (10 s): the pump hears the signal at once and waits at most 3 s for what is in
    // flight, rather than being cancelled by the SDK once the grace time is over.
    expect(stopMs).toBeLessThan(10_000)

    await platform.startWorker()
    const duplicates = await everyEventEverywhere(paths)
    expect(duplicates).toBeLessThanOrEqual(ENDPOINTS * 2)
  })

  it('SIGKILL of the API while it answers emitting calls: every committed event reaches every endpoint', async () => {
    const { token, tenantId, paths } = await tenantWithEndpoints('api-killed', 0)
    // The API in a process of its own, as deployed, on the platform's database and task queue.
    const startApi = () => startApiProcess({ ...platform.workerEnv, LOG_LEVEL: 'info' })
    const portOf = (api: EntryProcess) => Number(/"port":(\d+)/.exec(api.output())?.[1])
    const register = (url: string, i: number) =>
      httpClient(url)
        .post('/v1/children', { token, body: { firstName: 'Ada', lastName: `Gone${i}`, dateOfBirth: '2021-01-01' } })
        .then((response) => response.status)
        .catch(() => 'connection lost' as const)

    let api = await startApi()
    let url = `http://127.0.0.1:${portOf(api)}`
    // A burst in flight when the process dies: some answered, some cut off before or after their commit.
    const burst = Array.from({ length: EVENTS }, (_, i) => register(url, i))
    const committed = () => platform.db.event.count({ where: { tenantId, type: 'child.registered' } })
    await eventually(async () => ((await committed()) >= 3 ? true : undefined), 30_000, 10)
    await api.kill('SIGKILL')
    // Answered or cut off: the process may die before it answers any of them.
    const answered = (await Promise.all(burst)).filter((status) => status === 201).length

    api = await startApi()
    url = `http://127.0.0.1:${portOf(api)}`
    try {
      expect(await register(url, EVENTS)).toBe(201)
    } finally {
      await api.kill('SIGTERM')
    }
    // Whatever committed, answered or not, is an event, and every event reaches every endpoint.
    const events = await committed()
    expect(events).toBe(await platform.db.child.count({ where: { tenantId } }))
    expect(events).toBeGreaterThanOrEqual(Math.max(answered, 3) + 1)
    // Duplicates could only come from an attempt timing out under load; nothing here is lost either way.
    await everyEventEverywhere(paths, events)
  })
})
