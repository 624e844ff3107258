/**
 * @module The production topology's failures, survived (issue 75). `scripts/start-cluster.ts` runs as an operator runs
 * it (`npm run start:cluster`): the Temporal Server's four services on PostgreSQL, two APIs and two workers of ours,
 * HAProxy in front. Bookings arrive through the balancer at a steady rate, each `booking.created` goes to ten webhook
 * endpoints, and meanwhile the history service, the matching service, one API and one worker are killed with SIGKILL,
 * one after another (each comes back by itself: the cluster's and the supervisor's restarts); then every process is
 * restarted in turn with SIGTERM, as a rolling upgrade does. After each: no booking lost or made twice, one running
 * booking workflow per booking, every event at every endpoint, no 5xx through the balancer; what the balancer's
 * retries absorbed and how long each failure took to heal are printed (docs/operations.md, "Running at scale").
 *
 * `npm run test:cluster` (vitest.cluster.config.ts); CI runs it where the Temporal Server's build is cached
 * (docs/testing.md says when).
 */
import { randomBytes, randomUUID } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import path from 'node:path'
import { Client, Connection } from '@temporalio/client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { closeDb, createDb, type Db } from '../../infra/db.ts'
import { provisionClient } from '../../domain/tenants/provision-client.ts'
import { startLocalTestServer } from '../../scripts/db/local-test-server.ts'
import { obtainTemporalServer } from '../../scripts/temporal/cluster.ts'
import { startClusterTopology, type ClusterTopology } from '../support/cluster-topology.ts'
import { httpClient } from '../support/http.ts'
import { spreadingClient, type Sent } from '../support/instances.ts'
import { eventually } from '../support/platform.ts'
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts'

/** Bookings a second through the balancer (the figure), and the endpoints each event goes to. */
const RATE = Number(process.env.CLUSTER_TEST_RATE ?? 20)
const ENDPOINTS = 10
const PAIRS = 10

let server: { url: string; stop(): Promise<void> }
let topology: ClusterTopology
let balancer: string
let db: Db
let temporalConnection: Connection
let temporal: Client
let receiver: WebhookReceiver

const processes = () => topology.processes()
const find = (nameOrRole: string) => topology.find(nameOrRole)

beforeAll(async () => {
  // The build takes ~11 minutes the first time on two cores; it is cached outside the clone after that.
  await obtainTemporalServer()
  const configured = process.env.TEST_DATABASE_URL
  server = configured ? { url: configured, stop: async () => undefined } : await startLocalTestServer()
  receiver = await startWebhookReceiver()
  topology = await startClusterTopology({
    serverUrl: server.url,
    // A killed worker's claims come back in seconds rather than a minute.
    env: { WEBHOOK_TIMEOUT_MS: '2000', WEBHOOK_CLAIM_LEASE_MS: '4000' },
  })
  balancer = topology.balancer
  db = createDb(topology.databaseUrl, 4)
  const frontend = await find('temporal-frontend')
  temporalConnection = await Connection.connect({ address: `127.0.0.1:${frontend.port}` })
  temporal = new Client({ connection: temporalConnection, namespace: 'default' })
}, 50 * 60_000)

afterAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed early
  await topology?.stop()
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed early
  await Promise.allSettled([db && closeDb(db), temporalConnection?.close(), receiver?.close()])
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed early
  await server?.stop()
}, 120_000)

/** A tenant with endpoints on ten receiver paths and PAIRS providers and children to book. */
async function bookingTenant(prefix: string) {
  const client = await provisionClient(db, {
    tenantName: `Cluster ${randomBytes(6).toString('hex')}`,
    scopes: ['children', 'providers', 'bookings', 'webhooks'],
  })
  const tokenAnswer = await httpClient(balancer).post('/oauth/token', {
    body: { grant_type: 'client_credentials', client_id: client.client_id, client_secret: client.client_secret },
  })
  expect(tokenAnswer.status).toBe(200)
  const token = tokenAnswer.body.access_token as string
  const send = spreadingClient(() => [balancer])
  const created = async (route: string, body: unknown) => {
    const sent = await send('POST', route, { token, body, key: randomUUID() })
    expect(sent.final.status, JSON.stringify(sent.final.body)).toBe(201)
    return sent.final.body.id as string
  }
  const paths = Array.from({ length: ENDPOINTS }, (_, i) => `/${prefix}-${i}`)
  for (const endpointPath of paths) {
    await created('/v1/webhook-endpoints', { url: receiver.url(endpointPath), events: ['booking.created'] })
  }
  const parties: Array<{ childId: string; providerId: string }> = []
  for (let i = 0; i < PAIRS; i++) {
    parties.push({
      childId: await created('/v1/children', { firstName: 'Clu', lastName: `Ster${i}`, dateOfBirth: '2021-03-03' }),
      providerId: await created('/v1/providers', { name: `Provider ${i}`, timeZone: 'UTC' }),
    })
  }
  const start = Date.UTC(new Date().getUTCFullYear() + 1, 0, 5, 0)
  const book = (i: number) => {
    const { childId, providerId } = parties[i % PAIRS]!
    const startsAt = new Date(start + Math.floor(i / PAIRS) * 3_600_000).toISOString()
    return send('POST', '/v1/appointments', { token, key: randomUUID(), body: { childId, providerId, startsAt } })
  }
  return { tenantId: client.tenantId, paths, book }
}

/**
 * Books at RATE a second (open loop: one every 1000/RATE ms whatever the answers' latency) while `during` runs, and
 * for at least `minMs`; resolves with every request's outcome.
 */
async function underLoad(
  tenant: Awaited<ReturnType<typeof bookingTenant>>,
  during: () => Promise<void>,
  minMs = 5_000
) {
  const began = Date.now()
  const sending: Array<Promise<Sent>> = []
  const phase = { done: false }
  const load = (async () => {
    for (let i = 0; !phase.done || Date.now() - began < minMs; i++) {
      sending.push(tenant.book(i))
      const due = began + ((i + 1) * 1000) / RATE
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, due - Date.now())))
    }
  })()
  await new Promise((resolve) => setTimeout(resolve, 2_000))
  try {
    await during()
  } finally {
    phase.done = true
  }
  await load
  return Promise.all(sending)
}

/** HAProxy's statistics row of backend `apis` for `server` (`BACKEND` for the whole backend), by column name. */
async function balancerStats(server: string): Promise<(column: string) => string> {
  const config = await readFile(path.join(topology.dataDir, 'cluster', 'haproxy.cfg'), 'utf8')
  const statsPort = /listen stats\n {2}bind 127\.0\.0\.1:(\d+)/.exec(config)?.[1]
  const csv = await (await fetch(`http://127.0.0.1:${statsPort}/stats;csv`)).text()
  const [header, ...rows] = csv.replace(/^# /, '').trim().split('\n')
  const columns = header!.split(',')
  const row = rows.map((line) => line.split(',')).find((cells) => cells[0] === 'apis' && cells[1] === server)
  if (!row) throw new Error(`no statistics for ${server}`)
  return (column) => row[columns.indexOf(column)] ?? ''
}

/** The balancer's retries and redispatches so far. */
async function balancerRetries(): Promise<{ retries: number; redispatches: number }> {
  const cell = await balancerStats('BACKEND')
  return { retries: Number(cell('wretr') || 0), redispatches: Number(cell('wredis') || 0) }
}

/** Whether the balancer sends to `api` (`UP`) or not (`DOWN`, or `UP 1/2` while it rises). */
async function apiStatus(api: string): Promise<string> {
  return (await balancerStats(api))('status')
}

/** Every booking answered 201, once per key, with one running booking workflow each, and every event everywhere. */
async function expectEverythingOnce(tenant: Awaited<ReturnType<typeof bookingTenant>>, results: Sent[]) {
  const fiveXx = results.flatMap((r) => r.statuses).filter((s) => s >= 500)
  const problems = results.filter((r) => r.final.status !== 201).map((r) => `${r.final.status} ${r.final.body?.code}`)
  expect(fiveXx, [...new Set(problems)].join('\n')).toEqual([])
  expect(problems).toEqual([])
  const ids = results.map((r) => r.final.body.id as string)
  expect(new Set(ids).size).toBe(results.length)
  const rows = await db.appointment.findMany({ where: { tenantId: tenant.tenantId }, select: { id: true } })
  expect(rows.map((r) => r.id).sort()).toEqual([...ids].sort())
  const running = `TenantId = '${tenant.tenantId}' AND WorkflowType = 'bookingWorkflow' AND ExecutionStatus = 'Running'`
  const all = `TenantId = '${tenant.tenantId}' AND WorkflowType = 'bookingWorkflow'`
  await eventually(
    async () => ((await temporal.workflow.count(running)).count >= ids.length ? true : undefined),
    120_000,
    1_000
  )
  expect((await temporal.workflow.count(all)).count).toBe(ids.length)
  const events = await db.event.findMany({ where: { tenantId: tenant.tenantId, type: 'booking.created' } })
  expect(events.length).toBe(ids.length)
  const expected = new Set(events.map((e) => e.id))
  const duplicates = await eventually(
    async () => {
      let extra = 0
      for (const endpointPath of tenant.paths) {
        const got = receiver.received(endpointPath).map((d) => JSON.parse(d.body).id as string)
        const seen = new Set(got)
        if ([...expected].some((id) => !seen.has(id))) return undefined
        extra += got.length - seen.size
      }
      return extra
    },
    180_000,
    1_000
  )
  return { bookings: ids.length, duplicates }
}

/** Until a booking sent now has its event at the first endpoint: the platform works end to end again. */
async function healed(tenant: Awaited<ReturnType<typeof bookingTenant>>, since: number, probe: number) {
  const sent = await tenant.book(probe)
  expect(sent.final.status, JSON.stringify(sent.final.body)).toBe(201)
  const bookingId = sent.final.body.id as string
  const arrived = () =>
    receiver
      .received(tenant.paths[0]!)
      .some((d) => (JSON.parse(d.body) as { data: { bookingId: string } }).data.bookingId === bookingId)
  await eventually(async () => (arrived() ? true : undefined), 120_000, 200)
  return { ms: Date.now() - since, sent }
}

/** Sends `signal` to one process and waits until processes.json names another pid for it. */
async function hit(nameOrRole: string, signal: NodeJS.Signals) {
  const before = await find(nameOrRole)
  process.kill(before.pid, signal)
  await eventually(
    async () => ((await find(nameOrRole).catch(() => before)).pid !== before.pid ? true : undefined),
    90_000,
    100
  )
}

describe('the cluster under 20 bookings a second', () => {
  it('survives kill -9 of history, matching, one API and one worker: nothing lost or twice, no 5xx', async () => {
    const tenant = await bookingTenant('killed')
    const healing: Record<string, number> = {}
    const probes: Sent[] = []
    const before = await balancerRetries()
    let probe = 1_000_000
    const results = await underLoad(tenant, async () => {
      for (const target of ['temporal-history', 'temporal-matching', 'api-1', 'worker-1']) {
        const at = Date.now()
        await hit(target, 'SIGKILL')
        const { ms, sent } = await healed(tenant, at, probe++)
        healing[target] = ms
        probes.push(sent)
        await new Promise((resolve) => setTimeout(resolve, 3_000))
      }
    })
    const outcome = await expectEverythingOnce(tenant, [...results, ...probes])
    const after = await balancerRetries()
    console.info(
      `kill -9 at ${RATE}/s: ${outcome.bookings} bookings, webhook duplicates ${outcome.duplicates}, ` +
        `balancer retries ${after.retries - before.retries} (redispatched ${after.redispatches - before.redispatches}), ` +
        `healed in ms ${JSON.stringify(healing)}`
    )
  })

  it('survives a rolling restart of every process, ours and Temporal’s, one at a time', async () => {
    const tenant = await bookingTenant('rolling')
    const restartMs: Record<string, number> = {}
    const before = await balancerRetries()
    const results = await underLoad(tenant, async () => {
      const ours = (await processes()).filter((p) => p.name && p.role !== 'balancer').map((p) => p.name!)
      for (const target of [...ours, 'temporal-frontend', 'temporal-history', 'temporal-matching', 'temporal-worker']) {
        const at = Date.now()
        await hit(target, 'SIGTERM')
        // As an operator's rolling restart does: the next API goes down only once the balancer sends to this one
        // again (its health checks' `rise 2`); before that both would be out and the balancer would answer 503.
        if (target.startsWith('api-'))
          await eventually(async () => ((await apiStatus(target)) === 'UP' ? true : undefined), 60_000, 200)
        restartMs[target] = Date.now() - at
      }
    })
    const outcome = await expectEverythingOnce(tenant, results)
    const after = await balancerRetries()
    console.info(
      `rolling restart at ${RATE}/s: ${outcome.bookings} bookings, webhook duplicates ${outcome.duplicates}, ` +
        `balancer retries ${after.retries - before.retries}, restarts in ms ${JSON.stringify(restartMs)}`
    )
  })
})
