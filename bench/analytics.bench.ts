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
import { readFileSync } from 'node:fs'
import { cpus, loadavg } from 'node:os'
import { startApi } from '../api/start-api.ts'
import { multiLocationAnalytics } from '../domain/analytics/analytics-service.ts'
import { resolveRange } from '../domain/analytics/analytics-range.ts'
import { availableByLocation } from '../domain/analytics/capacity.ts'
import { provisionClient } from '../domain/tenants/provision-client.ts'
import { loadConfig } from '../infra/config.ts'
import { createLogger } from '../infra/logger.ts'
import { runInUnitOfWork } from '../infra/unit-of-work.ts'
import { provisionTestDatabase } from '../scripts/db/test-database.ts'
import { seedAnalyticsYear } from './analytics-seed.ts'
import { time, type Timing } from './availability/timing.ts'
import { writeBenchmarkSection } from '../scripts/lib/benchmark-report.ts'
import { clientCredentialsToken } from '../scripts/lib/client-token.ts'
import { databaseLoginsEnv } from '../infra/db.ts'

const RUNS = Number(process.env.BENCH_RUNS ?? 40)
const TARGET_MS = 200
const ZONE = 'America/Chicago'

if (process.env.BENCH_DATABASE_URL) process.env.TEST_DATABASE_URL = process.env.BENCH_DATABASE_URL
const database = await provisionTestDatabase()
const config = loadConfig({
  NODE_ENV: 'test',
  // The platform's own logins on a server, as deployed (docs/security.md, "Least privilege in the database").
  ...databaseLoginsEnv(database.logins),
  DATABASE_POOL_MAX: '4',
  PORT: '0',
  // Nothing here talks to Temporal; the client connects lazily and never does.
  TEMPORAL_ADDRESS: '127.0.0.1:1',
  LOG_LEVEL: 'silent',
  RATE_LIMIT_PER_MINUTE: '100000000',
})
const api = await startApi(config, createLogger('silent', 'bench'))
const db = api.deps.db
const client = await provisionClient(db, {
  tenantName: `Bench ${randomBytes(4).toString('hex')}`,
  scopes: ['analytics'],
})
const { tenantId } = client

const start = new Date(Date.now() - 365 * 86_400_000)
start.setUTCHours(0, 0, 0, 0)
const seedStarted = Date.now()
const seeded = await seedAnalyticsYear(db, tenantId, client.locationId, start)
const seedSeconds = (Date.now() - seedStarted) / 1000
console.log(`seeded ${seeded.appointments} appointments in ${seedSeconds.toFixed(1)} s`)
await db.$executeRawUnsafe('ANALYZE')

const token = await clientCredentialsToken(api.url, client)

const from = seeded.from.toISOString().slice(0, 10)
const to = seeded.to.toISOString().slice(0, 10)
const url = `${api.url}/v1/analytics/multi-location?${new URLSearchParams({ from, to, timeZone: ZONE })}`

/**
 * CPU ticks used so far by each server process of this benchmark's database (its connections and their parallel
 * workers), by pid; 0 ticks for PGlite; null when the server is not on this machine. Only this database's processes
 * count: the server is shared with other agents, whose connections come and go (summing every child of the
 * postmaster once gave a negative difference). A parallel worker that ended between two readings is not counted, so
 * the figure is a lower bound when the plan uses them.
 */
async function databaseCpuTicks(): Promise<Map<number, number> | null> {
  if (database.kind !== 'postgresql') return new Map()
  const rows = await db.$queryRawUnsafe<Array<{ pid: number }>>(
    'SELECT pid FROM pg_stat_activity WHERE datname = current_database()'
  )
  const ticks = new Map<number, number>()
  for (const { pid } of rows) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      ticks.set(pid, Number(fields[11]) + Number(fields[12]))
    } catch {
      // the process ended meanwhile, or the server is not on this machine (then none is readable: null below)
    }
  }
  return ticks.size || !rows.length ? ticks : null
}

/** CPU ms between two readings of {@link databaseCpuTicks}: processes alive at the end, minus what they had used before. */
function databaseCpuMsBetween(before: Map<number, number> | null, after: Map<number, number> | null): number | null {
  if (!before || !after) return null
  let ticks = 0
  for (const [pid, t] of after) ticks += t - (before.get(pid) ?? 0)
  return ticks * 10 // Linux clock ticks are 10 ms
}

let bytes = 0
let appointmentsCounted = 0
const loadBefore = loadavg()[0]!
const cpuBefore = process.cpuUsage()
const dbCpuBefore = await databaseCpuTicks()
const endpoint = await time(RUNS, 5, async () => {
  const response = await fetch(url, { headers: { Authorization: `Bearer ${token}` } })
  const body = await response.text()
  if (response.status !== 200) throw new Error(`analytics answered ${response.status}: ${body.slice(0, 300)}`)
  bytes = body.length
  appointmentsCounted = (JSON.parse(body) as { totals: { appointments: { total: number } } }).totals.appointments.total
})
const cpuAfter = process.cpuUsage(cpuBefore)
const dbCpuAfter = await databaseCpuTicks()
// Per request, warm-up included (RUNS + 5 requests).
const apiCpuMs = (cpuAfter.user + cpuAfter.system) / 1000 / (RUNS + 5)
const dbCpuBetween = databaseCpuMsBetween(dbCpuBefore, dbCpuAfter)
const dbCpuMs = dbCpuBetween === null ? null : dbCpuBetween / (RUNS + 5)
const now = new Date()
/** Times the service, with its CPU per request in this process and in this database's server processes. */
async function timeService(rollups: boolean) {
  const cpuBefore = process.cpuUsage()
  const dbBefore = await databaseCpuTicks()
  const timing = await time(RUNS, 5, () =>
    runInUnitOfWork(db, tenantId, (uow) => multiLocationAnalytics(uow, { from, to, timeZone: ZONE }, now, { rollups }))
  )
  const cpu = process.cpuUsage(cpuBefore)
  const dbMs = databaseCpuMsBetween(dbBefore, await databaseCpuTicks())
  return {
    timing,
    cpuMs: (cpu.user + cpu.system) / 1000 / (RUNS + 5),
    dbCpuMs: dbMs === null ? null : dbMs / (RUNS + 5),
  }
}
const service = await timeService(true)
// The same request counting every record (no roll-ups), in the same run: the before/after under the same machine
// load, and a check that both answers are identical.
const withoutRollups = await timeService(false)
const [rolled, counted] = await Promise.all(
  [true, false].map((rollups) =>
    runInUnitOfWork(db, tenantId, (uow) => multiLocationAnalytics(uow, { from, to, timeZone: ZONE }, now, { rollups }))
  )
)
const identical = JSON.stringify(rolled) === JSON.stringify(counted)
if (!identical) throw new Error('the answer from the roll-ups differs from counting every record')
const range = resolveRange(from, to, ZONE)
const capacity = await time(RUNS, 5, () =>
  runInUnitOfWork(db, tenantId, (uow) =>
    availableByLocation(uow, { start: range.start.getTime(), end: range.end.getTime() })
  )
)
const loadAfter = loadavg()[0]!
console.log({ endpoint, service, withoutRollups, capacity, apiCpuMs, dbCpuMs, bytes, appointmentsCounted })

const cpuText = (api: number, db: number | null) =>
  database.kind === 'pglite'
    ? `${api.toFixed(0)} ms`
    : `${api.toFixed(0)} / ${db === null ? 'not measured' : db.toFixed(0)} ms`
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
    `| service (\`multiLocationAnalytics\` in a tenant transaction) | ${ms(service.timing)} |`,
    `| of which working hours laid out (\`availableByLocation\`) | ${ms(capacity)} |`,
    `| service counting every appointment and payment instead of the roll-ups (same answer: yes, checked above) | ${ms(withoutRollups.timing)} |`,
    '',
    `CPU time per request, in this process (API${database.kind === 'pglite' ? ' and the embedded database' : ''})` +
      (database.kind === 'postgresql' ? " / in this database's PostgreSQL processes" : '') +
      `: endpoint ${cpuText(apiCpuMs, dbCpuMs)}; service ${cpuText(service.cpuMs, service.dbCpuMs)}; ` +
      `service counting every record ${cpuText(withoutRollups.cpuMs, withoutRollups.dbCpuMs)}.`,
    '',
    `Target: endpoint median under ${TARGET_MS} ms: **${met ? 'met' : 'NOT met'}**. Answer: ${bytes.toLocaleString('en-US')} bytes, ` +
      `${appointmentsCounted.toLocaleString('en-US')} appointments counted.`,
  ].join('\n')
)
await api.stop()
await database.stop()
process.exit(0)
