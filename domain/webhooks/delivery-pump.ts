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
import { attemptDelivery, type AttemptDeps } from './attempt-delivery.ts'
import { claimDue, fanOutEvents, releaseClaims, shortenClaims } from './delivery-queue.ts'
import type { QueuedDelivery } from './queued-delivery.ts'
import { idleWait, PumpPauses } from './pump-pauses.ts'
import { PumpSlots, type TenantSlotsObserver } from './pump-slots.ts'
import type { AttemptRecord } from './attempt-record.ts'
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

export type { TenantSlotsObserver } from './pump-slots.ts'

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

/**
 * One pump's run: it claims what is due (claim), attempts each delivery (attempt), records what finished (record),
 * waits between rounds (pauses: back-off and probe, pump-pauses.ts) and gives back what it holds when it stops
 * (drain). Its state is its slots (pump-slots.ts), the attempts finished and not yet recorded, and its stats.
 */
class DeliveryPump {
  readonly stats: PumpStats = { fannedOut: 0, attempted: 0, succeeded: 0, opened: 0 }
  readonly pauses = new PumpPauses()
  readonly #deps: PumpDeps
  readonly #partition: number
  readonly #slots: PumpSlots
  /** Attempts finished and not yet recorded. */
  #finished: AttemptRecord[] = []
  readonly #attemptDeps: AttemptDeps

  constructor(deps: PumpDeps, partition: number) {
    this.#deps = deps
    this.#partition = partition
    const { concurrency, endpointConcurrency } = deps.settings.pump
    this.#slots = new PumpSlots(concurrency, endpointConcurrency, deps.tenantSlots)
    // Every delivery of an endpoint signs with the same few secrets: each is opened once per run, not per delivery.
    const secrets = rememberingOpened(deps.secrets)
    this.#attemptDeps = { poster: deps.poster, retry: deps.settings.retry, now: deps.now, secrets }
  }

  /** Fans out, claims what is due now, and sends what its endpoints have slots for. @returns whether there was anything */
  async claim(): Promise<boolean> {
    const { db, settings } = this.#deps
    const now = this.#deps.now()
    const fanned = await fanOutEvents(db, now)
    this.stats.fannedOut += fanned
    const free = this.#slots.free()
    if (free <= 0) return fanned > 0
    const claimed = await claimDue(db, {
      partition: this.#partition,
      partitions: partitionCount(settings),
      limit: free,
      perEndpoint: settings.pump.endpointConcurrency,
      excludeEndpoints: this.#slots.saturatedEndpoints(),
      perTenant: settings.pump.tenantConcurrency ?? settings.pump.concurrency,
      takenByTenant: this.#slots.takenByTenant(),
      now,
      leaseMs: settings.pump.leaseMs,
    })
    const bodies = new Map<string, string>()
    for (const delivery of claimed) {
      // One event goes to many endpoints: its body is serialised once.
      let body = bodies.get(delivery.event.id)
      if (body === undefined) bodies.set(delivery.event.id, (body = JSON.stringify(toEnvelope(delivery.event))))
      if (this.#slots.admit(delivery, body)) this.#attempt(delivery, body)
    }
    return fanned > 0 || claimed.length > 0
  }

  /** Attempts a claimed delivery now; when it ends, the next one waiting for its endpoint goes. */
  #attempt(delivery: QueuedDelivery, body: string): void {
    this.#slots.begin(delivery, this.#deps.now().getTime())
    attemptDelivery(this.#attemptDeps, delivery, body)
      .then(
        (record) => void this.#finished.push(record),
        // Not a receiver's failure (those are records): left to its lease, it is attempted again later.
        (error: unknown) => this.#deps.logger.error({ deliveryId: delivery.id, err: error }, 'webhook attempt failed')
      )
      .finally(() => {
        const next = this.#slots.end(delivery)
        if (next) this.#attempt(next.delivery, next.body)
        this.pauses.progress()
      })
  }

  /** Records what finished; starts the retry workflows of breakers that opened. */
  async record(): Promise<void> {
    if (this.#finished.length === 0) return
    const batch = this.#finished
    this.#finished = []
    await recordFinished(this.#deps, batch, this.stats)
  }

  isFull(): boolean {
    return this.#slots.isFull()
  }

  /** Whether a claim could fill a good part of the pump now: a round costs as much for 1 row as for 60. */
  readonly canRefill = (): boolean =>
    this.#slots.free() >= Math.max(1, Math.floor(this.#deps.settings.pump.concurrency / REFILL_FRACTION))

  hasFinished(): boolean {
    return this.#finished.length > 0
  }

  /**
   * Ends the run: nothing new is sent; what is in flight is awaited up to `maxWaitMs` and recorded. An attempt still
   * in flight after that keeps its lease and is made again once the lease ends (at least once).
   */
  async drain(maxWaitMs = this.#deps.settings.timeoutMs + 1000): Promise<void> {
    const { db, settings } = this.#deps
    await releaseClaims(
      db,
      this.#slots.takeWaiting().map((delivery) => delivery.id)
    )
    const deadline = Date.now() + maxWaitMs
    while (this.#slots.active > 0 && Date.now() < deadline) await this.pauses.untilProgress(50)
    // Attempts still in flight (a stopping pump waits only STOP_WAIT_MS): taken again once each could have timed out.
    // Before the last record, so one that ends meanwhile is still recorded.
    await shortenClaims(
      db,
      this.#slots.inFlightSince().map(([id, at]) => ({ id, until: new Date(at + settings.timeoutMs) }))
    )
    await this.record()
  }
}

/** Runs the pump of `partition` until `runForMs` has passed or `signal` aborts. */
export async function runDeliveryPump(deps: PumpDeps, run: PumpRun): Promise<PumpStats> {
  const pump = new DeliveryPump(deps, run.partition)
  const { pollMs, idlePollMs = pollMs, probeMs = pollMs } = deps.settings.pump
  const until = Date.now() + run.runForMs
  let nextRetryCheck = 0
  /** Looks in a row that found nothing: the wait doubles with each, up to `idlePollMs`. */
  let idleLooks = 0
  const stop = () => pump.pauses.wake()
  run.signal?.addEventListener('abort', stop, { once: true })
  try {
    while (Date.now() < until && !run.signal?.aborted) {
      run.heartbeat?.()
      const busy = await pump.claim()
      await pump.record()
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
      if (pump.hasFinished() || pump.isFull())
        await pump.pauses.pause(FLUSH_MS, pump.isFull() ? pump.canRefill : undefined)
      else if (!busy) {
        const wait = idleWait(idleLooks++, pollMs, idlePollMs)
        await pump.pauses.idle(deps.db, wait, probeMs, () => run.signal?.aborted === true)
      }
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
  const pump = new DeliveryPump(deps, partition)
  while (await pump.claim()) await pump.drain()
  await pump.drain()
  await checkRetryWorkflows(deps, partition, partitionCount(deps.settings))
  return pump.stats
}
