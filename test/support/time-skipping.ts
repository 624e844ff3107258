/**
 * @module The platform on Temporal's time-skipping test server: the real API (in this process, on a free port) and a
 * real worker with the real activities, both on this file's own database, but on a Temporal server whose clock the
 * test moves: `skip('3 days')` fires three days of timers in milliseconds. For timer-heavy workflow behaviour
 * (reminders, follow-ups, early-intervention clocks, onboarding timeouts, retry windows); tests about crashes, outages
 * and races keep the real dev server (platform.ts).
 *
 * Two clocks: workflow code reads the server's clock (`now()` here), which runs ahead of the wall clock by everything
 * skipped, and so do the activities' decisions (their injected clock is the server's, see `serverClock`); the API and
 * the database's own timestamps (`createdAt`) read the wall clock. So assert on what was recorded and in which order,
 * or against `now()`, not on a row's `createdAt` against a workflow deadline. With `apiClock: 'server'` the
 * API's clock follows the server's instead (the wall clock plus everything skipped): a test that skips days and then
 * books, completes or signs through the API keeps the API and the workflows on one time line.
 *
 * The server's time stands still while an activity runs and moves only in `skip()` (or while the test client awaits a
 * workflow's result), so a test decides exactly how far time goes.
 */
import { setTimeout } from 'node:timers/promises'
import { Context } from '@temporalio/activity'
import { Client, type WorkflowHandle } from '@temporalio/client'
import type { Worker } from '@temporalio/worker'
import type { Duration } from '@temporalio/common'
import { inject } from 'vitest'
import { startApi, type RunningApi } from '../../api/start-api.ts'
import type { Clock } from '../../infra/clock.ts'
import { loadConfig } from '../../infra/config.ts'
import { createDb, databaseLogins, type Db } from '../../infra/db.ts'
import { createLogger } from '../../infra/logger.ts'
import { temporalDataConverter } from '../../infra/payload-codec.ts'
import { indexedValueType } from '../../scripts/temporal/frontend.ts'
import { SEARCH_ATTRIBUTE_NAMES } from '../../common/search-attributes-contract.ts'
import { createWorker } from '../../worker/create-worker.ts'
import { pumpOnce, type PumpStats } from '../../domain/webhooks/delivery-pump.ts'
import { realPumpDeps } from './webhook-pump.ts'
import { httpClient } from './http.ts'
import { eventually, testEnv, type PlatformBase } from './platform.ts'
import { tenantAccess } from './tenant-access.ts'
import { startTestServer } from './test-server.ts'

/**
 * The activities' clock on the time-skipping server: when the server scheduled the running attempt, on its own clock,
 * which is the workflow's time (a no-show is decided at the deadline's timer, not on the wall clock days behind it).
 * Outside an activity, the wall clock.
 */
const serverClock: Clock = () => {
  try {
    return new Date(Context.current().info.currentAttemptScheduledTimestampMs)
  } catch {
    return new Date()
  }
}

export interface TimeSkippingPlatform extends PlatformBase {
  /** The worker's database client (the file's database). */
  db: Db
  /** Moves the server's clock forward by `duration`, firing every timer due on the way, and waits for the work. */
  skip(duration: Duration): Promise<void>
  /**
   * Moves the server's clock to `at` (epoch ms on the workflows' clock), firing every timer due by then. The work of a
   * timer due at `at` itself may still be running when it returns: wait for its effect. Fails on a moment already past.
   */
  skipTo(at: number): Promise<void>
  /** The workflows' clock: the wall clock plus everything skipped so far. */
  now(): Promise<number>
  /** The API's clock (epoch ms): the wall clock, or with `apiClock: 'server'` the server's as of the last skip. */
  apiNow(): number
  /**
   * One round of the webhook delivery pump, on the server's clock: fans out, sends what is due and records it (no pump
   * workflow runs here: see WEBHOOK_PUMP_PARTITIONS below). A breaker that opens starts its real retry workflow.
   */
  pumpWebhooks(): Promise<PumpStats>
  stop(): Promise<void>
}

/**
 * Starts the test server, the API and a worker on it.
 * @param options.overrides - environment overrides for the API and the worker (see `testEnv`)
 * @param options.apiClock - `wall` (default): the API reads the wall clock; `server`: the API's clock is the wall clock
 *   plus everything skipped, re-read from the server after each `skip()`, so "now" is the workflows' time in the API
 *   too (a booking days ahead of the workflows' time passes the API's "in the future" check, a complete after a skip
 *   finds the appointment started, its `completedAt` is the workflows' time). Access tokens expire on that clock, which
 *   jumps with every skip, so there ACCESS_TOKEN_TTL_SECONDS defaults to 90 days: one token outlives a file's skips.
 */
export async function startTimeSkippingPlatform(
  options: { overrides?: Record<string, string>; apiClock?: 'wall' | 'server' } = {}
): Promise<TimeSkippingPlatform> {
  const env = await startTestServer(inject('timeSkippingServer'))
  // The workflows set the platform's search attributes (TenantId...), which the test server refuses until registered.
  // It implements adding them, not listing them (ensureSearchAttributes lists first), and starts empty every time.
  await env.connection.operatorService.addSearchAttributes({
    namespace: env.namespace ?? 'default',
    searchAttributes: Object.fromEntries(SEARCH_ATTRIBUTE_NAMES.map((name) => [name, indexedValueType(name)])),
  })
  const config = loadConfig(
    testEnv({
      TEMPORAL_ADDRESS: env.address,
      TEMPORAL_NAMESPACE: env.namespace ?? 'default',
      // A pump's activity runs for minutes, and the test server does not skip time while an activity runs: the tests
      // drive the pump by hand (`pumpWebhooks`).
      WEBHOOK_PUMP_PARTITIONS: '0',
      // The Java test server does not keep a delayed start's promise: asked for the view of a workflow still in its
      // start delay, it sends the worker a query for a run that never started (IllegalStateError) where the real server
      // answers FAILED_PRECONDITION. Deferred starts are tested on the dev server (appointment-workflow-deferred-start.int.test.ts).
      BOOKING_WORKFLOW_START: 'immediate',
      ...(options.apiClock === 'server' ? { ACCESS_TOKEN_TTL_SECONDS: String(90 * 86_400) } : {}),
      ...options.overrides,
    })
  )
  const db = createDb(databaseLogins(config), 5)
  // The server's clock runs at the wall clock's pace between skips (and from the wall clock's time at start), ahead by
  // what was skipped; the API's server-following clock adds that lead to the wall clock.
  let skippedMs = 0
  const apiClock: Clock | undefined = options.apiClock === 'server' ? () => new Date(Date.now() + skippedMs) : undefined
  const followServer = async () => {
    if (!apiClock) return
    const before = Date.now()
    const server = await env.currentTimeMs()
    skippedMs = server - (before + Date.now()) / 2
  }
  let worker: Worker | undefined
  let running: Promise<void> | undefined
  let api: RunningApi | undefined
  try {
    worker = await createWorker({
      // In this process's main thread, as in the worker hosts (worker-hosts.ts): no bundle compiled again per worker.
      config: { ...config, WORKFLOW_BUNDLE_PATH: inject('workflowBundlePath'), WORKER_WORKFLOWS_IN_MAIN_THREAD: true },
      connection: env.nativeConnection,
      db,
      clock: serverClock,
    })
    running = worker.run()
    await followServer()
    api = await startApi(config, createLogger(config.LOG_LEVEL, 'api'), apiClock)
  } catch (error) {
    worker?.shutdown()
    await running?.catch(() => undefined)
    await db.$disconnect()
    await env.teardown()
    throw error
  }
  const startedApi = api
  const startedWorker = worker
  const http = httpClient(startedApi.url)
  const temporal = new Client({
    connection: env.connection,
    namespace: config.TEMPORAL_NAMESPACE,
    dataConverter: temporalDataConverter(config.TEMPORAL_CODEC_KEYS),
  })
  const skip = async (duration: Duration) => {
    await env.sleep(duration)
    await followServer()
  }
  return {
    api: startedApi,
    http,
    temporal,
    db,
    config,
    skip,
    async skipTo(at) {
      const now = await env.currentTimeMs()
      if (at <= now)
        throw new Error(`skipping backwards, to ${new Date(at).toISOString()} from ${new Date(now).toISOString()}`)
      await skip(at - now)
    },
    now: () => env.currentTimeMs(),
    apiNow: () => startedApi.deps.clock().getTime(),
    async pumpWebhooks() {
      const server = await env.currentTimeMs()
      const wall = Date.now()
      const deps = realPumpDeps(db, config, temporal, () => new Date(server + Date.now() - wall))
      const stats: PumpStats = { fannedOut: 0, attempted: 0, succeeded: 0, opened: 0 }
      try {
        // The API's agent-trigger dispatcher claims the same event rows (FOR UPDATE SKIP LOCKED, ~50 ms after their
        // commit), and a fan-out that meets its claim skips them: a running pump takes them at its next poll, one
        // round by hand would miss them (seen twice in one repeat run). So rounds go on until no event waits.
        for (const deadline = Date.now() + 10_000; ; await setTimeout(20)) {
          const round = await pumpOnce(deps)
          for (const key of Object.keys(stats) as Array<keyof PumpStats>) stats[key] += round[key]
          const [waiting] = await db.$queryRaw<Array<{ any: boolean }>>`
            SELECT EXISTS (SELECT 1 FROM events WHERE fanned_out_at IS NULL) AS any`
          if (!waiting?.any || Date.now() > deadline) return stats
        }
      } finally {
        deps.poster.close()
      }
    },
    ...tenantAccess(startedApi, http),
    async stop() {
      await startedApi.stop()
      startedWorker.shutdown()
      await running
      await db.$disconnect()
      await env.teardown()
    },
  }
}

/**
 * Waits until `handle`'s run has no activity scheduled or running (it waits on timers or messages only). The test
 * server cannot end a run with an activity in flight: it refuses the completion with ACTIVITY_UNKNOWN and the run
 * never ends, where a real server cancels the activity. So a test ends a run (an exit, a cancel) only after this.
 * On the dev server, a crash test about timers kills its worker only after this: an activity in flight would hold the
 * run for its start-to-close timeout.
 */
export const untilNoActivityRuns = (handle: WorkflowHandle) =>
  eventually(
    async () => (((await handle.describe()).raw.pendingActivities ?? []).length === 0 ? true : undefined),
    10_000
  )

/**
 * The result of a run that ends on its own (it needs no timer), or undefined when the test server refused its end.
 * The time-skipping test server sometimes refuses a run's completion with ACTIVITY_UNKNOWN even after
 * {@link untilNoActivityRuns} (the exit's own re-plan activity runs and returns, the workflow logs its outcome and
 * completes, and the server answers "ACTIVITY_UNKNOWN for scheduledEventId=…": seen in 1 of 7 fresh-clone CI runs on
 * 2026-11-25), so the run never ends, where a real server ends it. After `ms` the run is terminated, as a real server
 * would have closed it, so the test goes on to check what the product promises (the plan's state, a new run on
 * return) instead of hanging, and nothing is left waiting on the server when the environment shuts down.
 */
export async function resultOrTerminate<T>(handle: WorkflowHandle, ms: number): Promise<T | undefined> {
  const result = handle.result() as Promise<T>
  // Settles either way: after a terminate it rejects, which must not surface as an unhandled rejection.
  result.catch(() => undefined)
  const ended = await Promise.race([result.then((value) => ({ value })), setTimeout(ms).then(() => undefined)])
  if (ended) return ended.value
  await handle.terminate('the time-skipping test server refused the completion (ACTIVITY_UNKNOWN)')
  return undefined
}
