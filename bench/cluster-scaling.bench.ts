/**
 * @module Benchmark: how the production topology scales (issue 75). The same topology `npm run start:cluster` runs (APIs
 * and workers of ours behind HAProxy, on PostgreSQL) with 1 and with 2 APIs and workers, once on the Temporal cluster
 * (four services on the same PostgreSQL server) and once on the development server (one process, SQLite in memory),
 * in one run on the same machine. Each configuration books through the balancer at rising rates (BENCH_RATES,
 * default 20,40,60,80,100; BENCH_STEP_SECONDS, 15, each; open loop from bench/webhook-peer.ts) with every
 * `booking.created` going to BENCH_ENDPOINTS (5) endpoints, up to the first rate not sustained: an answer other than
 * 201, a p95 over 1 s, or deliveries still missing 10 s after the step. Figures: the highest sustained rate (bookings/s
 * and deliveries/s), and the CPU per booking of each part at the first rate, from /proc, over the step and until its
 * deliveries arrived: API, worker, balancer, each Temporal service (or the dev server), PostgreSQL split by database
 * (platform, Temporal, the server's own processes). Written to docs/benchmarks.md, "Scaling: the Temporal cluster
 * against the development server".
 *
 *   npm run bench:cluster                                     # a PostgreSQL 16 of its own (scripts/db/local-test-server.ts)
 *   BENCH_DATABASE_URL=postgresql://... npm run bench:cluster # a server of yours (a role that may create databases)
 *   BENCH_CONFIGS=cluster-1,dev-1 BENCH_RATES=20 npm run bench:cluster   # a smoke run
 */
import os from 'node:os'
import { closeDb, createDb } from '../infra/db.ts'
import { provisionClient } from '../domain/tenants/provision-client.ts'
import { writeBenchmarkSection } from '../scripts/lib/benchmark-report.ts'
import { ensureTemporal } from '../scripts/temporal/dev-server.ts'
import { startClusterTopology } from '../test/support/cluster-topology.ts'
import { appointmentParties, creatorFor } from './booking-parties.ts'
import { clusterBenchServer, clusterParts, cpuByPart } from './cluster-parts.ts'
import { cpuSecondsOf, temporalServerPid } from './process-cpu.ts'
import { percentile, sleep } from './webhook-bench-kit.ts'
import { startPeer, type Peer } from './webhook-peer-client.ts'
import { renderScalingReport, type ConfigResult, type StepResult } from './cluster-scaling-report.ts'

const RATES = (process.env.BENCH_RATES ?? '20,40,60,80,100').split(',').map(Number)
const STEP_SECONDS = Number(process.env.BENCH_STEP_SECONDS ?? 15)
const ENDPOINTS = Number(process.env.BENCH_ENDPOINTS ?? 5)
const CONFIGS = (process.env.BENCH_CONFIGS ?? 'dev-1,cluster-1,dev-2,cluster-2').split(',')
const SUSTAINABLE_P95_MS = 1000
const DELIVERY_GRACE_MS = 10_000
const PAIRS = 64
const HOUR_MS = 3_600_000

const log = (message: string) => process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}\n`)

// The dev server of the `dev-*` configurations is started here, not taken from TEMPORAL_ADDRESS.
const server = await clusterBenchServer()
const peer = await startPeer(ENDPOINTS)

async function runConfig(name: string): Promise<ConfigResult> {
  const [kind, count] = name.split('-') as ['dev' | 'cluster', string]
  const instances = Number(count)
  const dev = kind === 'dev' ? await ensureTemporal({ port: 0, uiPort: false, log: () => undefined }) : undefined
  const devServerPid = dev ? temporalServerPid() : undefined
  log(
    `${name}: starting ${instances} API(s) and ${instances} worker(s) on ${kind === 'dev' ? 'the dev server' : 'the cluster'}`
  )
  const topology = await startClusterTopology({
    serverUrl: server.url,
    apis: instances,
    workers: instances,
    temporalAddress: dev?.address,
    env: { LOG_LEVEL: 'error', OUTBOUND_ALLOW_HTTP: 'true' },
  })
  const db = createDb(topology.databaseUrl, 2)
  try {
    const client = await provisionClient(db, {
      tenantName: `Scaling ${name}`,
      scopes: ['children', 'providers', 'bookings', 'webhooks'],
    })
    const token = await tokenOf(topology.balancer, client)
    const create = creatorFor(topology.balancer, token)
    for (let i = 0; i < ENDPOINTS; i++) {
      await create('/v1/webhook-endpoints', { url: `${peer.receiverUrl(i)}/${name}/${i}`, events: ['booking.created'] })
    }
    const pairs = await appointmentParties(create, PAIRS)
    const firstSlot = Math.ceil((Date.now() + 3 * 24 * HOUR_MS) / HOUR_MS) * HOUR_MS
    let next = 0
    const bodies = (n: number) =>
      Array.from({ length: n }, () => {
        const i = next++
        const startsAt = new Date(firstSlot + Math.floor(i / PAIRS) * HOUR_MS).toISOString()
        return JSON.stringify({ ...pairs[i % PAIRS]!, type: 'THERAPY_SESSION', startsAt })
      })
    const headers = { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` }
    const book = (rate: number, seconds: number) =>
      peer.load({ url: `${topology.balancer}/v1/appointments`, headers, bodies: bodies(rate * seconds), rate, seconds })
    // Warm-up: connections, JIT, the workers' caches, Temporal's task queue partitions.
    await book(10, 5)
    await waitDelivered(peer, name, 50 * ENDPOINTS, 60_000)

    const steps: StepResult[] = []
    for (const rate of RATES) {
      const roles = await clusterParts(server.url, topology, devServerPid)
      const deliveredBefore = countDelivered(peer, name)
      const cpuBefore = cpuSecondsOf(roles.keys())
      const began = Date.now()
      const result = await book(rate, STEP_SECONDS)
      const sentUntil = Date.now()
      const created = result.statuses['201'] ?? 0
      const lastArrival = await waitDelivered(peer, name, deliveredBefore + created * ENDPOINTS, 120_000)
      const cpu = cpuByPart(roles, cpuBefore, cpuSecondsOf(roles.keys()))
      const latencies = result.latencies.filter(Number.isFinite).sort((a, b) => a - b)
      const deliveryLagMs = lastArrival === undefined ? Infinity : lastArrival - sentUntil
      const step: StepResult = {
        rate,
        bookings: created,
        statuses: result.statuses,
        p95: percentile(latencies, 95),
        deliveriesPerSecond: lastArrival === undefined ? 0 : (created * ENDPOINTS * 1000) / (lastArrival - began),
        deliveryLagMs,
        cpuPerBookingMs: Object.fromEntries(
          Object.entries(cpu).map(([k, v]) => [k, (v * 1000) / Math.max(1, created)])
        ),
        sustained:
          created === result.latencies.length &&
          percentile(latencies, 95) <= SUSTAINABLE_P95_MS &&
          deliveryLagMs <= DELIVERY_GRACE_MS,
      }
      steps.push(step)
      log(
        `${name} ${rate}/s: ${JSON.stringify(result.statuses)} p95 ${step.p95.toFixed(0)} ms, deliveries ` +
          `${step.deliveriesPerSecond.toFixed(0)}/s, lag ${deliveryLagMs} ms${step.sustained ? '' : ` — not sustained ${result.errors.slice(0, 2).join(' | ')}`}`
      )
      if (!step.sustained) break
      await sleep(2_000)
    }
    return { name, kind, instances, steps }
  } finally {
    await closeDb(db)
    await topology.stop()
    await dev?.stop()
  }
}

async function tokenOf(balancer: string, client: { client_id: string; client_secret: string }): Promise<string> {
  const response = await fetch(`${balancer}/oauth/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ grant_type: 'client_credentials', ...client }),
  })
  if (response.status !== 200) throw new Error(`token: ${response.status} ${await response.text()}`)
  return ((await response.json()) as { access_token: string }).access_token
}

/** Deliveries of this configuration's endpoints so far (first arrivals only). */
function countDelivered(p: Peer, name: string): number {
  let n = 0
  for (const key of p.delivered.keys()) if (key.includes(` /${name}/`)) n++
  return n
}

/** Waits until `count` deliveries of the configuration arrived; answers when the last one did (undefined: timed out). */
async function waitDelivered(p: Peer, name: string, count: number, timeoutMs: number): Promise<number | undefined> {
  const until = Date.now() + timeoutMs
  while (Date.now() < until) {
    await p.sync()
    if (countDelivered(p, name) >= count) {
      let last = 0
      for (const [key, at] of p.delivered) if (key.includes(` /${name}/`) && at > last) last = at
      return last
    }
    await sleep(250)
  }
  return undefined
}

const results: ConfigResult[] = []
try {
  for (const name of CONFIGS) results.push(await runConfig(name))
} finally {
  peer.stop()
  await server.stop()
}
const report = renderScalingReport(results, {
  stepSeconds: STEP_SECONDS,
  endpoints: ENDPOINTS,
  machine: `${os.cpus().length} cores, ${os.cpus()[0]?.model ?? 'unknown CPU'}`,
})
process.stdout.write(`${report}\n`)
await writeBenchmarkSection('Scaling: the Temporal cluster against the development server', report)
