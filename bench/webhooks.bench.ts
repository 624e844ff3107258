/**
 * @module Benchmark: webhook delivery end to end (docs/webhooks.md, "Delivery"), on the Temporal dev server, with the
 * real worker in its own process and the receivers on loopback in another (bench/webhook-peer.ts). Events are
 * recorded at a fixed rate by `recordEvent` in tenant units of work (the code path of every emitting operation), or
 * by a real emitting call over HTTP (`POST /v1/children`). Scenarios, each selectable with BENCH_SCENARIOS:
 * - `steady`: 1 and 20 endpoints per event (BENCH_ENDPOINTS) at BENCH_RATE events/s for BENCH_SECONDS: latency from
 *   the event's commit to its arrival, losses, duplicates, where the time goes, CPU by process, Temporal actions;
 * - `failing`: 20 endpoints, one answering 500 throughout, at each of BENCH_FAILING_RATES: the healthy endpoints'
 *   latency and the failing endpoint's Temporal actions;
 * - `api`: each emitting call of BENCH_API_CALLS (`POST /v1/payments`, `POST /v1/children`) at each of BENCH_API_RATES
 *   requests/s, with no endpoint subscribed, then with 20;
 * - `kill`: the 20-endpoint run with the worker killed (SIGKILL) BENCH_KILL_AT_S seconds in and started again;
 * - `kill-api`: payments at BENCH_RATE/s to an API process of its own with 20 endpoints subscribed, the API killed
 *   (SIGKILL) BENCH_KILL_AT_S seconds in and started again;
 * - `sigterm`: a backlog behind slow receivers, the worker stopped with SIGTERM and started again;
 *
 * The earlier design's Temporal actions per delivery (one workflow each) are the recorded figure in webhook-report.ts:
 * its workflows now hand their deliveries to the queue, so there is nothing of it left to measure.
 *
 *   npm run bench:webhooks                         # embedded PGlite unless BENCH_DATABASE_URL names a server
 *   BENCH_EMBEDDED=in-process npm run bench:webhooks  # PGlite inside the benchmark's (the API's) process
 *   BENCH_SCENARIOS=steady BENCH_ENDPOINTS=20 BENCH_SECONDS=30 npm run bench:webhooks
 *
 * Each scenario's figures are kept in bench/results/webhooks-<database>.json; the section "Webhooks (<database>)" of
 * docs/benchmarks.md is rebuilt from the latest figures of every scenario. BENCH_SETTINGS=KEY=value,... runs with
 * other settings (e.g. WEBHOOK_ENDPOINT_CONCURRENCY=16) as an experiment, kept apart; BENCH_SCENARIOS=report only
 * rebuilds the section from the stored figures.
 */
import { startApi } from '../api/start-api.ts'
import { loadConfig } from '../infra/config.ts'
import { createLogger } from '../infra/logger.ts'
import { startWorkerProcess, type WorkerProcess } from '../scripts/start/worker-process.ts'
import { startBenchServers } from './bench-servers.ts'
import { windowOpener } from './measured-window.ts'
import { temporalServerPid } from './process-cpu.ts'
import { writeBenchmarkSection } from '../scripts/lib/benchmark-report.ts'
import { findMetricsUrl } from './temporal-actions.ts'
import { emitEvents, newTenant, sleep, subscribe, waitDelivered, type BenchContext } from './webhook-bench-kit.ts'
import { killApiScenario, killScenario, sigtermScenario } from './webhook-crash.ts'
import { startPeer } from './webhook-peer-client.ts'
import { renderWebhookReport } from './webhook-report.ts'
import { loadResults, saveResults, type ApiCall } from './webhook-results.ts'
import { apiScenario, failing, steady } from './webhook-scenarios.ts'

const RATE = Number(process.env.BENCH_RATE ?? 50)
const SECONDS = Number(process.env.BENCH_SECONDS ?? 60)
const SCENARIOS = new Set((process.env.BENCH_SCENARIOS ?? 'steady,api,failing,kill,kill-api,sigterm').split(','))
const STEADY_ENDPOINTS = (process.env.BENCH_ENDPOINTS ?? '1,20').split(',').map(Number)
/** Rates of the emitting API call: the 50/s, and lower ones to see the ratio away from saturation. */
const API_RATES = (process.env.BENCH_API_RATES ?? String(RATE)).split(',').map(Number)
/** The emitting calls of the `api` scenario (webhook-scenarios.ts says what each costs besides its event). */
const API_CALLS = (process.env.BENCH_API_CALLS ?? 'payments,children').split(',') as ApiCall[]
const FAILING_RATES = (process.env.BENCH_FAILING_RATES ?? '25,50').split(',').map(Number)
const KILL_AT_S = Number(process.env.BENCH_KILL_AT_S ?? 20)
/** Events of the SIGTERM scenario's burst, and how long its receivers take to answer. */
const BURST_EVENTS = Number(process.env.BENCH_BURST_EVENTS ?? 200)
const SLOW_RECEIVER_MS = Number(process.env.BENCH_SLOW_RECEIVER_MS ?? 5000)
const DRAIN_TIMEOUT_MS = Number(process.env.BENCH_DRAIN_TIMEOUT_MS ?? 120_000)

/**
 * The worker's CPU priority (WORKER_CPU_NICE, infra/process-priority.ts): 10 by default, as `npm start` runs it where
 * the API and the worker share one machine, as they do here; BENCH_WORKER_NICE=0 measures them as equals.
 */
const WORKER_NICE = process.env.BENCH_WORKER_NICE ?? '10'

/**
 * Settings to try instead of the defaults (`KEY=value,...`, given to the API and the worker): an experiment, to find
 * where time goes. Its figures are kept in a file of their own and never written to the doc.
 */
const SETTINGS =
  process.env.BENCH_SETTINGS || WORKER_NICE !== '10'
    ? {
        ...Object.fromEntries(
          (process.env.BENCH_SETTINGS ?? '')
            .split(',')
            .filter(Boolean)
            .map((pair) => pair.split('=', 2) as [string, string])
        ),
        ...(WORKER_NICE !== '10' ? { BENCH_WORKER_NICE: WORKER_NICE } : {}),
      }
    : undefined

/**
 * The doc section a run writes, `Webhooks (<database>)` unless BENCH_DOC_SECTION names another. The section is
 * rebuilt from every stored scenario, and `bench/results/` is not versioned: on a machine that has not run them all,
 * a run of some scenarios would drop the others' rows, so such a run names a section of its own.
 */
const docSection = (database: string) =>
  process.env.BENCH_DOC_SECTION ??
  `Webhooks (${database}${process.env.BENCH_EMBEDDED === 'in-process' ? ', in the API process' : ''})`

// `BENCH_SCENARIOS=report` only rebuilds the doc section from the stored figures (after editing or merging them).
if (process.env.BENCH_SCENARIOS === 'report') {
  const stored = await loadResults(
    process.env.BENCH_DATABASE_URL ? 'postgresql' : 'pglite',
    undefined,
    process.env.BENCH_DATABASE_URL ? undefined : process.env.BENCH_EMBEDDED === 'in-process' ? 'in-process' : 'process'
  )
  await writeBenchmarkSection(docSection(stored.database), renderWebhookReport(stored))
  console.log(renderWebhookReport(stored))
  process.exit(0)
}

const log = (message: string) => process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}\n`)

const servers = await startBenchServers('webhook-bench')
const { database, temporal, taskQueue } = servers
const env = {
  ...servers.env,
  // The tokens' issuer: the same for the benchmark's API and the API process of \`kill-api\`, whatever their ports.
  PUBLIC_URL: 'http://localhost:3000',
  WEBHOOK_REQUIRE_HTTPS: 'false',
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
  ...SETTINGS,
}
const config = loadConfig(env)
const api = await startApi(config, createLogger(process.env.BENCH_LOG_LEVEL ?? 'silent', 'bench'))
// One receiver per endpoint of the largest scenario (20): each endpoint its own server, as in production.
const peer = await startPeer(20)
// The worker logs at info: its readiness line is what startWorkerProcess waits for, its stop line what SIGTERM checks.
const startWorker = () => startWorkerProcess({ ...env, LOG_LEVEL: 'info', WORKER_CPU_NICE: WORKER_NICE })
let worker: WorkerProcess = await startWorker()
const serverPid = temporalServerPid()
const metricsUrl = serverPid === undefined ? undefined : await findMetricsUrl(serverPid)
if (!metricsUrl) log('the dev server metrics endpoint was not found: actions are counted from histories only')
const db = api.deps.db

const openWindow = windowOpener({
  db,
  databaseKind: database.kind,
  temporal: api.deps.temporal,
  namespace: temporal.namespace,
  taskQueue,
  metricsUrl,
})

const ctx: BenchContext = {
  api,
  peer,
  rate: RATE,
  seconds: SECONDS,
  drainTimeoutMs: DRAIN_TIMEOUT_MS,
  openWindow,
  worker: () => worker,
  async startWorker() {
    worker = await startWorker()
  },
  env,
  log,
}

const results = await loadResults(database.kind, SETTINGS, database.placement)
if (temporal.version) results.temporal = temporal.version
results.node = process.versions.node
const save = async () => {
  await saveResults(results)
  if (!SETTINGS) await writeBenchmarkSection(docSection(database.kind), renderWebhookReport(results))
}
try {
  // Warm-up: the worker's first deliveries pay for connections and compiled queries; not measured.
  log('warming up')
  {
    const tenant = await newTenant(api)
    await subscribe(api, peer, tenant, 1)
    const emission = await emitEvents(api, tenant.tenantId, RATE, 5)
    await waitDelivered(
      peer,
      emission.events.map((e) => e.id),
      [tenant.endpoints[0]!.path],
      DRAIN_TIMEOUT_MS
    )
  }
  if (SCENARIOS.has('steady')) {
    log('idle: the pumps polling with nothing to deliver, 15 s')
    const idle = await openWindow()
    await sleep(15_000)
    results.idle = await idle.close()
    for (const endpoints of STEADY_ENDPOINTS) {
      log(`steady: ${endpoints} endpoint(s), ${RATE} events/s for ${SECONDS} s`)
      results.steady = { ...results.steady, [endpoints]: await steady(ctx, endpoints) }
      log(JSON.stringify(results.steady[endpoints]))
      await save()
    }
  }
  if (SCENARIOS.has('api')) {
    for (const call of API_CALLS) {
      for (const rate of API_RATES) {
        log(`api: POST /v1/${call} at ${rate}/s for ${SECONDS} s, unsubscribed then 20 endpoints`)
        // Children keep their bare-rate keys, the figures saved before payments were measured.
        const key = call === 'children' ? String(rate) : `${call} ${rate}`
        results.api = { ...results.api, [key]: await apiScenario(ctx, rate, call) }
        log(JSON.stringify(results.api[key]))
        await save()
      }
    }
  }
  if (SCENARIOS.has('failing')) {
    for (const rate of FAILING_RATES) {
      log(`failing: 20 endpoints, one answering 500, ${rate} events/s for ${SECONDS} s`)
      results.failing = { ...results.failing, [rate]: await failing(ctx, rate) }
      log(JSON.stringify(results.failing[rate]))
      await save()
    }
  }
  if (SCENARIOS.has('kill')) {
    log(`kill: 20 endpoints, ${RATE} events/s for ${SECONDS} s, worker SIGKILLed at ${KILL_AT_S} s`)
    results.kill = await killScenario(ctx, KILL_AT_S)
    log(JSON.stringify(results.kill))
    await save()
  }
  if (SCENARIOS.has('kill-api')) {
    log(`kill-api: payments at ${RATE}/s for ${SECONDS} s, 20 endpoints, the API SIGKILLed at ${KILL_AT_S} s`)
    results.killApi = await killApiScenario(ctx, KILL_AT_S)
    log(JSON.stringify(results.killApi))
    await save()
  }
  if (SCENARIOS.has('sigterm')) {
    log(`sigterm: ${BURST_EVENTS} events × 20 endpoints, receivers answering after ${SLOW_RECEIVER_MS} ms`)
    results.sigterm = await sigtermScenario(ctx, { burstEvents: BURST_EVENTS, slowReceiverMs: SLOW_RECEIVER_MS })
    log(JSON.stringify(results.sigterm))
    await save()
  }
} finally {
  await worker.kill('SIGTERM')
  peer.stop()
  await api.stop()
  await servers.stop()
}
console.log(renderWebhookReport(results))
