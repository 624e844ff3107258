/**
 * @module Benchmark: an authenticated `GET /v1/children/{id}` with every platform guarantee on (authentication,
 * rate limiting, tenant-scoped transaction with row-level security, revocation check, audit record...) against the
 * same route handler with the guarantee middleware removed, measured in the same run on the same database.
 * Target: the guarded route keeps at least 60% of the baseline's throughput (issue 48; 50% before it).
 *
 *   npm run bench                      # embedded PGlite unless BENCH_DATABASE_URL names a PostgreSQL server
 *   BENCH_DATABASE_URL=postgresql://... npm run bench
 *
 * Writes the figures to docs/benchmarks.md (section "Guarded read").
 */
import { serve } from '@hono/node-server'
import { Hono } from 'hono'
import type { AddressInfo } from 'node:net'
import { randomBytes } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { cpus, loadavg } from 'node:os'
import { installTracing } from '../infra/tracing/tracing.ts'
import { startApi } from '../api/start-api.ts'
import { toChild } from '../api/routes/children/index.ts'
import { getChild } from '../domain/children/child-service.ts'
import { provisionClient } from '../domain/tenants/provision-client.ts'
import { loadConfig } from '../infra/config.ts'
import { createLogger } from '../infra/logger.ts'
import { provisionTestDatabase } from '../scripts/db/test-database.ts'
import { runLoadInWorker, type LoadResult } from './load.ts'
import { writeBenchmarkSection } from '../scripts/lib/benchmark-report.ts'
import { clientCredentialsToken } from '../scripts/lib/client-token.ts'
import { databaseLoginsEnv } from '../infra/db.ts'

const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16)
const ROUND_MS = Number(process.env.BENCH_ROUND_MS ?? 4000)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7)

if (process.env.BENCH_DATABASE_URL) process.env.TEST_DATABASE_URL = process.env.BENCH_DATABASE_URL
const database = await provisionTestDatabase()
const config = loadConfig({
  NODE_ENV: 'test',
  // The platform's own logins on a server, as deployed (docs/security.md, "Least privilege in the database").
  ...databaseLoginsEnv(database.logins),
  DATABASE_POOL_MAX: '20',
  PORT: '0',
  // Nothing here talks to Temporal; the client connects lazily and never does.
  TEMPORAL_ADDRESS: '127.0.0.1:1',
  LOG_LEVEL: 'silent',
  // The limiter runs, with a limit the benchmark cannot reach: its cost is measured, not its 429s.
  RATE_LIMIT_PER_MINUTE: '100000000',
  // Served on free ports: the benchmark runs more than one API.
  METRICS_PORT: '0',
})
const api = await startApi(config, createLogger('silent', 'bench'))
// The same API with metrics off (METRICS_PORT=off: no /metrics, and requests are not counted), to price them.
const apiWithoutMetrics = await startApi({ ...config, METRICS_PORT: 'off' }, createLogger('silent', 'bench'))
// The same API counting its rate limits in process memory, to price the shared PostgreSQL counters (issue 39).
const apiMemoryLimits = await startApi({ ...config, RATE_LIMIT_STORE: 'memory' }, createLogger('silent', 'bench'))

const client = await provisionClient(api.deps.db, {
  tenantName: `Bench ${randomBytes(4).toString('hex')}`,
  scopes: ['children'],
})
const token = await clientCredentialsToken(api.url, client)
const created = await fetch(`${api.url}/v1/children`, {
  method: 'POST',
  headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
  body: JSON.stringify({ firstName: 'Bench', lastName: 'Child', dateOfBirth: '2022-02-02' }),
})
const { id: childId } = (await created.json()) as { id: string }

// The baseline: the same handler and query, with no middleware at all.
const db = api.deps.db
const baselineApp = new Hono().get('/v1/children/:id', async (c) => {
  const uow = {
    tx: db,
    tenantId: client.tenantId,
    afterCommit: () => undefined,
    execute: async () => 0,
    query: async () => [],
    release: <T>(call: () => Promise<T>) => call(),
    beforeRelease: () => undefined,
    savepoint: async () => undefined,
    compensate: () => undefined,
    commitWith: () => undefined,
  }
  return c.json(toChild(await getChild(uow, c.req.param('id'))), 200)
})
const baseline = await new Promise<ReturnType<typeof serve>>((resolve) => {
  const s = serve({ fetch: baselineApp.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s))
})
const baselineUrl = `http://127.0.0.1:${(baseline.address() as AddressInfo).port}/v1/children/${childId}`
const guardedUrl = `${api.url}/v1/children/${childId}`
const withoutMetricsUrl = `${apiWithoutMetrics.url}/v1/children/${childId}`
const memoryLimitsUrl = `${apiMemoryLimits.url}/v1/children/${childId}`
const auth = { Authorization: `Bearer ${token}` }

/**
 * CPU seconds of this process's main thread, which serves both apps (the load runs on a worker thread). Linux only;
 * on a shared machine this is the figure to compare, as wall-clock throughput depends on what else runs.
 */
function serverThreadCpuSeconds(): number {
  const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8')
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return (Number(fields[11]) + Number(fields[12])) / 100
}

type Measured = LoadResult & { cpuMsPerRequest: number }

async function measure(url: string, headers?: Record<string, string>, durationMs = ROUND_MS): Promise<Measured> {
  const before = serverThreadCpuSeconds()
  const result = await runLoadInWorker({ url, headers, concurrency: CONCURRENCY, durationMs })
  return { ...result, cpuMsPerRequest: ((serverThreadCpuSeconds() - before) * 1000) / Math.max(1, result.requests) }
}

const loadBefore = loadavg()[0]!

await measure(baselineUrl, undefined, 1500)
await measure(guardedUrl, auth, 1500)
await measure(withoutMetricsUrl, auth, 1500)
await measure(memoryLimitsUrl, auth, 1500)
const results: {
  baseline: Measured[]
  guarded: Measured[]
  withoutMetrics: Measured[]
  memoryLimits: Measured[]
  traced: Measured[]
} = { baseline: [], guarded: [], withoutMetrics: [], memoryLimits: [], traced: [] }
const guardedSeries = [
  { url: guardedUrl, into: results.guarded },
  { url: withoutMetricsUrl, into: results.withoutMetrics },
  { url: memoryLimitsUrl, into: results.memoryLimits },
]
for (let round = 0; round < ROUNDS; round++) {
  results.baseline.push(await measure(baselineUrl))
  // In turns, each first once in three rounds: the database grows with every guarded request (audit records), so
  // whichever always ran last would always meet a slightly slower database.
  for (let i = 0; i < guardedSeries.length; i++) {
    const { url, into } = guardedSeries[(round + i) % guardedSeries.length]!
    into.push(await measure(url, auth))
  }
}
// Tracing is process-wide (OpenTelemetry's API): rounds of their own, every span recorded and handed to an exporter
// that drops it (the OTLP exporter's network write is off the request path, in its batch processor).
const tracing = installTracing(
  'therapy-care-api',
  {},
  {
    export: (_spans, done) => done({ code: 0 }),
    shutdown: async () => undefined,
  }
)
// An API started with tracing installed, as api/server.ts starts one when OTEL_EXPORTER_OTLP_ENDPOINT is set.
const apiTraced = await startApi(config, createLogger('silent', 'bench'))
const tracedUrl = `${apiTraced.url}/v1/children/${childId}`
await measure(tracedUrl, auth, 1500)
const tracedPairs: number[] = []
for (let round = 0; round < ROUNDS; round++) {
  const traced = await measure(tracedUrl, auth)
  results.traced.push(traced)
  tracedPairs.push(traced.requestsPerSecond / results.guarded[round]!.requestsPerSecond)
}
await apiTraced.stop()
await tracing.shutdown()
const loadAfter = loadavg()[0]!
const median = (xs: Measured[]) =>
  [...xs].sort((a, b) => a.requestsPerSecond - b.requestsPerSecond)[Math.floor(xs.length / 2)]!
const b = median(results.baseline)
const g = median(results.guarded)
const errors = Object.values(results)
  .flat()
  .reduce((n, r) => n + r.errors, 0)
// Each guarded round against the baseline round just before it: on a shared machine the speed drifts between rounds,
// and a pair sees the same drift. The ratio judged is the median of the pairs'.
const pairRatios = results.guarded
  .map((r, i) => r.requestsPerSecond / results.baseline[i]!.requestsPerSecond)
  .sort((x, y) => x - y)
const ratio = pairRatios[Math.floor(pairRatios.length / 2)]!
const medianOf = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!
// Metrics' price: each round with them against the round without them just before it (same drift).
const metricsCost =
  1 - medianOf(results.guarded.map((r, i) => r.requestsPerSecond / results.withoutMetrics[i]!.requestsPerSecond))
const metricsCpu =
  medianOf(results.guarded.map((r) => r.cpuMsPerRequest)) -
  medianOf(results.withoutMetrics.map((r) => r.cpuMsPerRequest))
const tracingCost = 1 - medianOf(tracedPairs)
// The shared limiter's price: each round's requests/s on memory counters over the same round's on the configured store.
const limiterStore = api.deps.rateLimiter.store
const limiterRatio = medianOf(
  results.memoryLimits.map((r, i) => r.requestsPerSecond / results.guarded[i]!.requestsPerSecond)
)
const limiterCpu =
  medianOf(results.guarded.map((r) => r.cpuMsPerRequest)) - medianOf(results.memoryLimits.map((r) => r.cpuMsPerRequest))

const row = (name: string, r: Measured) =>
  `| ${name} | ${r.requestsPerSecond.toFixed(0)} | ${r.p50Ms.toFixed(2)} | ${r.p99Ms.toFixed(2)} | ${r.cpuMsPerRequest.toFixed(2)} | ${r.requests} |`
const report = [
  `Measured ${new Date().toISOString().slice(0, 10)} on this machine (${database.kind === 'postgresql' ? 'PostgreSQL server' : 'embedded PGlite'}, ` +
    `Node ${process.versions.node}), ${CONCURRENCY} keep-alive connections, ${ROUNDS} alternating rounds of ` +
    `${ROUND_MS / 1000} s each (the rows: the median round of each route); load average ${loadBefore.toFixed(1)} before and ` +
    `${loadAfter.toFixed(1)} after (${cpus().length} CPUs; the machine may be shared). CPU ms/req is the API thread's CPU time per ` +
    `request, the figure to compare across runs on a busy machine. Command: \`npm run bench\`` +
    (database.kind === 'postgresql' ? ' with `BENCH_DATABASE_URL`.' : '.'),
  '',
  '| route | requests/s | p50 ms | p99 ms | CPU ms/req | requests |',
  '|---|---|---|---|---|---|',
  row('baseline: handler only', b),
  row('guarded: all guarantees', g),
  row('guarded, metrics off', median(results.withoutMetrics)),
  row('guarded, rate limits counted in memory', median(results.memoryLimits)),
  row('guarded, tracing on (after)', median(results.traced)),
  '',
  `**Ratio: ${(ratio * 100).toFixed(1)}%** of the baseline's throughput (target ≥ 60%): ${ratio >= 0.6 ? 'met' : 'NOT met'}. ` +
    `The median of the ${ROUNDS} rounds' ratios (each guarded round against the baseline round before it): ` +
    `${pairRatios.map((r) => `${(r * 100).toFixed(0)}%`).join(', ')}. Errors: ${errors}.`,
  '',
  `**Metrics cost ${(metricsCost * 100).toFixed(1)}%** of guarded throughput (target ≤ 5%): ` +
    `${metricsCost <= 0.05 ? 'met' : 'NOT met'}; ${metricsCpu.toFixed(3)} CPU ms per request (median round with ` +
    `metrics against the median round without). **Tracing on costs ${(tracingCost * 100).toFixed(1)}%** more ` +
    `(rounds with every span recorded, against the metrics-on rounds; no target).`,
  '',
  `**Rate limits in ${limiterStore}: the guarded GET costs ${limiterRatio.toFixed(2)}×** its cost with the counters ` +
    `in memory (target ≤ 1.3× for the shared PostgreSQL store): ` +
    `${limiterStore !== 'postgres' ? 'not judged (the store here is not the shared one)' : limiterRatio <= 1.3 ? 'met' : 'NOT met'}; ` +
    `${limiterCpu.toFixed(3)} API-thread CPU ms per request more (the median of each round's memory-counter ` +
    `requests/s over the same round's shared-store requests/s).`,
].join('\n')
console.log(report)
await writeBenchmarkSection(`Guarded read (${database.kind})`, report)

baseline.close()
await apiWithoutMetrics.stop()
await apiMemoryLimits.stop()
await api.stop()
await database.stop()
if (errors > 0) process.exitCode = 1
