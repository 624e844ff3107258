/**
 * @module Benchmark: the multi-location analytics request (`GET /v1/analytics/multi-location`) over 20 locations and a
 * year of appointments (about 200,000), measured one request at a time at two depths in the same run:
 *
 * - **endpoint**: the HTTP request to the running API with every platform guarantee (authentication, rate limit,
 *   tenant transaction with row-level security, audit record, OpenAPI validation of the query);
 * - **service**: `multiLocationAnalytics` alone in a tenant transaction (what the handler calls);
 *
 * plus the part of the service's time spent laying out working hours (`availableByLocation`), the service counting
 * every appointment and payment instead of reading the roll-ups (the design before them, in the same run; the two
 * answers are checked identical), and the CPU time one request costs (this process, plus the PostgreSQL server's
 * processes when it runs on this machine): on a shared machine wall-clock figures grow with the load, CPU time much
 * less, and it bounds what an idle machine would take.
 * Target (issue 7): under 200 ms median for the endpoint.
 *
 *   npx tsx bench/analytics.bench.ts                             # embedded PGlite unless BENCH_DATABASE_URL is set
 *   BENCH_DATABASE_URL=postgresql://... npx tsx bench/analytics.bench.ts
 *
 * Writes the figures to docs/benchmarks.md (section "Multi-location analytics (<database>)").
 */
import { randomBytes } from 'node:crypto'
import { readFileSync, readdirSync } from 'node:fs'
import { cpus, loadavg } from 'node:os'
import { startApi } from '../api/start-api.ts'
import { multiLocationAnalytics } from '../domain/analytics/analytics-service.ts'
import { resolveRange } from '../domain/analytics/analytics-range.ts'
import { availableByLocation } from '../domain/analytics/capacity.ts'
import { provisionClient } from '../domain/tenants/provision-client.ts'
import { loadConfig } from '../infra/config.ts'
import { createLogger } from '../infra/logger.ts'
import { runInUnitOfWork } from '../infra/unit-of-work.ts'
import { provisionTestDatabase } from '../test/support/test-database.ts'
import { seedAnalyticsYear } from './analytics-seed.ts'
import { time, type Timing } from './availability/timing.ts'
import { writeBenchmarkSection } from './report.ts'

const RUNS = Number(process.env.BENCH_RUNS ?? 40)
const TARGET_MS = 200
const ZONE = 'America/Chicago'

if (process.env.BENCH_DATABASE_URL) process.env.TEST_DATABASE_URL = process.env.BENCH_DATABASE_URL
const database = await provisionTestDatabase()
const config = loadConfig({
  NODE_ENV: 'test',
  DATABASE_URL: database.url,
  DATABASE_POOL_MAX: '4',
  PORT: '0',
  // Nothing here talks to Temporal; the client connects lazily and never does.
  TEMPORAL_ADDRESS: '127.0.0.1:1',
  LOG_LEVEL: 'silent',
  RATE_LIMIT_PER_MINUTE: '100000000',
})
const api = await startApi(config, createLogger('silent', 'bench'))
const db = api.deps.db
const client = await provisionClient(db, { tenantName: `Bench ${randomBytes(4).toString('hex')}`, scopes: ['analytics'] })
const { tenantId } = client

const start = new Date(Date.now() - 365 * 86_400_000)
start.setUTCHours(0, 0, 0, 0)
const seedStarted = Date.now()
const seeded = await seedAnalyticsYear(db, tenantId, client.locationId, start)
const seedSeconds = (Date.now() - seedStarted) / 1000
console.log(`seeded ${seeded.appointments} appointments in ${seedSeconds.toFixed(1)} s`)
await db.$executeRawUnsafe('ANALYZE')

const tokenResponse = await fetch(`${api.url}/oauth/token`, {
  method: 'POST',
  headers: { 'Content-Type': 'application/json' },
  body: JSON.stringify({ grant_type: 'client_credentials', client_id: client.client_id, client_secret: client.client_secret }),
})
const { access_token: token } = (await tokenResponse.json()) as { access_token: string }

const from = seeded.from.toISOString().slice(0, 10)
const to = seeded.to.toISOString().slice(0, 10)
const url = `${api.url}/v1/analytics/multi-location?${new URLSearchParams({ from, to, timeZone: ZONE })}`

/** CPU ms used so far by the local PostgreSQL server's processes (children of its postmaster); null when not local. */
async function databaseCpuMs(): Promise<number | null> {
  if (database.kind !== 'postgresql') return 0
  const [row] = await db.$queryRawUnsafe<Array<{ pid: number }>>('SELECT pg_backend_pid() AS pid')
  const statOf = (pid: string | number) => {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  }
  let postmaster: number
  try {
    postmaster = Number(statOf(row!.pid)[1])
  } catch {
    return null
  }
  let ticks = 0
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const fields = statOf(pid)
      if (Number(fields[1]) === postmaster) ticks += Number(fields[11]) + Number(fields[12])
    } catch {
      // the process ended meanwhile
    }
  }
  return ticks * 10 // Linux clock ticks are 10 ms
}

let bytes = 0
let appointmentsCounted = 0
const loadBefore = loadavg()[0]!
const cpuBefore = process.cpuUsage()
const dbCpuBefore = await databaseCpuMs()
const endpoint = await time(RUNS, 5, async () => {
  const response = await fetch(url, { headers: { Authorization: `Bearer ${token}` } })
  const body = await response.text()
  if (response.status !== 200) throw new Error(`analytics answered ${response.status}: ${body.slice(0, 300)}`)
  bytes = body.length
  appointmentsCounted = (JSON.parse(body) as { totals: { appointments: { total: number } } }).totals.appointments.total
})
const cpuAfter = process.cpuUsage(cpuBefore)
const dbCpuAfter = await databaseCpuMs()
// Per request, warm-up included (RUNS + 5 requests).
const apiCpuMs = (cpuAfter.user + cpuAfter.system) / 1000 / (RUNS + 5)
const dbCpuMs = dbCpuBefore === null || dbCpuAfter === null ? null : (dbCpuAfter - dbCpuBefore) / (RUNS + 5)
const now = new Date()
const service = await time(RUNS, 5, () =>
  runInUnitOfWork(db, tenantId, (uow) => multiLocationAnalytics(uow, { from, to, timeZone: ZONE }, now))
)
// The same request counting every record (no roll-ups), in the same run: the before/after on the same machine load,
// and a check that both answers are identical.
const withoutRollups = await time(RUNS, 5, () =>
  runInUnitOfWork(db, tenantId, (uow) => multiLocationAnalytics(uow, { from, to, timeZone: ZONE }, now, { rollups: false }))
)
const [rolled, counted] = await Promise.all(
  [true, false].map((rollups) => runInUnitOfWork(db, tenantId, (uow) => multiLocationAnalytics(uow, { from, to, timeZone: ZONE }, now, { rollups })))
)
const identical = JSON.stringify(rolled) === JSON.stringify(counted)
if (!identical) throw new Error('the answer from the roll-ups differs from counting every record')
const range = resolveRange(from, to, ZONE)
const capacity = await time(RUNS, 5, () =>
  runInUnitOfWork(db, tenantId, (uow) => availableByLocation(uow, { start: range.start.getTime(), end: range.end.getTime() }))
)
const loadAfter = loadavg()[0]!
console.log({ endpoint, service, withoutRollups, capacity, apiCpuMs, dbCpuMs, bytes, appointmentsCounted })

const ms = (t: Timing) => `${t.medianMs.toFixed(2)} / ${t.p95Ms.toFixed(2)}`
const met = endpoint.medianMs < TARGET_MS
await writeBenchmarkSection(
  `Multi-location analytics (${database.kind})`,
  [
    `Measured ${new Date().toISOString().slice(0, 10)} on this machine (${database.kind === 'pglite' ? 'embedded PGlite' : 'PostgreSQL server'}, ` +
      `Node ${process.versions.node}, ${cpus().length} CPUs, load ${loadBefore.toFixed(1)} → ${loadAfter.toFixed(1)}), one request at a time, ` +
      `${RUNS} runs after 5 warm-up. Data: 20 locations, 200 providers (weekday hours in three zones, 400 time-off entries), ` +
      `5,000 children, ${seeded.appointments.toLocaleString('en-US')} appointments over a year, 5,000 assessments, 50,000 orders ` +
      `with payments and refunds (seeded in ${seedSeconds.toFixed(0)} s). Request: ${from} to ${to} in ${ZONE}, every location. ` +
      'Command: `npx tsx bench/analytics.bench.ts` (`BENCH_DATABASE_URL` for a PostgreSQL server).',
    '',
    '| depth | median / p95 ms |',
    '|---|---|',
    `| endpoint (HTTP, all guarantees) | ${ms(endpoint)} |`,
    `| service (\`multiLocationAnalytics\` in a tenant transaction) | ${ms(service)} |`,
    `| of which working hours laid out (\`availableByLocation\`) | ${ms(capacity)} |`,
    `| service counting every appointment and payment instead of the roll-ups (same answer: ${identical ? 'yes' : 'NO'}) | ${ms(withoutRollups)} |`,
    '',
    `CPU time per endpoint request: ${apiCpuMs.toFixed(0)} ms in this process (API${database.kind === 'pglite' ? ' and the embedded database' : ''})` +
      (database.kind === 'postgresql' ? `, ${dbCpuMs === null ? 'not measured' : `${dbCpuMs.toFixed(0)} ms`} in the PostgreSQL server.` : '.'),
    '',
    `Target: endpoint median under ${TARGET_MS} ms: **${met ? 'met' : 'NOT met'}**. Answer: ${bytes.toLocaleString('en-US')} bytes, ` +
      `${appointmentsCounted.toLocaleString('en-US')} appointments counted.`,
  ].join('\n')
)
await api.stop()
await database.stop()
process.exit(0)
