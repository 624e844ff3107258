/**
 * @module Benchmark: GET /v1/availability on a database holding a realistic month (200 providers, ~6 appointments
 * per provider per working day, time off, four weeks of history), for one provider over 28 days and for 200
 * providers over 7 days. Each scenario is measured at three depths in the same run, one request at a time:
 *
 * - **endpoint**: the HTTP request to the running API, with every platform guarantee (authentication, rate limit,
 *   tenant transaction with row-level security, audit record...);
 * - **engine**: the domain function alone in a tenant transaction (what the handler calls);
 * - **SQL only**: the one statement the engine runs (domain/availability/schedule-queries.ts), with the same
 *   parameters, sent straight through `pg` inside the same kind of transaction (tenant set, role therapy_app);
 *
 * plus **compute only**: the engine's pure part (rules, slots, formatting, JSON) on facts loaded once. The endpoint
 * series also reads the response's `Server-Timing` (api/middleware/server-timing.ts): the server's own time for the
 * request (`total`), and the handler's `load`, `compute` and `json`; the rest of what the client sees is loopback
 * and the client. Every series reports this process's CPU time per run besides wall clock. The API runs with
 * production settings for the hot path (RESPONSE_VALIDATION off, as in production; logging silenced).
 * Targets (median server time): under 5 ms for one provider over 28 days, under 100 ms for 200 providers over 7 days.
 *
 *   npm run bench:availability                          # embedded PGlite unless BENCH_DATABASE_URL is set
 *   BENCH_DATABASE_URL=postgresql://... npm run bench:availability
 *
 * Writes the figures to docs/benchmarks.md (section "Availability (<database>)").
 */
import pg from 'pg'
import { randomBytes } from 'node:crypto'
import { cpus, getPriority, loadavg } from 'node:os'
import { startApi } from '../api/start-api.ts'
import { MAX_DURATION_MINUTES } from '../domain/appointments/appointment-rules.ts'
import { findAvailability, providerAvailability } from '../domain/availability/availability-service.ts'
import { loadSchedules } from '../domain/availability/load-schedules.ts'
import { scheduleFactsSql, type ProviderSelection } from '../domain/availability/schedule-queries.ts'
import { provisionClient } from '../domain/tenants/provision-client.ts'
import { loadConfig } from '../infra/config.ts'
import { createLogger } from '../infra/logger.ts'
import { runInUnitOfWork } from '../infra/unit-of-work.ts'
import { provisionTestDatabase } from '../scripts/db/test-database.ts'
import { seedAvailabilityMonth } from './availability/seed.ts'
import { median, time, timeAlternating, type Timing } from './availability/timing.ts'
import { writeBenchmarkSection } from '../scripts/lib/benchmark-report.ts'
import { clientCredentialsToken } from '../scripts/lib/client-token.ts'
import { databaseLoginsEnv } from '../infra/db.ts'

const MINUTE = 60_000
const DAY = 24 * 60 * MINUTE
const PROVIDERS = 200
const DURATION = 60
const RUNS_ONE = Number(process.env.BENCH_RUNS_ONE ?? 300)
const RUNS_ALL = Number(process.env.BENCH_RUNS_ALL ?? 40)

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
  // As in production (infra/config.ts default); the test suite turns it on.
  RESPONSE_VALIDATION: 'off',
})
const api = await startApi(config, createLogger('silent', 'bench'))
const db = api.deps.db
const client = await provisionClient(db, {
  tenantName: `Bench ${randomBytes(4).toString('hex')}`,
  scopes: ['bookings.read'],
})
const { tenantId } = client

// The month starts next Monday (UTC midnight), so every seeded future appointment is still ahead of "now".
const start = new Date(Date.now() + DAY)
start.setUTCHours(0, 0, 0, 0)
start.setUTCDate(start.getUTCDate() + ((8 - start.getUTCDay()) % 7))
const seedStarted = Date.now()
const seeded = await seedAvailabilityMonth(db, { tenantId, locationId: client.locationId, providers: PROVIDERS, start })
const seedSeconds = (Date.now() - seedStarted) / 1000
console.log(
  `seeded ${seeded.appointments} appointments and ${seeded.timeOff} time-off entries in ${seedSeconds.toFixed(1)} s`
)
await db.$executeRawUnsafe('ANALYZE')

const token = await clientCredentialsToken(api.url, client)

interface Scenario {
  name: string
  days: number
  /** The provider(s) asked about on iteration i. */
  selection: (i: number) => { providerId?: string; limit?: number }
  runs: number
  target: number
}

const scenarios: Scenario[] = [
  {
    name: 'one provider, 28 days',
    days: 28,
    selection: (i) => ({ providerId: seeded.providerIds[i % PROVIDERS]! }),
    runs: RUNS_ONE,
    target: 5,
  },
  { name: '200 providers, 7 days', days: 7, selection: () => ({ limit: PROVIDERS }), runs: RUNS_ALL, target: 100 },
]

const sql = new pg.Client({ connectionString: database.url })
await sql.connect()

/** The engine's statement, with the engine's parameters. */
const factsStatement = (selection: ProviderSelection, from: number, to: number) =>
  scheduleFactsSql(selection, {
    from: new Date(from),
    to: new Date(to + DURATION * MINUTE),
    longestMinutes: MAX_DURATION_MINUTES,
  })

/** Runs `work` in a transaction set up as the unit of work does (tenant set, role therapy_app). */
async function inTenantTransaction<T>(work: () => Promise<T>): Promise<T> {
  await sql.query('BEGIN')
  await sql.query("SELECT set_config('app.tenant_id', $1, true), set_config('role', 'therapy_app', true)", [tenantId])
  const result = await work()
  await sql.query('COMMIT')
  return result
}

/** The statement through pg. @returns the providers and spans read */
const rawQueries = (selection: ProviderSelection, from: number, to: number) =>
  inTenantTransaction(async () => {
    const q = factsStatement(selection, from, to)
    const [row] = (await sql.query<{ facts: string }>(q.text, q.values)).rows
    return row!.facts.length
  })

/**
 * PostgreSQL's own planning and execution time of the statement (EXPLAIN ANALYZE), without the client. TIMING OFF:
 * per-node clocks around 400 subquery executions (200 providers) inflated the total by half.
 */
const serverTime = (selection: ProviderSelection, from: number, to: number) =>
  inTenantTransaction(async () => {
    const q = factsStatement(selection, from, to)
    type Plan = { 'Planning Time': number; 'Execution Time': number }
    const [row] = (
      await sql.query<{ 'QUERY PLAN': Plan[] }>(`EXPLAIN (ANALYZE, TIMING OFF, FORMAT JSON) ${q.text}`, q.values)
    ).rows
    const [plan] = row!['QUERY PLAN']
    return plan!['Planning Time'] + plan!['Execution Time']
  })

/** Medians of the endpoint's `Server-Timing` metrics. */
interface ServerTimings {
  total: number
  load: number
  compute: number
  json: number
  /** total - (load + compute + json), per request: the middleware's share (token, rate limit, transaction, audit). */
  platform: number
}

const loadBefore = loadavg()[0]!
const results: Array<{
  scenario: Scenario
  endpoint: Timing
  server: ServerTimings
  engine: Timing
  sqlOnly: Timing
  database: number
  compute: Timing
  bytes: number
  slots: number
  rows: number
  factsBytes: number
}> = []
for (const scenario of scenarios) {
  const from = start.getTime()
  const to = from + scenario.days * DAY
  const now = new Date()
  const queryOf = (i: number) => {
    const s = scenario.selection(i)
    return {
      providerIds: s.providerId ? [s.providerId] : undefined,
      limit: s.limit,
      from: new Date(from),
      to: new Date(to),
      durationMinutes: DURATION,
    }
  }
  const selectionOf = (i: number): ProviderSelection => {
    const s = scenario.selection(i)
    return s.providerId
      ? { tenantId, providerIds: [s.providerId], limit: 2 }
      : { tenantId, approvedOnly: true, limit: (s.limit ?? 50) + 1 }
  }
  const urlOf = (i: number) => {
    const s = scenario.selection(i)
    const params = new URLSearchParams({
      from: new Date(from).toISOString(),
      to: new Date(to).toISOString(),
      durationMinutes: String(DURATION),
    })
    if (s.providerId) params.set('providerId', s.providerId)
    if (s.limit) params.set('limit', String(s.limit))
    return `${api.url}/v1/availability?${params}`
  }

  let body = ''
  const metrics: Record<keyof ServerTimings, number[]> = { total: [], load: [], compute: [], json: [], platform: [] }
  let factsBytes = 0
  // The endpoint and its statement alone in alternation, so their ratio (issue 48: at most 2× for one provider) is
  // measured under the same load.
  const endpointStep = async (i: number) => {
    const response = await fetch(urlOf(i), { headers: { Authorization: `Bearer ${token}` } })
    body = await response.text()
    if (response.status !== 200) throw new Error(`availability answered ${response.status}: ${body.slice(0, 300)}`)
    for (const metric of (response.headers.get('Server-Timing') ?? '').split(',')) {
      const [name, dur] = metric.trim().split(';dur=')
      if (name && name in metrics) metrics[name as keyof ServerTimings].push(Number(dur))
    }
    const n = metrics.total.length - 1
    metrics.platform.push(metrics.total[n]! - metrics.load[n]! - metrics.compute[n]! - metrics.json[n]!)
  }
  const [endpoint, sqlOnly] = await timeAlternating(scenario.runs, 10, endpointStep, async (i) => {
    factsBytes = await rawQueries(selectionOf(i), from, to)
  })
  // Warm-up runs are in the samples too; a median over 10 more barely moves.
  const server: ServerTimings = {
    total: median(metrics.total),
    load: median(metrics.load),
    compute: median(metrics.compute),
    json: median(metrics.json),
    platform: median(metrics.platform),
  }
  // Counted outside the timing: the client's parsing is not server time.
  const bytes = body.length
  const slots = (JSON.parse(body) as { data: Array<{ slots: unknown[] }> }).data.reduce((n, p) => n + p.slots.length, 0)
  const engine = await time(scenario.runs, 10, (i) =>
    runInUnitOfWork(db, tenantId, (uow) => findAvailability(uow, queryOf(i), now))
  )
  const explained: number[] = []
  for (let i = 0; i < Math.min(scenario.runs, 50); i++) explained.push(await serverTime(selectionOf(i), from, to))
  explained.sort((a, b) => a - b)
  const inPostgres = explained[explained.length >> 1]!
  const loaded = await runInUnitOfWork(db, tenantId, (uow) =>
    loadSchedules(uow, selectionOf(0), { range: { start: from, end: to + DURATION * MINUTE } })
  )
  const compute = await time(scenario.runs, 10, async () => {
    const query = { from, to, durationMinutes: DURATION, stepMinutes: 15, now: now.getTime() }
    JSON.stringify(loaded.slice(0, scenario.selection(0).limit ?? 1).map((p) => providerAvailability(p, query)))
  })
  const rows = loaded
    .slice(0, scenario.selection(0).limit ?? 1)
    .reduce((n, p) => n + 1 + p.facts.timeOff.length + p.facts.appointments.length, 0)
  results.push({
    scenario,
    endpoint,
    server,
    engine,
    sqlOnly,
    database: inPostgres,
    compute,
    bytes,
    slots,
    rows,
    factsBytes,
  })
  console.log(scenario.name, { endpoint, server, engine, sqlOnly, inPostgres, compute, bytes, slots, rows, factsBytes })
}
await sql.end()

const loadAfter = loadavg()[0]!
const ms = (t: Timing) => `${t.medianMs.toFixed(2)} / ${t.p95Ms.toFixed(2)} / ${t.bestMs.toFixed(2)}`
const lines = [
  `Measured ${new Date().toISOString().slice(0, 10)} on this machine (${database.kind === 'postgresql' ? 'PostgreSQL server' : 'embedded PGlite'}, ` +
    `Node ${process.versions.node}, ${cpus().length} CPUs, load average ${loadBefore.toFixed(1)} before and ` +
    `${loadAfter.toFixed(1)} after: the machine is shared${getPriority() < 0 ? `; benchmark run at nice ${getPriority()}` : ''}), ` +
    `one request at a time. Data: ${PROVIDERS} providers in four US zones, ` +
    `${seeded.appointments} appointments (about six per provider per working day over five weeks, plus four weeks of ` +
    `history; 10% cancelled), ${seeded.timeOff} time-off entries, buffer 10 min, notice 120 min; ` +
    `${DURATION}-minute slots on a 15-minute grid. Command: \`npm run bench:availability\`` +
    (database.kind === 'postgresql' ? ' with `BENCH_DATABASE_URL`.' : '.'),
  '',
  '| scenario | client sees (HTTP) ms: median / p95 / best | **server time** ms (median) | of which load / compute / json / platform | engine ms | SQL only ms | in PostgreSQL ms | compute only ms | CPU ms per request: endpoint / engine / SQL only | rows read | slots | response | target (median server time) |',
  '|---|---|---|---|---|---|---|---|---|---|---|---|---|',
  ...results.map(
    (r) =>
      `| ${r.scenario.name} | ${ms(r.endpoint)} | **${r.server.total.toFixed(2)}** | ${r.server.load.toFixed(2)} / ${r.server.compute.toFixed(2)} / ${r.server.json.toFixed(2)} / ${r.server.platform.toFixed(2)} | ` +
      `${ms(r.engine)} | ${ms(r.sqlOnly)} | ${r.database.toFixed(2)} | ${ms(r.compute)} | ` +
      `${r.endpoint.cpuMs.toFixed(2)} / ${r.engine.cpuMs.toFixed(2)} / ${r.sqlOnly.cpuMs.toFixed(2)} | ${r.rows} | ${r.slots} | ` +
      `${(r.bytes / 1024).toFixed(0)} KiB | < ${r.scenario.target} ms: **${r.server.total < r.scenario.target ? 'met' : 'NOT met'}** |`
  ),
  '',
  "client sees: the whole HTTP request from a client in this process (loopback, the client's own reading of the " +
    'body included); server time: the `Server-Timing` `total` the API reports, from the first middleware to the ' +
    'response being ready (authentication, rate limit, tenant transaction, audit record, handler, JSON), and the ' +
    "handler's share: `load` (the statement's round trip and parsing its answer), `compute` (rules, slots, formatting), " +
    '`json` (serialising the answer), and `platform`, the rest of the server time (middleware: token, rate limit, ' +
    'tenant transaction set-up and commit, audit record; medians of each, so they need not add up); engine: `findAvailability` in a tenant transaction (BEGIN, tenant set-up, the ' +
    'statement, COMMIT, compute); SQL only: the same statement through `pg` in the same kind of transaction; in ' +
    'PostgreSQL: its planning and execution time as EXPLAIN (ANALYZE, TIMING OFF) reports it (median), i.e. without round trips and ' +
    "client; compute only: rules, slots and JSON on facts already in memory. CPU ms per request: this process's CPU " +
    'time (user + system) per run, averaged; for the endpoint it includes the in-process HTTP client, for SQL only the ' +
    "`pg` client; PostgreSQL's CPU is not in it. The endpoint and SQL only run in alternation, request by request.",
  '',
  ...results.map(
    (r) =>
      `**${r.scenario.name}: server time ÷ SQL only = ${(r.server.total / r.sqlOnly.medianMs).toFixed(2)}×** ` +
      `(${r.server.total.toFixed(2)} / ${r.sqlOnly.medianMs.toFixed(2)} ms, medians of the same alternating run)` +
      (r.scenario.days === 28
        ? `; target ≤ 2× (issue 48): **${r.server.total / r.sqlOnly.medianMs <= 2 ? 'met' : 'NOT met'}**.`
        : '.')
  ),
]
const report = lines.join('\n')
console.log(report)
await writeBenchmarkSection(`Availability (${database.kind})`, report)

await api.stop()
await database.stop()
