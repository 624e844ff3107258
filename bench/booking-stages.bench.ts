/**
 * @module Benchmark: where a booking's server time goes, stage by stage, beside its floor (issue 48). Bookings
 * (`POST /v1/appointments`, deferred workflow starts as by default) are made one at a time on the real Temporal dev
 * server, the real worker and database, each followed by one request to the floor (bench/booking-floor.ts: one INSERT
 * and one workflow start), so both meet the same machine. The API runs with `SERVER_TIMING_STAGES=on`
 * (api/middleware/stage-timing.ts): each answer's `Server-Timing` says how long its token, rate-limit, transaction
 * (set-up, COMMIT and the after-commit work before the answer), audit and handler stages took, and the API thread's CPU
 * in each. Command: `npx tsx bench/booking-stages.bench.ts` (embedded PGlite unless BENCH_DATABASE_URL names a
 * PostgreSQL server); BENCH_BOOKINGS (300) sets how many are measured, after 20 not measured.
 *
 * Writes the figures to docs/benchmarks.md (section "Booking by stage (<database>)").
 */
import { loadavg } from 'node:os'
import { startApi } from '../api/start-api.ts'
import { loadConfig } from '../infra/config.ts'
import { createLogger } from '../infra/logger.ts'
import { startWorkerProcess } from '../scripts/start/worker-process.ts'
import { writeBenchmarkSection } from '../scripts/lib/benchmark-report.ts'
import { startBenchServers } from './bench-servers.ts'
import { appointmentParties, creatorFor } from './booking-parties.ts'
import { startFloor } from './booking-floor.ts'
import { newTenant, percentile, sleep } from './webhook-bench-kit.ts'

const MEASURED = Number(process.env.BENCH_BOOKINGS ?? 300)
const WARM_UP = 20
const PAIRS = 16
const HOUR_MS = 3_600_000

const servers = await startBenchServers('booking-stages')
const { database, temporal } = servers
const env = { ...servers.env, SERVER_TIMING_STAGES: 'on' }
const api = await startApi(loadConfig(env), createLogger('silent', 'bench'))
const worker = await startWorkerProcess({ ...env, LOG_LEVEL: 'info', WORKER_CPU_NICE: '10' })
const loadBefore = loadavg()[0]!
const stages = new Map<string, number[]>()
const booking: number[] = []
const floorLatency: number[] = []
try {
  const tenant = await newTenant(api, ['children', 'providers', 'bookings'])
  const headers = { 'Content-Type': 'application/json', Authorization: `Bearer ${tenant.token}` }
  const pairs = await appointmentParties(creatorFor(api.url, tenant.token), PAIRS)
  const floor = await startFloor(api.deps.db, database.url, api.deps.temporal, tenant.tenantId)
  const firstSlot = Math.ceil((Date.now() + 3 * 24 * HOUR_MS) / HOUR_MS) * HOUR_MS
  for (let n = 0; n < WARM_UP + MEASURED; n++) {
    const body = JSON.stringify({
      ...pairs[n % PAIRS]!,
      type: 'THERAPY_SESSION',
      startsAt: new Date(firstSlot + Math.floor(n / PAIRS) * HOUR_MS).toISOString(),
    })
    const t0 = performance.now()
    const answer = await fetch(`${api.url}/v1/appointments`, { method: 'POST', headers, body })
    await answer.text()
    const ms = performance.now() - t0
    if (answer.status !== 201) throw new Error(`booking: ${answer.status}`)
    const t1 = performance.now()
    const floorAnswer = await fetch(floor.url, { method: 'POST', headers, body })
    await floorAnswer.text()
    if (n >= WARM_UP) {
      booking.push(ms)
      floorLatency.push(performance.now() - t1)
      for (const metric of (answer.headers.get('server-timing') ?? '').split(',')) {
        const [, name, value] = /([\w-]+);dur=([\d.]+)/.exec(metric.trim()) ?? []
        if (name && value) stages.set(name, [...(stages.get(name) ?? []), Number(value)])
      }
    }
    // Paced like a client, not back to back: the worker and the sweeps get their turns as they would.
    await sleep(20)
  }
  await floor.stop()
} finally {
  await worker.kill('SIGTERM')
  await api.stop()
  await servers.stop()
}

const sorted = (values: number[]) => [...values].sort((a, b) => a - b)
const mean = (values: number[]) => values.reduce((sum, v) => sum + v, 0) / Math.max(1, values.length)
const median = (values: number[]) => percentile(sorted(values), 50)
const row = (stage: string) => {
  const time = stages.get(`stage-${stage}`) ?? []
  const cpu = stages.get(`cpu-${stage}`) ?? []
  return `| ${stage} | ${median(time).toFixed(3)} | ${mean(time).toFixed(3)} | ${mean(cpu).toFixed(3)} |`
}
const total = stages.get('total') ?? []
const report = [
  `Measured ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC (${database.kind === 'postgresql' ? 'PostgreSQL server' : 'embedded PGlite'}, ` +
    `Node ${process.versions.node}, Temporal ${temporal.version ?? 'dev server'}), ${MEASURED} bookings one at a time, ` +
    `each followed by one request to the floor; load average ${loadBefore.toFixed(1)} before and ` +
    `${loadavg()[0]!.toFixed(1)} after (2 CPUs, shared). Stages as in "Guarded read by stage"; \`transaction\` includes ` +
    'the after-commit work made before the answer. Command: `npx tsx bench/booking-stages.bench.ts`' +
    (database.kind === 'postgresql' ? ' with `BENCH_DATABASE_URL`.' : '.'),
  '',
  '| stage | server time ms, median | mean | CPU ms, mean |',
  '|---|---|---|---|',
  ...['token', 'rate-limit', 'transaction', 'audit', 'handler', 'other'].map(row),
  `| **total** (Server-Timing) | **${median(total).toFixed(3)}** | ${mean(total).toFixed(3)} | |`,
  '',
  `Client latency, median / p95: booking ${median(booking).toFixed(2)} / ${percentile(sorted(booking), 95).toFixed(2)} ms, ` +
    `the floor ${median(floorLatency).toFixed(2)} / ${percentile(sorted(floorLatency), 95).toFixed(2)} ms ` +
    `(${(median(booking) / median(floorLatency)).toFixed(2)}× at the median, one at a time).`,
].join('\n')
console.log(report)
if (process.env.BENCH_NO_DOC !== '1') await writeBenchmarkSection(`Booking by stage (${database.kind})`, report)
process.exit(0)
