/**
 * @module Benchmark: booking, `POST /v1/appointments` (the appointment, its booking workflow's start through the
 * outbox and its `booking.created` event) end to end, on the Temporal dev server, with the real worker in its own
 * process and the open-loop client in another (bench/webhook-peer.ts). Issue 22's targets: at 20 bookings/s for 60 s,
 * p95 at most 2× the floor (bench/booking-floor.ts: one INSERT plus one workflow start, measured in the same run at
 * the same rate); a sustainable rate of at least 60 bookings/s on 2 cores. Phases (BENCH_PHASES, default both):
 * - `fixed`: the floor and bookings in turns (BENCH_FIXED_SEGMENTS, 3, segments each, so both meet the same load),
 *   each at BENCH_RATE (20) requests/s for BENCH_SECONDS (60) in all;
 * - `views`: bookings at BENCH_RATE beside BENCH_VIEW_LOOPS (16) closed loops of `GET /v1/appointments/{id}/workflow`,
 *   in BENCH_VIEW_SEGMENTS (12) segments of 10 s alternating the loops on and off (booking-views.ts); issue 22's target
 *   is booking latency within 2× of its value without the views. Its section is "Bookings beside workflow-view loops
 *   (<database>, <start> starts)";
 * - `search`: bookings at each of BENCH_SEARCH_RATES for BENCH_STEP_SECONDS each, up to the first rate not sustained
 *   (booking-report.ts says what sustained means);
 * - `floor-search` (not in the default): the floor at the same steps, up to its first rate not sustained: what a
 *   request that does no more than one INSERT and one workflow start sustains on the same processes and cores, the
 *   ceiling for any booking that starts a workflow (issue 48).
 * Each run reports p50/p95/p99, CPU per booking by process (API, worker, Temporal, PostgreSQL) and Temporal actions
 * per booking; the section "Booking (<database>)" of docs/benchmarks.md is rewritten with them.
 *
 *   npm run bench:booking                                   # embedded PGlite, in its own process as `npm start` runs it
 *   BENCH_DATABASE_URL=postgresql://... npm run bench:booking
 *   BENCH_PHASES=fixed BENCH_SECONDS=10 npm run bench:booking   # a smoke run
 */
import { execFileSync } from 'node:child_process'
import { mkdir, writeFile } from 'node:fs/promises'
import { startApi } from '../api/start-api.ts'
import { APPOINTMENT_WORKFLOW } from '../common/appointments/appointment-workflow-contract.ts'
import { loadConfig } from '../infra/config.ts'
import { createLogger } from '../infra/logger.ts'
import { startWorkerProcess } from '../scripts/start/worker-process.ts'
import { startBenchServers } from './bench-servers.ts'
import { appointmentParties, creatorFor } from './booking-parties.ts'
import { startFloor } from './booking-floor.ts'
import { measureBookingsBesideViews, renderViewsReport } from './booking-views.ts'
import { renderBookingReport, type BookingResults, type BookingRun } from './booking-report.ts'
import { settleFigures } from './booking-settle.ts'
import { windowOpener } from './measured-window.ts'
import { temporalServerPid } from './process-cpu.ts'
import { writeBenchmarkSection } from '../scripts/lib/benchmark-report.ts'
import { findMetricsUrl } from './temporal-actions.ts'
import { newTenant, percentile, sleep } from './webhook-bench-kit.ts'
import { startPeer } from './webhook-peer-client.ts'

const RATE = Number(process.env.BENCH_RATE ?? 20)
const SECONDS = Number(process.env.BENCH_SECONDS ?? 60)
const FIXED_SEGMENTS = Number(process.env.BENCH_FIXED_SEGMENTS ?? 3)
const PHASES = new Set((process.env.BENCH_PHASES ?? 'fixed,views,search').split(','))
const SEARCH_RATES = (process.env.BENCH_SEARCH_RATES ?? '20,30,40,50,60,70,80,100,120,150,180').split(',').map(Number)
const STEP_SECONDS = Number(process.env.BENCH_STEP_SECONDS ?? 20)
const VIEW_LOOPS = Number(process.env.BENCH_VIEW_LOOPS ?? 16)
const VIEW_SEGMENTS = Number(process.env.BENCH_VIEW_SEGMENTS ?? 12)
const VIEW_SEGMENT_SECONDS = 10
/** BOOKING_WORKFLOW_START of the API: `deferred` (the default) or `immediate` (the first task at booking). */
const WORKFLOW_START = process.env.BENCH_BOOKING_WORKFLOW_START === 'immediate' ? 'immediate' : 'deferred'
/** A step whose p95 (answers, or the worker's settling) exceeds this is not sustained. */
const SUSTAINABLE_P95_MS = Number(process.env.BENCH_SUSTAINABLE_P95_MS ?? 1000)
/** How long after a step its booking workflows may still settle. */
const SETTLE_GRACE_MS = 5000
/** Providers (each with its own child): bookings of one provider queue on its row lock, as they would in production. */
const PAIRS = 64
const HOUR_MS = 3_600_000
/** The idle interval measured before the runs. */
const IDLE_SECONDS = Number(process.env.BENCH_IDLE_SECONDS ?? 10)

const log = (message: string) => process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}\n`)

const servers = await startBenchServers('booking-bench')
const { database, temporal, taskQueue } = servers
const env = { ...servers.env, BOOKING_WORKFLOW_START: WORKFLOW_START }
const api = await startApi(loadConfig(env), createLogger(process.env.BENCH_LOG_LEVEL ?? 'silent', 'bench'))
const peer = await startPeer(1)
const worker = await startWorkerProcess({ ...env, LOG_LEVEL: 'info', WORKER_CPU_NICE: '10' })
const serverPid = temporalServerPid()
const metricsUrl = serverPid === undefined ? undefined : await findMetricsUrl(serverPid)
const openWindow = windowOpener({
  db: api.deps.db,
  databaseKind: database.kind,
  temporal: api.deps.temporal,
  namespace: temporal.namespace,
  taskQueue,
  metricsUrl,
})

const tenant = await newTenant(api, ['children', 'providers', 'bookings'])
const headers = { 'Content-Type': 'application/json', Authorization: `Bearer ${tenant.token}` }
const create = creatorFor(api.url, tenant.token)
const pairs = await appointmentParties(create, PAIRS)
const firstSlot = Math.ceil((Date.now() + 3 * 24 * HOUR_MS) / HOUR_MS) * HOUR_MS
let nextBooking = 0
/** `count` request bodies, each a slot no other booking of the run has: pair i % 64, an hour after its last one. */
function bodies(count: number): string[] {
  return Array.from({ length: count }, () => {
    const n = nextBooking++
    const pair = pairs[n % PAIRS]!
    const startsAt = new Date(firstSlot + Math.floor(n / PAIRS) * HOUR_MS).toISOString()
    return JSON.stringify({ ...pair, type: 'THERAPY_SESSION', startsAt })
  })
}
const floor = await startFloor(api.deps.db, database.url, api.deps.temporal, tenant.tenantId)

/** One open-loop run of `kind` at `rate` for `seconds`, its interval measured. */
async function run(kind: BookingRun['kind'], rate: number, seconds: number): Promise<BookingRun> {
  const sent = bodies(Math.round(rate * seconds))
  const window = await openWindow()
  const result = await peer.load({
    url: kind === 'floor' ? floor.url : `${api.url}/v1/appointments`,
    headers,
    bodies: sent,
    rate,
    seconds,
  })
  const sentUntil = Date.now()
  // The worker's share of this interval includes settling what was started in it.
  const settle = kind === 'booking' ? await waitSettled(window.from, sentUntil, sent.length) : undefined
  const figures = await window.close()
  const latencies = result.latencies.filter((value) => Number.isFinite(value)).sort((a, b) => a - b)
  const outcome: BookingRun = {
    kind,
    rate,
    seconds,
    requests: result.latencies.length,
    statuses: result.statuses,
    errors: result.errors,
    p50: percentile(latencies, 50),
    p95: percentile(latencies, 95),
    p99: percentile(latencies, 99),
    max: latencies.at(-1) ?? NaN,
    sendSeconds: result.sendSeconds,
    settle,
    window: figures,
  }
  Object.assign(outcome, sustained(outcome))
  latenciesOf.set(outcome, latencies)
  log(
    `${kind} ${rate}/s: p50 ${outcome.p50.toFixed(0)} p95 ${outcome.p95.toFixed(0)} p99 ${outcome.p99.toFixed(0)} ms, ` +
      `${JSON.stringify(outcome.statuses)}, settle ${JSON.stringify(settle)}` +
      (outcome.sustained === false ? `; not sustained: ${outcome.notSustainedBecause!.join('; ')}` : '')
  )
  return outcome
}

/** Each run's sorted latencies, for merging the segments of the fixed phase. */
const latenciesOf = new WeakMap<BookingRun, number[]>()

/** Numbers added field by field, nested objects too (CPU by process, actions by workflow type). */
function addUp<T>(a: T, b: T): T {
  if (typeof a === 'number' && typeof b === 'number') return (a + b) as T
  if (a && b && typeof a === 'object' && typeof b === 'object') {
    const out: Record<string, unknown> = { ...(a as Record<string, unknown>) }
    for (const [k, v] of Object.entries(b as Record<string, unknown>)) out[k] = k in out ? addUp(out[k], v) : v
    return out as T
  }
  return a
}

/** One run of segments of the same kind and rate, run in turns with the other kind: their latencies and CPU together. */
function mergeRuns(runs: BookingRun[]): BookingRun {
  const latencies = runs.flatMap((r) => latenciesOf.get(r) ?? []).sort((a, b) => a - b)
  const [first] = runs
  const last = runs.at(-1)!
  const settles = runs.map((r) => r.settle).filter((s) => s !== undefined)
  const merged: BookingRun = {
    kind: first!.kind,
    rate: first!.rate,
    seconds: runs.reduce((n, r) => n + r.seconds, 0),
    requests: latencies.length,
    statuses: runs.reduce<Record<string, number>>((acc, r) => addUp(acc, r.statuses), {}),
    errors: runs.flatMap((r) => r.errors),
    p50: percentile(latencies, 50),
    p95: percentile(latencies, 95),
    p99: percentile(latencies, 99),
    max: latencies.at(-1) ?? NaN,
    sendSeconds: runs.reduce((n, r) => n + r.sendSeconds, 0),
    ...(settles.length > 0
      ? {
          settle: {
            started: settles.reduce((n, s) => n + s.started, 0),
            settled: settles.reduce((n, s) => n + s.settled, 0),
            deferred: settles.reduce((n, s) => n + s.deferred, 0),
            // The worst segment's: the segments' own samples are not kept.
            p50: Math.max(...settles.map((s) => s.p50)),
            p95: Math.max(...settles.map((s) => s.p95)),
            max: Math.max(...settles.map((s) => s.max)),
          },
        }
      : {}),
    window: {
      ...first!.window,
      seconds: runs.reduce((n, r) => n + r.window.seconds, 0),
      load: [first!.window.load[0], last.window.load[1], last.window.load[2]],
      cpu: runs.slice(1).reduce((acc, r) => addUp(acc, r.window.cpu), first!.window.cpu),
      actions: runs.slice(1).reduce((acc, r) => addUp(acc, r.window.actions), first!.window.actions),
    },
  }
  if (merged.kind === 'booking') Object.assign(merged, sustained(merged))
  return merged
}

/** Waits until the booking workflows started since `from` have settled (or the grace after `until` is over). */
async function waitSettled(from: number, until: number, expected: number) {
  const by = until + SETTLE_GRACE_MS
  for (;;) {
    const figures = await settleFigures(api.deps.temporal, {
      taskQueue,
      workflowType: APPOINTMENT_WORKFLOW,
      from,
      // A deferred booking's start is made just after its answer (issue 48): the last ones land after the step ends.
      to: by,
      by,
    })
    if ((figures.settled >= expected && figures.started >= expected) || Date.now() > by) return figures
    await sleep(1000)
  }
}

/** Whether a booking run held its rate (booking-report.ts explains the rule), and why not. */
function sustained(outcome: BookingRun): Pick<BookingRun, 'sustained' | 'notSustainedBecause'> {
  const why: string[] = []
  const created = outcome.statuses['201'] ?? 0
  if (created !== outcome.requests) why.push(`${outcome.requests - created} of ${outcome.requests} not 201`)
  if (!(outcome.p95 <= SUSTAINABLE_P95_MS)) why.push(`p95 ${outcome.p95.toFixed(0)} ms`)
  if (outcome.sendSeconds > outcome.seconds + 1) why.push(`sending took ${outcome.sendSeconds.toFixed(1)} s`)
  const settle = outcome.settle
  if (settle && settle.settled < outcome.requests) why.push(`${outcome.requests - settle.settled} workflows unsettled`)
  if (settle && !(settle.p95 <= SUSTAINABLE_P95_MS)) why.push(`settle p95 ${settle.p95.toFixed(0)} ms`)
  return { sustained: why.length === 0, notSustainedBecause: why }
}

const commit = (() => {
  try {
    const sha = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim()
    const dirty = execFileSync('git', ['status', '--porcelain', '--', ':!docs', ':!bench/results'], {
      encoding: 'utf8',
    }).trim()
    return dirty ? `${sha} + changes` : sha
  } catch {
    return 'unknown'
  }
})()
const results: BookingResults = {
  database: database.kind,
  placement: database.placement,
  node: process.versions.node,
  ...(temporal.version ? { temporal: temporal.version } : {}),
  commit,
  sustainableP95Ms: SUSTAINABLE_P95_MS,
  workflowStart: WORKFLOW_START,
}
const save = async () => {
  await mkdir(new URL('./results/', import.meta.url), { recursive: true })
  const file = new URL(`./results/booking-${database.kind}-${new Date().toISOString()}.json`, import.meta.url)
  await writeFile(file, `${JSON.stringify(results, null, 2)}\n`)
  if (process.env.BENCH_NO_DOC !== '1')
    await writeBenchmarkSection(
      `Booking (${database.kind}${WORKFLOW_START === 'immediate' ? ', immediate workflow starts' : ''})`,
      renderBookingReport(results)
    )
}
try {
  // Warm-up: the first requests compile Prisma queries, fill caches and start the worker's sticky caches.
  log('warming up')
  await run('floor', Math.min(RATE, 10), 3)
  await run('booking', Math.min(RATE, 10), 5)
  // What the processes use with nothing to do (the webhook pumps polling, the outbox and agent sweeps): the fixed cost
  // that a low rate divides among few bookings.
  log(`idle for ${IDLE_SECONDS} s`)
  const idle = await openWindow()
  await sleep(IDLE_SECONDS * 1000)
  results.idle = await idle.close()
  if (PHASES.has('fixed')) {
    log(`fixed: the floor and bookings in turns, ${FIXED_SEGMENTS} segments each, at ${RATE}/s for ${SECONDS} s each`)
    const floors: BookingRun[] = []
    const bookings: BookingRun[] = []
    for (let segment = 0; segment < FIXED_SEGMENTS; segment++) {
      floors.push(await run('floor', RATE, SECONDS / FIXED_SEGMENTS))
      bookings.push(await run('booking', RATE, SECONDS / FIXED_SEGMENTS))
    }
    results.fixed = { floor: mergeRuns(floors), booking: mergeRuns(bookings) }
    await save()
  }
  if (PHASES.has('views')) {
    log(`views: bookings at ${RATE}/s beside ${VIEW_LOOPS} workflow-view loops, on and off`)
    // Appointments booked an hour apart from the rest of the run, whose workflows the loops view.
    const viewed = await Promise.all(bodies(3).map((body) => create('/v1/appointments', JSON.parse(body) as object)))
    const views = await measureBookingsBesideViews({
      apiUrl: api.url,
      token: tenant.token,
      viewed,
      loops: VIEW_LOOPS,
      rate: RATE,
      segments: VIEW_SEGMENTS,
      segmentSeconds: VIEW_SEGMENT_SECONDS,
      book: (rate, seconds) =>
        peer.load({ url: `${api.url}/v1/appointments`, headers, bodies: bodies(rate * seconds), rate, seconds }),
      log,
    })
    const report = renderViewsReport(views, {
      database: database.kind,
      workflowStart: WORKFLOW_START === 'immediate' ? 'at once (every view asks a running workflow)' : 'deferred',
      commit,
      node: process.versions.node,
    })
    console.log(report)
    if (process.env.BENCH_NO_DOC !== '1')
      await writeBenchmarkSection(
        `Bookings beside workflow-view loops (${database.kind}, ${WORKFLOW_START} starts)`,
        report
      )
  }
  if (PHASES.has('search')) {
    results.search = []
    for (const rate of SEARCH_RATES) {
      log(`search: bookings at ${rate}/s for ${STEP_SECONDS} s`)
      const step = await run('booking', rate, STEP_SECONDS)
      results.search.push(step)
      await save()
      if (!step.sustained) break
    }
  }
  if (PHASES.has('floor-search')) {
    results.floorSearch = []
    for (const rate of SEARCH_RATES) {
      log(`floor search: the floor at ${rate}/s for ${STEP_SECONDS} s`)
      const step = await run('floor', rate, STEP_SECONDS)
      results.floorSearch.push(step)
      await save()
      if (!step.sustained) break
    }
  }
} finally {
  await worker.kill('SIGTERM')
  peer.stop()
  await floor.stop()
  await api.stop()
  await servers.stop()
}
if (results.fixed || results.search) console.log(renderBookingReport(results))
