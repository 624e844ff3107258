/**
 * @module Benchmark: PgBouncer in transaction mode between several APIs and PostgreSQL, with row-level security
 * (issue 75; docs/operations.md, "PostgreSQL connections for N processes"). BENCH_APIS (4) APIs, each with its pools
 * (DATABASE_POOL_MAX 10, and the background pool), serve `GET /v1/children` to BENCH_CLIENTS (64) closed-loop clients
 * for two tenants at once, every answer checked to hold only its own tenant's children; once straight to PostgreSQL,
 * once through Debian's PgBouncer (`pool_mode = transaction`, BENCH_POOL_SIZE, 10, server connections per database
 * and login). Figures: requests a second, p95, answers holding another tenant's rows (must be 0), and the most server
 * connections the platform's database had during each run. Written to docs/benchmarks.md, "PgBouncer in transaction
 * mode, with row-level security".
 *
 * The APIs run in this process (one event loop): the figures compare the two paths to the database on the same
 * processes, they are not the APIs' own ceiling (bench/booking.bench.ts and bench/guarded-read.bench.ts measure that).
 *
 *   npm run bench:pgbouncer     # PostgreSQL 16 of its own; PgBouncer from Debian (apt-get install pgbouncer)
 */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process'
import { chown, mkdtemp, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import pg from 'pg'
import { startApi, type RunningApi } from '../api/start-api.ts'
import { loadConfig } from '../infra/config.ts'
import { createLogger } from '../infra/logger.ts'
import { startLocalTestServer } from '../scripts/db/local-test-server.ts'
import { writeBenchmarkSection } from '../scripts/lib/benchmark-report.ts'
import { freePort } from '../scripts/start/start-process.ts'
import { startBenchServers } from './bench-servers.ts'
import { creatorFor } from './booking-parties.ts'
import { newTenant, percentile, sleep } from './webhook-bench-kit.ts'

const APIS = Number(process.env.BENCH_APIS ?? 4)
const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 64)
const SECONDS = Number(process.env.BENCH_SECONDS ?? 15)
const POOL_SIZE = Number(process.env.BENCH_POOL_SIZE ?? 10)
const CHILDREN = 20

const log = (message: string) => process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}\n`)

const server = process.env.BENCH_DATABASE_URL
  ? { url: process.env.BENCH_DATABASE_URL, stop: async () => undefined }
  : await startLocalTestServer()
process.env.BENCH_DATABASE_URL = server.url
const servers = await startBenchServers('pgbouncer-bench')
const { database } = servers

/** PgBouncer on a free port in front of the server, for the database's two logins (their passwords in its userlist). */
async function startPgBouncer(): Promise<{ port: number; stop(): Promise<void> }> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'pgbouncer-'))
  const target = new URL(server.url)
  const port = await freePort()
  const users = [database.logins.system, database.logins.units].map((url) => new URL(url))
  const userlist = users.map((u) => `"${decodeURIComponent(u.username)}" "${decodeURIComponent(u.password)}"`)
  await writeFile(path.join(dir, 'userlist.txt'), `${userlist.join('\n')}\n`, { mode: 0o600 })
  await writeFile(
    path.join(dir, 'pgbouncer.ini'),
    [
      '[databases]',
      `* = host=${target.hostname} port=${target.port || 5432}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      `unix_socket_dir = ${dir}`,
      'auth_type = scram-sha-256',
      `auth_file = ${path.join(dir, 'userlist.txt')}`,
      'pool_mode = transaction',
      `default_pool_size = ${POOL_SIZE}`,
      'max_client_conn = 2000',
      // Our pools set application_name on connect; PgBouncer keeps it per client rather than failing the startup.
      'ignore_startup_parameters = extra_float_digits,options',
      // It refuses to run as root: it drops to this account after reading its files.
      ...(process.getuid?.() === 0 ? ['user = nobody'] : []),
      '',
    ].join('\n')
  )
  if (process.getuid?.() === 0) {
    const nobody = Number(execFileSync('id', ['-u', 'nobody']).toString())
    for (const file of ['', 'userlist.txt', 'pgbouncer.ini']) await chown(path.join(dir, file), nobody, 0)
  }
  const child: ChildProcess = spawn('pgbouncer', [path.join(dir, 'pgbouncer.ini')], {
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  let errors = ''
  child.stderr?.on('data', (chunk: Buffer) => (errors = (errors + chunk.toString()).slice(-4000)))
  for (let i = 0; i < 50; i++) {
    const probe = new pg.Client({ connectionString: onPort(database.logins.units, port) })
    const ok = await probe.connect().then(
      () => true,
      () => false
    )
    await probe.end().catch(() => undefined)
    if (ok) break
    if (child.exitCode !== null) throw new Error(`pgbouncer exited: ${errors}`)
    await sleep(100)
  }
  return {
    port,
    async stop() {
      child.kill('SIGTERM')
      await rm(dir, { recursive: true, force: true })
    },
  }
}

const onPort = (url: string, port: number) => {
  const copy = new URL(url)
  copy.hostname = '127.0.0.1'
  copy.port = String(port)
  return copy.toString()
}

/** The most connections the platform's database has while `during` runs (sampled every 100 ms). */
async function peakConnections(during: Promise<unknown>): Promise<number> {
  const admin = new pg.Client({ connectionString: server.url })
  await admin.connect()
  let peak = 0
  const state = { done: false }
  void during.finally(() => (state.done = true))
  while (!state.done) {
    const { rows } = await admin.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1',
      [new URL(database.url).pathname.slice(1)]
    )
    peak = Math.max(peak, rows[0]!.n)
    await sleep(100)
  }
  await admin.end()
  return peak
}

interface RunFigures {
  path: string
  requests: number
  perSecond: number
  p95: number
  errors: number
  foreign: number
  peakConnections: number
}

async function run(label: string, pgbouncerPort?: number): Promise<RunFigures> {
  const urls = pgbouncerPort
    ? {
        DATABASE_URL: onPort(database.logins.system, pgbouncerPort),
        DATABASE_APP_URL: onPort(database.logins.units, pgbouncerPort),
      }
    : {}
  const apis: RunningApi[] = []
  for (let i = 0; i < APIS; i++) {
    // Several APIs in one process: no metrics port for any (they would share one).
    apis.push(
      await startApi(loadConfig({ ...servers.env, ...urls, METRICS_PORT: 'off' }), createLogger('silent', 'bench'))
    )
  }
  try {
    // Two tenants, each with children whose last name says whose they are.
    const tenants = await Promise.all(
      ['A', 'B'].map(async (name) => {
        const tenant = await newTenant(apis[0]!, ['children'])
        const create = creatorFor(apis[0]!.url, tenant.token)
        for (let i = 0; i < CHILDREN; i++) {
          await create('/v1/children', {
            firstName: `Child${i}`,
            lastName: `${label}-${name}`,
            dateOfBirth: '2021-04-04',
          })
        }
        return { name, token: tenant.token }
      })
    )
    const latencies: number[] = []
    let errors = 0
    let foreign = 0
    const deadline = Date.now() + SECONDS * 1000
    const load = Promise.all(
      Array.from({ length: CLIENTS }, async (_, c) => {
        const api = apis[c % APIS]!
        const tenant = tenants[c % 2]!
        while (Date.now() < deadline) {
          const t0 = performance.now()
          const response = await fetch(`${api.url}/v1/children?limit=${CHILDREN}`, {
            headers: { Authorization: `Bearer ${tenant.token}` },
          })
          const body = (await response.json()) as { data?: Array<{ lastName: string }> }
          latencies.push(performance.now() - t0)
          if (response.status !== 200) errors++
          else if ((body.data ?? []).some((child) => child.lastName !== `${label}-${tenant.name}`)) foreign++
        }
      })
    )
    const peak = await peakConnections(load)
    await load
    latencies.sort((a, b) => a - b)
    const figures = {
      path: label,
      requests: latencies.length,
      perSecond: latencies.length / SECONDS,
      p95: percentile(latencies, 95),
      errors,
      foreign,
      peakConnections: peak,
    }
    log(JSON.stringify(figures))
    return figures
  } finally {
    for (const api of apis) await api.stop()
  }
}

const pgbouncer = await startPgBouncer()
const version = execFileSync('pgbouncer', ['--version']).toString().split('\n')[0]
let results: RunFigures[]
try {
  results = [await run('direct'), await run('pgbouncer', pgbouncer.port), await run('direct-again')]
} finally {
  await pgbouncer.stop()
  await servers.stop()
  await server.stop()
}
const [direct, pooled, again] = results
const baseline = (direct!.perSecond + again!.perSecond) / 2
const report = [
  `Run ${new Date().toISOString().slice(0, 16)} UTC on ${os.cpus().length} cores: ${APIS} APIs (in one process), ` +
    `${CLIENTS} closed-loop clients of two tenants reading \`GET /v1/children\` (${CHILDREN} each) for ${SECONDS} s; ` +
    `${version}, \`pool_mode = transaction\`, \`default_pool_size = ${POOL_SIZE}\`; PostgreSQL 16. Direct runs before ` +
    'and after the pooled one; the ratio is to their mean.',
  '',
  '| path | requests/s | ratio | p95 (ms) | errors | answers with another tenant’s rows | most server connections |',
  '|---|---|---|---|---|---|---|',
  ...results.map(
    (r) =>
      `| ${r.path} | ${r.perSecond.toFixed(0)} | ${(r.perSecond / baseline).toFixed(2)} | ${r.p95.toFixed(1)} | ` +
      `${r.errors} | ${r.foreign} | ${r.peakConnections} |`
  ),
].join('\n')
process.stdout.write(`${report}\n`)
await writeBenchmarkSection('PgBouncer in transaction mode, with row-level security', report)
if (pooled!.foreign > 0 || direct!.foreign > 0) process.exitCode = 1
