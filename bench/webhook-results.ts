/**
 * @module The webhook benchmark's figures, as kept between runs: each scenario's latest result per database, in
 * bench/results/webhooks-<database>.json, so one scenario can be measured again alone (a quieter machine, a fix) and
 * the section in docs/benchmarks.md is rebuilt from every scenario's latest figures, each with its own date and load.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import type { EmbeddedPlacement } from './bench-database.ts'
import type { CpuRole } from './process-cpu.ts'
import type { HistoryActions } from './temporal-actions.ts'
import type { DeliveryStats } from './webhook-bench-kit.ts'

/** What every measured interval records besides its own figures. */
export interface WindowFigures {
  /** When it was measured (ISO). */
  at: string
  seconds: number
  /** 1-minute load average at the start and the end; the 5-minute one at the end. */
  load: [number, number, number]
  /** CPU seconds by process. */
  cpu: Record<CpuRole, number>
  /** Billed actions in the workflow histories on the benchmark's task queue, by workflow type. */
  actions: Record<string, HistoryActions>
  /** The dev server's `action` counter by action type (heartbeats included); absent when it could not be read. */
  serverActions?: Record<string, number>
}

export interface Stage {
  p50: number
  p95: number
}

export interface SteadyResult {
  endpoints: number
  rate: number
  events: number
  eventsPerSecond: number
  stats: DeliveryStats
  drainMs: number
  recordP50: number
  recordP95: number
  /** Commit → delivery row; delivery row → attempt made; attempt made → read by the receiver. */
  stages: { fanOut: Stage; toAttempt: Stage; post: Stage }
  window: WindowFigures
}

export interface FailingResult {
  rate: number
  events: number
  /** The 19 healthy endpoints. */
  healthy: DeliveryStats
  failing: {
    /** Requests the failing endpoint received (each answered 500). */
    calls: number
    /** Its deliveries still pending at the end (held by the open breaker). */
    held: number
    /** Deliveries of the failing endpoint in all. */
    deliveries: number
    /** Billed actions of its retry workflow, from its start to the end of the run. */
    actions: HistoryActions
  }
  window: WindowFigures
}

/** The emitting API calls the benchmark can drive. */
export type ApiCall = 'children' | 'payments'

export interface ApiRun {
  subscribed: number
  requests: number
  statuses: Record<string, number>
  /** The first few answers other than 2xx. */
  errors: string[]
  p50: number
  p95: number
  p99: number
  window: WindowFigures
}

export interface ApiResult {
  /** The emitting call: `POST /v1/children` (figures saved before the field existed) or `POST /v1/payments`. */
  call?: ApiCall
  rate: number
  baseline: ApiRun
  subscribed: ApiRun
  /** Deliveries of the events the subscribed run emitted. */
  deliveries: DeliveryStats
}

export interface KillResult {
  rate: number
  killAtS: number
  events: number
  /** From the kill to the restarted worker polling. */
  restartMs: number
  /** From the kill to the first delivery of an event committed after it. */
  firstDeliveryMs: number
  /** Events committed from this long after the kill on were all delivered within 1 s. */
  backUnderOneSecondMs: number
  /** From the kill to the last delivery of the events committed before it. */
  lastEarlierDeliveryMs: number
  stats: DeliveryStats
  /** Deliveries that took more than 30 s: those whose claims the killed worker held until their lease ended. */
  overThirtySeconds: number
  window: WindowFigures
}

/** The API process killed with SIGKILL while it answers emitting calls (payments), and started again at once. */
export interface KillApiResult {
  rate: number
  killAtS: number
  /** Answers by status; `error` counts requests the dead process never answered. */
  statuses: Record<string, number>
  /** From the kill to the restarted API listening. */
  restartMs: number
  /** Payments committed, and their `payment.succeeded` events (one each, answered or not). */
  payments: number
  events: number
  stats: DeliveryStats
  window: WindowFigures
}

export interface SigtermResult {
  events: number
  endpoints: number
  receiverDelayMs: number
  /** Deliveries claimed (under lease) when the signal was sent. */
  claimedAtSignal: number
  deliveredAtSignal: number
  /** From SIGTERM to the worker process's exit. */
  exitMs: number
  exitCode: number | null
  /** The worker logged its orderly stop. */
  stoppedCleanly: boolean
  /** The worker's log lines about its shutdown (state changes, the pump's stop), for where the time went. */
  shutdownLog: string[]
  restartMs: number
  /** From the restarted worker polling to every delivery's (first) arrival. */
  drainAfterRestartMs: number
  /** From the restarted worker polling to no delivery row left PENDING (within 1 s). */
  endedAfterRestartMs: number
  /** Delivery rows by status at the end. */
  statuses: Record<string, number>
  stats: DeliveryStats
  window: WindowFigures
}

export interface WebhookResults {
  database: 'postgresql' | 'pglite'
  node: string
  /** The Temporal dev server measured with (`CLI 1.9.1 (Server 1.32.0, UI 2.54.1)`); absent in figures from CLI 1.5.1. */
  temporal?: string
  /** Where the embedded PGlite ran (bench-database.ts); absent for PostgreSQL and for figures from before it was kept. */
  placement?: EmbeddedPlacement
  /** Settings changed from the defaults (an experiment: kept in a file of its own, never in the doc). */
  settings?: Record<string, string>
  /** The pumps polling with nothing to do: their fixed cost, which a low rate divides among few deliveries. */
  idle?: WindowFigures
  steady?: Record<string, SteadyResult>
  /** By request rate (`POST /v1/children`), or `payments <rate>`. */
  api?: Record<string, ApiResult>
  failing?: Record<string, FailingResult>
  kill?: KillResult
  killApi?: KillApiResult
  sigterm?: SigtermResult
}

const fileOf = (results: Pick<WebhookResults, 'database' | 'settings' | 'placement'>) =>
  new URL(
    `./results/webhooks-${results.database}${results.placement === 'in-process' ? '-in-process' : ''}` +
      `${results.settings ? '-experiment' : ''}.json`,
    import.meta.url
  )

/** The latest figures of the defaults, or of an experiment (`settings`), on `database`. */
export async function loadResults(
  database: WebhookResults['database'],
  settings?: Record<string, string>,
  placement?: EmbeddedPlacement
): Promise<WebhookResults> {
  const text = await readFile(fileOf({ database, settings, placement }), 'utf8').catch(() => undefined)
  return text ? (JSON.parse(text) as WebhookResults) : { database, node: process.versions.node, settings, placement }
}

export async function saveResults(results: WebhookResults): Promise<void> {
  await mkdir(new URL('./results/', import.meta.url), { recursive: true })
  await writeFile(fileOf(results), `${JSON.stringify(results, null, 2)}\n`)
}
