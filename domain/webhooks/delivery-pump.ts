/**
 * @module The delivery pump: the loop that makes first attempts (and the short-term retries of healthy endpoints)
 * from the PostgreSQL queue, with no Temporal work per delivery (docs/webhooks.md, "Delivery"). It runs as the
 * long-lived, heartbeating activity of a pump workflow, so Temporal supervises it: when its worker dies, the activity
 * times out on its heartbeat and runs again on another worker, and the leases of what it had claimed expire.
 *
 * Each round fans new events out, claims due deliveries of its partition under a lease (at most the free concurrency,
 * at most `endpointConcurrency` per endpoint, so a slow receiver never holds every slot, and at most
 * `tenantConcurrency` per tenant, taken in turns between tenants, so one tenant's slow receivers never hold them all
 * either), sends them concurrently over keep-alive connections, and records the finished attempts in one statement.
 * Delivery is at least once: a pump that dies after a receiver answered and before the record is written has that
 * delivery attempted again when its lease expires; receivers drop duplicates by `webhook-id` (v2) or the event id (v1).
 */
import type { Db } from '../../infra/db.ts'
import type { Logger } from '../../infra/logger.ts'
import { toEnvelope } from '../events/event-envelope.ts'
import { attemptDelivery } from './attempt-delivery.ts'
import {
  claimDue,
  eventsAwaitFanOut,
  fanOutEvents,
  releaseClaims,
  shortenClaims,
  type QueuedDelivery,
} from './delivery-queue.ts'
import type { AttemptRecord } from './endpoint-health.ts'
import { checkRetryWorkflows, type EndpointRetryStarter } from './retry-check.ts'
import type { WebhookPoster } from './post-webhook.ts'
import { recordBatch, type AttemptObserver } from './record-batch.ts'
import type { WebhookSettings } from './webhook-settings.ts'
import { rememberingOpened, type SecretBox } from '../../infra/secret-box.ts'

export interface PumpDeps {
  db: Db
  poster: WebhookPoster
  settings: WebhookSettings
  now: () => Date
  /** Opens the endpoints' sealed secrets and keys to sign (infra/secret-box.ts). */
  secrets: SecretBox
  retries: EndpointRetryStarter
  logger: Logger
  observe?: AttemptObserver
  /** Told each time the slots a tenant takes in this pump change (the worker's per-tenant gauge). */
  tenantSlots?: TenantSlotsObserver
}

/**
 * Hears that a pump took (`change` > 0) or gave back (< 0) slots of a tenant: deliveries claimed, in flight or waiting
 * for their endpoint's slot, what counts against WEBHOOK_TENANT_CONCURRENCY.
 */
export type TenantSlotsObserver = (tenantId: string, change: number) => void

export interface PumpRun {
  partition: number
  /** Return after this long (the pump workflow then runs the next activity). */
  runForMs: number
  /** Aborted when the activity is cancelled (worker shutdown): stop claiming, finish what is in flight. */
  signal?: AbortSignal
  /** Called every round; the activity's heartbeat. */
  heartbeat?: () => void
}

export interface PumpStats {
  fannedOut: number
  attempted: number
  succeeded: number
  /** Breakers that opened. */
  opened: number
}

/** Finished attempts wait at most this long to be recorded together. */
const FLUSH_MS = 15
/** A full pump claims again once this fraction of its slots (1/4) is free, or after FLUSH_MS. */
const REFILL_FRACTION = 4
/** A pause's `early` that wakes at the first attempt to finish. */
const always = () => true
/** How long a stopping pump waits for the attempts in flight. */
const STOP_WAIT_MS = 3000
/** How often the pump checks that every open-breaker endpoint holding deliveries has its retry workflow. */
const RETRY_CHECK_MS = 30_000

/** Partitions to divide endpoints by: with no pump workflows configured, a pump run by hand takes them all. */
const partitionCount = (settings: WebhookSettings) => Math.max(1, settings.pump.partitions)

/** Records a batch of finished attempts with the breakers' state, and starts the retry workflows of those that opened. */
async function recordFinished(deps: PumpDeps, batch: AttemptRecord[], stats: PumpStats): Promise<void> {
  const { db, settings, logger } = deps
  stats.attempted += batch.filter((r) => r.attempted).length
  stats.succeeded += batch.filter((r) => r.succeeded).length
  const changes = await recordBatch(
    { db, circuitFailures: settings.circuitFailures, disableAfterMs: settings.disableAfterMs, observe: deps.observe },
    batch,
    deps.now()
  )
  for (const change of changes.filter((c) => c.opened)) {
    stats.opened++
    // A failure here is caught up by the periodic check.
    await deps.retries
      .wake(change)
      .catch((error: unknown) =>
        logger.warn({ endpointId: change.endpointId, err: error }, 'webhook retry workflow start deferred')
      )
  }
}

/** One pump's state between rounds. */
function createPump(deps: PumpDeps, partition: number) {
  const { db, settings, logger } = deps
  const { concurrency, endpointConcurrency } = settings.pump
  const tenantConcurrency = settings.pump.tenantConcurrency ?? concurrency
  const partitions = partitionCount(settings)
  const inflight = new Map<string, number>()
  /** When each attempt in flight began, on the pump's clock (as its leases): a stopping pump ends leases by it. */
  const started = new Map<string, number>()
  /** Deliveries each tenant has here, in flight or waiting for a slot: what its cap counts. */
  const taken = new Map<string, number>()
  /** Claimed deliveries waiting for one of their endpoint's slots. */
  const waiting = new Map<string, Array<{ delivery: QueuedDelivery; body: string }>>()
  const finished: AttemptRecord[] = []
  const stats: PumpStats = { fannedOut: 0, attempted: 0, succeeded: 0, opened: 0 }
  let active = 0
  let onProgress: (() => void) | undefined
  /** Ends the current pause at once (a stopping pump). */
  let endPause: (() => void) | undefined
  // Every delivery of an endpoint signs with the same few secrets: each is opened once per run, not per delivery.
  const secrets = rememberingOpened(deps.secrets)
  const attemptDeps = { poster: deps.poster, retry: settings.retry, now: deps.now, secrets }

  /** Counts `change` deliveries for their tenant (claimed: +, attempted or given back: -). */
  function countForTenant(tenantId: string, change: number) {
    const total = (taken.get(tenantId) ?? 0) + change
    if (total <= 0) taken.delete(tenantId)
    else taken.set(tenantId, total)
    deps.tenantSlots?.(tenantId, change)
  }

  /** Attempts a claimed delivery now; its tenant's count was taken when it was claimed and is given back here. */
  function send(delivery: QueuedDelivery, body: string) {
    const { endpointId, tenantId } = delivery
    active++
    inflight.set(endpointId, (inflight.get(endpointId) ?? 0) + 1)
    started.set(delivery.id, deps.now().getTime())
    attemptDelivery(attemptDeps, delivery, body)
      .then(
        (record) => void finished.push(record),
        // Not a receiver's failure (those are records): left to its lease, it is attempted again later.
        (error: unknown) => logger.error({ deliveryId: delivery.id, err: error }, 'webhook attempt failed')
      )
      .finally(() => {
        active--
        started.delete(delivery.id)
        const left = (inflight.get(endpointId) ?? 1) - 1
        if (left === 0) inflight.delete(endpointId)
        else inflight.set(endpointId, left)
        countForTenant(tenantId, -1)
        const next = waiting.get(endpointId)?.shift()
        if (next) send(next.delivery, next.body)
        if (waiting.get(endpointId)?.length === 0) waiting.delete(endpointId)
        onProgress?.()
      })
  }

  function enqueue(deliveries: QueuedDelivery[]) {
    const bodies = new Map<string, string>()
    for (const delivery of deliveries) {
      // Counted from the claim on: a delivery waiting for its endpoint's slot takes one of its tenant's.
      countForTenant(delivery.tenantId, 1)
      // One event goes to many endpoints: its body is serialised once.
      let body = bodies.get(delivery.event.id)
      if (body === undefined) bodies.set(delivery.event.id, (body = JSON.stringify(toEnvelope(delivery.event))))
      if ((inflight.get(delivery.endpointId) ?? 0) < endpointConcurrency) send(delivery, body)
      else waiting.set(delivery.endpointId, [...(waiting.get(delivery.endpointId) ?? []), { delivery, body }])
    }
  }

  /** Records what finished; starts the retry workflows of breakers that opened. */
  async function flush(): Promise<void> {
    if (finished.length === 0) return
    await recordFinished(deps, finished.splice(0), stats)
  }

  /** Fans out and claims what is due now. @returns whether there was anything */
  async function round(): Promise<boolean> {
    const now = deps.now()
    const fanned = await fanOutEvents(db, now)
    stats.fannedOut += fanned
    const free = freeSlots()
    if (free <= 0) return fanned > 0
    const saturated = [...inflight].filter(([, n]) => n >= endpointConcurrency).map(([id]) => id)
    const claimed = await claimDue(db, {
      partition,
      partitions,
      limit: free,
      perEndpoint: endpointConcurrency,
      excludeEndpoints: saturated,
      perTenant: tenantConcurrency,
      takenByTenant: taken,
      now,
      leaseMs: settings.pump.leaseMs,
    })
    enqueue(claimed)
    return fanned > 0 || claimed.length > 0
  }

  /**
   * Waits up to `ms`, or until an attempt finishes and `early` (if given) holds then.
   * @returns whether it waited the whole time
   */
  function pause(ms: number, early?: () => boolean): Promise<boolean> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => done(true), ms)
      function done(whole = false) {
        clearTimeout(timer)
        onProgress = undefined
        endPause = undefined
        resolve(whole)
      }
      endPause = done
      if (early) onProgress = () => early() && done()
    })
  }

  /**
   * An idle pump's wait of `ms` before its next full look, cut short by an attempt that finishes, by a stop, or by an
   * event waiting for its fan-out, which it asks about every `stepMs` (eventsAwaitFanOut: a small part of a full look's
   * CPU). With the full looks' back-off alone, the first events after a quiet spell waited up to 800 ms, and at 1,500
   * deliveries a second the backlog that gathered meanwhile took 5-13 s to clear (docs/benchmarks.md, "Webhooks: an
   * idle pump that hears the first event").
   */
  async function idle(ms: number, stepMs: number, stopping: () => boolean): Promise<void> {
    const until = Date.now() + ms
    for (let left = ms; left > 0 && !stopping(); left = until - Date.now()) {
      if (!(await pause(Math.min(stepMs, left), always))) return
      // The full look is due anyway once the wait is over.
      if (until - Date.now() > 0 && (await eventsAwaitFanOut(db))) return
    }
  }

  /** Slots free for a claim: not in flight, nor claimed and waiting for their endpoint's. */
  const freeSlots = () => concurrency - active - [...waiting.values()].reduce((n, list) => n + list.length, 0)

  /**
   * Ends the run: nothing new is sent; what is in flight is awaited up to `maxWaitMs` and recorded. An attempt still
   * in flight after that keeps its lease and is made again once the lease ends (at least once).
   */
  async function drain(maxWaitMs = settings.timeoutMs + 1000): Promise<void> {
    const unsent = [...waiting.values()].flat().map((w) => w.delivery)
    waiting.clear()
    for (const delivery of unsent) countForTenant(delivery.tenantId, -1)
    await releaseClaims(
      db,
      unsent.map((delivery) => delivery.id)
    )
    const deadline = Date.now() + maxWaitMs
    while (active > 0 && Date.now() < deadline) await pause(50, always)
    // Attempts still in flight (a stopping pump waits only STOP_WAIT_MS): taken again once each could have timed out.
    // Before the last flush, so one that ends meanwhile is still recorded.
    await shortenClaims(
      db,
      [...started].map(([id, at]) => ({ id, until: new Date(at + settings.timeoutMs) }))
    )
    await flush()
  }

  return {
    round,
    flush,
    pause,
    idle,
    drain,
    stats,
    isFull: () => active >= concurrency,
    /** Whether a claim could fill a good part of the pump now: a round costs as much for 1 row as for 60. */
    canRefill: () => freeSlots() >= Math.max(1, Math.floor(concurrency / REFILL_FRACTION)),
    hasFinished: () => finished.length > 0,
    wake: () => endPause?.(),
  }
}

/**
 * How long an idle pump waits after `looks` looks in a row found nothing: `pollMs`, doubled with each, at most
 * `idlePollMs`. An event recorded after a quiet spell waits at most `idlePollMs` for its fan-out.
 */
export function idleWait(looks: number, pollMs: number, idlePollMs: number): number {
  return Math.min(pollMs * 2 ** Math.min(looks, 30), idlePollMs)
}

/** Runs the pump of `partition` until `runForMs` has passed or `signal` aborts. */
export async function runDeliveryPump(deps: PumpDeps, run: PumpRun): Promise<PumpStats> {
  const pump = createPump(deps, run.partition)
  const { pollMs, idlePollMs = pollMs, probeMs = pollMs } = deps.settings.pump
  const until = Date.now() + run.runForMs
  let nextRetryCheck = 0
  /** Looks in a row that found nothing: the wait doubles with each, up to `idlePollMs`. */
  let idleLooks = 0
  const stop = () => pump.wake()
  run.signal?.addEventListener('abort', stop, { once: true })
  try {
    while (Date.now() < until && !run.signal?.aborted) {
      run.heartbeat?.()
      const busy = await pump.round()
      await pump.flush()
      if (Date.now() >= nextRetryCheck) {
        nextRetryCheck = Date.now() + RETRY_CHECK_MS
        await checkRetryWorkflows(deps, run.partition, partitionCount(deps.settings))
      }
      // Busy: finished attempts are gathered briefly so they are recorded together. Full: the next round waits for a
      // quarter of the slots (or the flush), not for the first attempt to finish: at 1,000 deliveries a second, rounds
      // woken by each attempt claimed ~11 rows at ~6.5 ms of the database's CPU each (docs/benchmarks.md, "Webhooks:
      // rounds that refill, and idle pumps that back off"). Idle: poll less often the longer nothing comes (a look
      // costs ~9 ms of CPU), asking between looks whether an event came (a probe); wake as soon as an attempt finishes,
      // so its record is not held back.
      if (busy) idleLooks = 0
      if (pump.hasFinished() || pump.isFull()) await pump.pause(FLUSH_MS, pump.isFull() ? pump.canRefill : undefined)
      else if (!busy)
        await pump.idle(idleWait(idleLooks++, pollMs, idlePollMs), probeMs, () => run.signal?.aborted === true)
    }
  } finally {
    run.signal?.removeEventListener('abort', stop)
    // Stopping (worker shutdown): a short wait, so the worker stops within its grace time.
    await pump.drain(run.signal?.aborted ? STOP_WAIT_MS : undefined)
  }
  return pump.stats
}

/**
 * One round of the pump, to completion: fans out, claims everything due in `partition`, sends it and records it, then
 * checks the partition's retry workflows.
 * What the time-skipping tests drive by hand (they run no pump workflow, whose activity never ends).
 */
export async function pumpOnce(deps: PumpDeps, partition = 0): Promise<PumpStats> {
  const pump = createPump(deps, partition)
  while (await pump.round()) await pump.drain()
  await pump.drain()
  await checkRetryWorkflows(deps, partition, partitionCount(deps.settings))
  return pump.stats
}
