/**
 * @module Benchmark: where a guarded `GET /v1/children/{id}` spends its server time and the API thread's CPU, stage by
 * stage (token, rate limit, tenant transaction, audit record, handler with serialisation), from the API's own
 * `Server-Timing` with `SERVER_TIMING_STAGES=on` (api/middleware/stage-timing.ts). One request at a time, so each
 * stage's time is its own; the bare handler (the same query and JSON, no middleware) is timed the same way beside it.
 *
 *   BENCH_DATABASE_URL=postgresql://... npx tsx bench/guarded-read-stages.bench.ts
 *
 * Writes docs/benchmarks.md, section "Guarded read by stage (<database>)". CPU by stage needs Node 23.9+
 * (`process.threadCpuUsage`); on older Node the CPU columns are empty.
 */
import { randomBytes } from 'node:crypto'
import { cpus, loadavg } from 'node:os'
import { performance } from 'node:perf_hooks'
import { startApi } from '../api/start-api.ts'
import { toChild } from '../api/routes/children/index.ts'
import { getChild } from '../domain/children/child-service.ts'
import { provisionClient } from '../domain/tenants/provision-client.ts'
import { loadConfig } from '../infra/config.ts'
import { createLogger } from '../infra/logger.ts'
import { provisionTestDatabase } from '../scripts/db/test-database.ts'
import { writeBenchmarkSection } from '../scripts/lib/benchmark-report.ts'
import { clientCredentialsToken } from '../scripts/lib/client-token.ts'
import { databaseLoginsEnv } from '../infra/db.ts'

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 2000)
const STAGES = ['token', 'rate-limit', 'transaction', 'audit', 'handler', 'other'] as const

if (process.env.BENCH_DATABASE_URL) process.env.TEST_DATABASE_URL = process.env.BENCH_DATABASE_URL
const database = await provisionTestDatabase()
const config = loadConfig({
  NODE_ENV: 'test',
  // The platform's own logins on a server, as deployed (docs/security.md, "Least privilege in the database").
  ...databaseLoginsEnv(database.logins),
  DATABASE_POOL_MAX: '20',
  PORT: '0',
  TEMPORAL_ADDRESS: '127.0.0.1:1',
  LOG_LEVEL: 'silent',
  RATE_LIMIT_PER_MINUTE: '100000000',
  METRICS_PORT: '0',
  SERVER_TIMING_STAGES: 'on',
  ...(process.env.RATE_LIMIT_STORE ? { RATE_LIMIT_STORE: process.env.RATE_LIMIT_STORE } : {}),
})
const api = await startApi(config, createLogger('silent', 'bench'))
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
const db = api.deps.db
const bareUow = {
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
const threadCpu = (process as { threadCpuUsage?: () => NodeJS.CpuUsage }).threadCpuUsage
const cpuMs = () => {
  if (!threadCpu) return 0
  const { user, system } = threadCpu.call(process)
  return (user + system) / 1000
}

/** The bare handler's work: the query and the JSON, timed in this thread (no HTTP: that is priced by `npm run bench`). */
async function bare(): Promise<{ ms: number; cpu: number }> {
  const t0 = performance.now()
  const c0 = cpuMs()
  JSON.stringify(toChild(await getChild(bareUow, childId)))
  return { ms: performance.now() - t0, cpu: cpuMs() - c0 }
}

const url = `${api.url}/v1/children/${childId}`
async function guarded(): Promise<Map<string, number>> {
  // Node's fetch keeps the connection alive between these sequential requests.
  const response = await fetch(url, { headers: { authorization: `Bearer ${token}` } })
  await response.text()
  if (response.status !== 200) throw new Error(`guarded GET answered ${response.status}`)
  const timing = response.headers.get('server-timing') ?? ''
  return new Map([...timing.matchAll(/([\w-]+);dur=([\d.]+)/g)].map((m) => [m[1]!, Number(m[2])] as [string, number]))
}

const loadBefore = loadavg()[0]!
for (let i = 0; i < 300; i++) {
  await guarded()
  await bare()
}
const samples: Array<Map<string, number>> = []
const bareSamples: Array<{ ms: number; cpu: number }> = []
for (let i = 0; i < REQUESTS; i++) {
  samples.push(await guarded())
  bareSamples.push(await bare())
}
const loadAfter = loadavg()[0]!

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length)
const of = (name: string) => samples.map((s) => s.get(name) ?? 0)
const cpuKnown = Boolean(threadCpu)
const rows = STAGES.map((stage) => {
  const wall = of(`stage-${stage}`)
  const cpu = of(`cpu-${stage}`)
  return `| ${stage} | ${median(wall).toFixed(3)} | ${mean(wall).toFixed(3)} | ${cpuKnown ? mean(cpu).toFixed(3) : '—'} |`
})
const total = of('total')
const platform = samples.map((s) => (s.get('total') ?? 0) - (s.get('stage-handler') ?? 0))
const platformCpu = samples.map((s) =>
  STAGES.filter((st) => st !== 'handler').reduce((n, st) => n + (s.get(`cpu-${st}`) ?? 0), 0)
)
const report = [
  `Measured ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC (${database.kind === 'postgresql' ? 'PostgreSQL server' : 'embedded PGlite'}, ` +
    `Node ${process.versions.node}, rate limits in ${api.deps.rateLimiter.store}), ${REQUESTS} guarded requests one at a time, each ` +
    `followed by the bare handler's work; load average ${loadBefore.toFixed(1)} before and ${loadAfter.toFixed(1)} after ` +
    `(${cpus().length} CPUs, shared). A stage's time is its middleware's own (its database waits included, what runs after it ` +
    'excluded): `token` = identifying the caller, authentication and the revocation check; `rate-limit` = counting the ' +
    'request; `transaction` = the unit of work (its set-up, COMMIT, after-commit work); `audit` = describing and writing ' +
    "the record; `handler` = the handler with its query (the transaction's BEGIN travels with it) and the JSON, plus the " +
    "middleware not timed (idempotency, body limit, the handler's savepoint pass); `other` = request id, access log, " +
    "metrics and everything before the first stage. CPU: the API thread's, mean per request. Command: " +
    '`npx tsx bench/guarded-read-stages.bench.ts` with `BENCH_DATABASE_URL`.',
  '',
  '| stage | server time ms, median | mean | CPU ms, mean |',
  '|---|---|---|---|',
  ...rows,
  `| **total** (Server-Timing) | **${median(total).toFixed(3)}** | ${mean(total).toFixed(3)} | ${cpuKnown ? STAGES.reduce((n, st) => n + mean(of(`cpu-${st}`)), 0).toFixed(3) : '—'} |`,
  `| platform (total − handler) | ${median(platform).toFixed(3)} | ${mean(platform).toFixed(3)} | ${cpuKnown ? mean(platformCpu).toFixed(3) : '—'} |`,
  `| bare handler (query + JSON, in process) | ${median(bareSamples.map((s) => s.ms)).toFixed(3)} | ${mean(bareSamples.map((s) => s.ms)).toFixed(3)} | ${cpuKnown ? mean(bareSamples.map((s) => s.cpu)).toFixed(3) : '—'} |`,
  '',
  `Platform share of the guarded request's server time, p50: **${median(platform).toFixed(2)} ms** (target ≤ 1 ms): ` +
    `${median(platform) <= 1 ? 'met' : 'NOT met'}.`,
].join('\n')
console.log(report)
if (process.env.BENCH_NO_DOC !== '1') await writeBenchmarkSection(`Guarded read by stage (${database.kind})`, report)
await api.stop()
await database.stop()
