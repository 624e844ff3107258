/**
 * @module Benchmark: webhook delivery end to end on the Temporal dev server. `child.registered` events are recorded at a
 * fixed rate by `recordEvent` in tenant units of work (the code path of every emitting operation, without the cost of
 * the operation itself), and delivered by the real worker (its own process) to a receiver on loopback with 1 and with
 * 20 endpoints subscribed. Measures the event rate sustained, the
 * event-to-delivery latency (from the event's `createdAt` to its arrival at the receiver: commit, fan-out, workflow
 * start, workflow and activity tasks, signing, POST), and checks that no event is lost (every event reaches every
 * endpoint; duplicates are counted too). Target: p95 under 1 s at 50 events/s.
 *
 *   npm run bench:webhooks                  # embedded PGlite unless BENCH_DATABASE_URL names a PostgreSQL server
 *   BENCH_RATE=50 BENCH_SECONDS=20 BENCH_ENDPOINTS=1,20 npm run bench:webhooks
 *
 * Writes the figures to docs/benchmarks.md (section "Webhooks (<database>)").
 */
import { createServer } from 'node:http'
import os from 'node:os'
import type { AddressInfo } from 'node:net'
import { randomBytes } from 'node:crypto'
import { startApi } from '../api/start-api.ts'
import { recordEvent } from '../domain/events/record-event.ts'
import { newId } from '../domain/ids.ts'
import { provisionClient } from '../domain/tenants/provision-client.ts'
import { loadConfig } from '../infra/config.ts'
import { createLogger } from '../infra/logger.ts'
import { runInUnitOfWork } from '../infra/unit-of-work.ts'
import { ensureTemporal } from '../scripts/temporal/dev-server.ts'
import { provisionTestDatabase } from '../test/support/test-database.ts'
import { startWorkerProcess } from '../test/support/worker-process.ts'
import { cpuBetween, cpuSnapshot, type CpuSnapshot } from './process-cpu.ts'
import { writeBenchmarkSection } from './report.ts'

const RATE = Number(process.env.BENCH_RATE ?? 50)
const SECONDS = Number(process.env.BENCH_SECONDS ?? 20)
/** Scenarios as `endpoints[:seconds]`, e.g. `1:20,20:10`; seconds default to BENCH_SECONDS. */
const SCENARIOS = (process.env.BENCH_ENDPOINTS ?? '1,20').split(',').map((item) => {
  const [endpoints, seconds] = item.split(':').map(Number)
  return { endpoints: endpoints!, seconds: seconds ?? SECONDS }
})
const DRAIN_TIMEOUT_MS = Number(process.env.BENCH_DRAIN_TIMEOUT_MS ?? 180_000)

if (process.env.BENCH_DATABASE_URL) process.env.TEST_DATABASE_URL = process.env.BENCH_DATABASE_URL
const postgresPort = process.env.BENCH_DATABASE_URL
  ? Number(new URL(process.env.BENCH_DATABASE_URL).port || 5432)
  : undefined
const log = (message: string) => process.stderr.write(`[bench] ${message}\n`)

const [database, temporal] = await Promise.all([
  provisionTestDatabase(),
  ensureTemporal({ port: 0, uiPort: false, log: () => undefined }),
])
const env = {
  NODE_ENV: 'test',
  DATABASE_URL: database.url,
  DATABASE_POOL_MAX: '10',
  TEMPORAL_ADDRESS: temporal.address,
  TEMPORAL_NAMESPACE: temporal.namespace,
  TEMPORAL_TASK_QUEUE: `bench-${randomBytes(4).toString('hex')}`,
  PORT: '0',
  LOG_LEVEL: 'silent',
  // The load is the point; the limiter would refuse it.
  RATE_LIMIT_PER_MINUTE: '100000000',
  WEBHOOK_REQUIRE_HTTPS: 'false',
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
}
const config = loadConfig(env)
const api = await startApi(config, createLogger(process.env.BENCH_LOG_LEVEL ?? 'silent', 'bench'))
// The worker logs at info: its readiness line is what startWorkerProcess waits for.
const worker = await startWorkerProcess({ ...env, LOG_LEVEL: 'info' })

// The receiver: records when each (event, endpoint) arrived, answers 200 at once.
const arrivals = new Map<string, number>()
let duplicates = 0
const receiver = createServer((request, response) => {
  const chunks: Buffer[] = []
  request.on('data', (chunk: Buffer) => chunks.push(chunk))
  request.on('end', () => {
    const at = Date.now()
    const { id } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: string }
    const key = `${id} ${request.url}`
    if (arrivals.has(key)) duplicates++
    else arrivals.set(key, at)
    response.writeHead(200).end()
  })
})
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve))
const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN

interface ScenarioResult {
  endpoints: number
  seconds: number
  events: number
  eventsPerSecond: number
  expected: number
  delivered: number
  duplicates: number
  lost: number
  p50: number
  p95: number
  p99: number
  max: number
  drainMs: number
  deliveriesPerSecond: number
  recordP50: number
  recordP95: number
  /** CPU seconds each process used from the first event to the last delivery. */
  cpu: CpuSnapshot
  load: [number, number]
  /** ms from the event to its delivery row (fan-out), from the row to the marked workflow start, to the first attempt. */
  stages: Record<'fanOut' | 'start' | 'attempt', { p50: number; p95: number }>
}

async function scenario(endpointCount: number, seconds: number): Promise<ScenarioResult> {
  const client = await provisionClient(api.deps.db, {
    tenantName: `Bench ${randomBytes(4).toString('hex')}`,
    scopes: ['children', 'webhooks'],
  })
  const tokenResponse = await fetch(`${api.url}/oauth/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({
      grant_type: 'client_credentials',
      client_id: client.client_id,
      client_secret: client.client_secret,
    }),
  })
  const { access_token: token } = (await tokenResponse.json()) as { access_token: string }
  const headers = { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` }
  const paths: string[] = []
  for (let i = 0; i < endpointCount; i++) {
    const path = `/${client.tenantId}/${i}`
    const created = await fetch(`${api.url}/v1/webhook-endpoints`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        url: `${receiverUrl}${path}`,
        events: ['child.registered'],
        signingScheme: i % 2 ? 'v2' : 'v1',
      }),
    })
    if (created.status !== 201) throw new Error(`endpoint: ${created.status} ${await created.text()}`)
    paths.push(path)
  }

  // Open loop: an event every 1/RATE s whatever the previous ones are doing, each recorded by recordEvent in its own
  // tenant unit of work, exactly as an operation records it (the in-process signal wakes this API's dispatcher).
  const events: Array<{ id: string; createdAt: number }> = []
  const recordLatencies: number[] = []
  const cpuBefore = cpuSnapshot(postgresPort)
  const loadBefore = os.loadavg()[0]!
  const total = Math.round(RATE * seconds)
  const started = performance.now()
  const inFlight: Promise<void>[] = []
  for (let i = 0; i < total; i++) {
    const due = started + (i * 1000) / RATE
    const wait = due - performance.now()
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait))
    inFlight.push(
      (async () => {
        const t0 = performance.now()
        const event = await runInUnitOfWork(api.deps.db, client.tenantId, (uow) =>
          recordEvent(uow, 'child.registered', { childId: newId('child'), locationId: null })
        )
        recordLatencies.push(performance.now() - t0)
        events.push({ id: event.id, createdAt: event.createdAt.getTime() })
      })()
    )
  }
  await Promise.all(inFlight)
  const sendSeconds = (performance.now() - started) / 1000

  const expected = events.length * paths.length
  const arrived = () => events.reduce((n, e) => n + paths.filter((p) => arrivals.has(`${e.id} ${p}`)).length, 0)
  const drainStart = Date.now()
  while (arrived() < expected && Date.now() - drainStart < DRAIN_TIMEOUT_MS)
    await new Promise((resolve) => setTimeout(resolve, 200))
  const cpu = cpuBetween(cpuBefore, cpuSnapshot(postgresPort))
  const load: [number, number] = [loadBefore, os.loadavg()[0]!]
  const latencies: number[] = []
  let last = 0
  for (const event of events) {
    for (const path of paths) {
      const at = arrivals.get(`${event.id} ${path}`)
      if (at === undefined) continue
      latencies.push(at - event.createdAt)
      last = Math.max(last, at)
    }
  }
  latencies.sort((a, b) => a - b)
  recordLatencies.sort((a, b) => a - b)
  // Where the time goes, from the timestamps the pipeline records: fan-out (delivery row created), workflow start
  // (marked after Temporal accepted it), first attempt (taken in the activity before the POST).
  const stages = { fanOut: [] as number[], start: [] as number[], attempt: [] as number[] }
  const rowsWithAttempts = await api.deps.db.webhookDelivery.findMany({
    where: { tenantId: client.tenantId },
    select: {
      createdAt: true,
      workflowStartedAt: true,
      event: { select: { createdAt: true } },
      attempts: { where: { number: 1 }, select: { attemptedAt: true } },
    },
  })
  for (const row of rowsWithAttempts) {
    stages.fanOut.push(row.createdAt.getTime() - row.event.createdAt.getTime())
    if (row.workflowStartedAt) stages.start.push(row.workflowStartedAt.getTime() - row.createdAt.getTime())
    const attempt = row.attempts[0]?.attemptedAt
    if (attempt) stages.attempt.push(attempt.getTime() - row.createdAt.getTime())
  }
  for (const list of Object.values(stages)) list.sort((a, b) => a - b)
  const firstEvent = Math.min(...events.map((e) => e.createdAt))
  const lastEvent = Math.max(...events.map((e) => e.createdAt))
  return {
    endpoints: endpointCount,
    seconds,
    events: events.length,
    eventsPerSecond: events.length / sendSeconds,
    expected,
    delivered: latencies.length,
    duplicates,
    lost: expected - latencies.length,
    p50: percentile(latencies, 50),
    p95: percentile(latencies, 95),
    p99: percentile(latencies, 99),
    max: latencies.at(-1) ?? NaN,
    drainMs: Math.max(0, last - lastEvent),
    deliveriesPerSecond: latencies.length / Math.max(0.001, (last - firstEvent) / 1000),
    stages: Object.fromEntries(
      Object.entries(stages).map(([name, list]) => [name, { p50: percentile(list, 50), p95: percentile(list, 95) }])
    ) as ScenarioResult['stages'],
    cpu,
    load,
    recordP50: percentile(recordLatencies, 50),
    recordP95: percentile(recordLatencies, 95),
  }
}

// Warm-up: the worker's first workflows pay for its sandbox and connections; not measured.
log('warming up')
await scenario(1, 3)
duplicates = 0
const results: ScenarioResult[] = []
for (const { endpoints, seconds } of SCENARIOS) {
  log(`${endpoints} endpoint(s) per event, ${RATE} events/s for ${seconds} s`)
  duplicates = 0
  results.push(await scenario(endpoints, seconds))
  log(JSON.stringify(results.at(-1)))
}

const ms = (value: number) => (Number.isFinite(value) ? value.toFixed(0) : '—')
const report = [
  `Measured ${new Date().toISOString().slice(0, 10)} on this machine (2 shared CPUs; ${database.kind === 'postgresql' ? 'PostgreSQL server' : 'embedded PGlite'}, ` +
    `Temporal CLI dev server, Node ${process.versions.node}; API and receiver in one process, worker in another). ` +
    `\`child.registered\` events recorded by \`recordEvent\` in tenant units of work at ${RATE}/s (open loop; duration per row) ` +
    `after a warm-up; latency from the ` +
    `event's \`createdAt\` to its arrival at a loopback receiver. "Missing at the end": not delivered when the drain ` +
    `timeout (${DRAIN_TIMEOUT_MS / 1000} s after the last event) ran out — still in their workflows, not lost. ` +
    `Command: \`npm run bench:webhooks\`${postgresPort === undefined ? '' : ' with `BENCH_DATABASE_URL`'} ` +
    `(\`BENCH_ENDPOINTS=${process.env.BENCH_ENDPOINTS ?? '1,20'}\`).`,
  '',
  '| endpoints per event | seconds | events | events/s sustained | deliveries | delivered/s | missing at the end | duplicates | p50 ms | p95 ms | p99 ms | max ms | drain after last event ms | recording transaction p50 / p95 ms |',
  '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|',
  ...results.map(
    (r) =>
      `| ${r.endpoints} | ${r.seconds} | ${r.events} | ${r.eventsPerSecond.toFixed(1)} | ${r.delivered} of ${r.expected} | ${r.deliveriesPerSecond.toFixed(0)} | ${r.lost} | ${r.duplicates} | ` +
      `${ms(r.p50)} | ${ms(r.p95)} | ${ms(r.p99)} | ${ms(r.max)} | ${ms(r.drainMs)} | ${ms(r.recordP50)} / ${ms(r.recordP95)} |`
  ),
  '',
  'Where the time goes (p50 / p95 ms): event → delivery row (fan-out); delivery row → workflow start acknowledged; delivery row → first attempt in the activity.',
  '',
  '| endpoints per event | fan-out | workflow started | first attempt |',
  '|---|---|---|---|',
  ...results.map(
    (r) =>
      `| ${r.endpoints} | ${ms(r.stages.fanOut.p50)} / ${ms(r.stages.fanOut.p95)} | ${ms(r.stages.start.p50)} / ${ms(r.stages.start.p95)} | ` +
      `${ms(r.stages.attempt.p50)} / ${ms(r.stages.attempt.p95)} |`
  ),
  '',
  'CPU used per delivery (ms), from the first event until the last delivery arrived (or the drain timeout), by process; ' +
    'the machine is shared, so the load average (1 min) at start and end is shown.',
  '',
  '| endpoints per event | API + dispatcher + receiver | worker | Temporal dev server | PostgreSQL | total | load average |',
  '|---|---|---|---|---|---|---|',
  ...results.map((r) => {
    const per = (seconds: number) => (r.delivered ? ((seconds * 1000) / r.delivered).toFixed(1) : '—')
    const total = r.cpu.api + r.cpu.worker + r.cpu.temporal + r.cpu.postgres
    return (
      `| ${r.endpoints} | ${per(r.cpu.api)} | ${per(r.cpu.worker)} | ${per(r.cpu.temporal)} | ` +
      `${postgresPort === undefined ? 'in the API process' : per(r.cpu.postgres)} | ${per(total)} | ${r.load[0].toFixed(1)} → ${r.load[1].toFixed(1)} |`
    )
  }),
  '',
  ...results.map(
    (r) =>
      `- ${r.endpoints} endpoint(s): target p95 < 1000 ms at ${RATE} events/s — **${r.p95 < 1000 && r.lost === 0 ? 'met' : 'NOT met'}**` +
      ` (p95 ${ms(r.p95)} ms, ${r.lost} missing, ${r.duplicates} duplicates).`
  ),
].join('\n')
console.log(report)
await writeBenchmarkSection(`Webhooks (${database.kind})`, report)

receiver.close()
await worker.kill('SIGTERM')
await api.stop()
await Promise.allSettled([temporal.stop(), database.stop()])
if (results.some((r) => r.lost > 0)) process.exitCode = 1
