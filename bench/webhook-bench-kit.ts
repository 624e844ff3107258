/**
 * @module What the webhook benchmark's scenarios share: the running benchmark, a tenant subscribed with endpoints on
 * the peer's receiver, events emitted at a fixed rate, waiting for their deliveries, and turning arrivals into
 * latencies, losses and duplicates.
 */
import { randomBytes } from 'node:crypto'
import type { RunningApi } from '../api/start-api.ts'
import { recordEvent } from '../domain/events/record-event.ts'
import { newId } from '../domain/ids.ts'
import { provisionClient } from '../domain/tenants/provision-client.ts'
import { runInUnitOfWork } from '../infra/unit-of-work.ts'
import type { WorkerProcess } from '../scripts/start/worker-process.ts'
import { deliveryKey, type Peer } from './webhook-peer-client.ts'
import type { MeasuredWindow } from './measured-window.ts'

export type { MeasuredWindow } from './measured-window.ts'

/** What a scenario needs of the running benchmark. */
export interface BenchContext {
  api: RunningApi
  peer: Peer
  /** Events (or requests) a second, and for how long. */
  rate: number
  seconds: number
  /** How long to wait for the last deliveries of a run. */
  drainTimeoutMs: number
  openWindow(): Promise<MeasuredWindow>
  /** The worker process running now. */
  worker(): WorkerProcess
  /** Starts a worker process in place of one that has exited. */
  startWorker(): Promise<void>
  /** The API's and the worker's environment, to start an API process of its own (`kill-api`). */
  env: Record<string, string>
  log(message: string): void
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** The value below which `p` percent of `sorted` lie (nearest rank); NaN for an empty list. */
export const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN

export interface Endpoint {
  id: string
  path: string
  failing: boolean
}

export interface BenchTenant {
  tenantId: string
  token: string
  endpoints: Endpoint[]
}

/** Gets a client-credentials token from the API, as an integrator would. */
async function tokenFor(api: RunningApi, client: { client_id: string; client_secret: string }): Promise<string> {
  const response = await fetch(`${api.url}/oauth/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ grant_type: 'client_credentials', ...client }),
  })
  if (response.status !== 200) throw new Error(`token: ${response.status} ${await response.text()}`)
  return ((await response.json()) as { access_token: string }).access_token
}

/** A new tenant and a token for it (by default, scopes `children`, `orders`, `payments` and `webhooks`). */
export async function newTenant(
  api: RunningApi,
  scopes = ['children', 'orders', 'payments', 'webhooks']
): Promise<BenchTenant> {
  const client = await provisionClient(api.deps.db, { tenantName: `Bench ${randomBytes(4).toString('hex')}`, scopes })
  return { tenantId: client.tenantId, token: await tokenFor(api, client), endpoints: [] }
}

/**
 * Subscribes `count` endpoints of `tenant` to `eventType` (`child.registered` unless given) through the API. Those
 * listed in `failing` get a path under `/fail/`, which the peer answers with 500 once told to.
 */
export async function subscribe(
  api: RunningApi,
  peer: Peer,
  tenant: BenchTenant,
  count: number,
  failing: number[] = [],
  eventType = 'child.registered'
): Promise<void> {
  for (let i = 0; i < count; i++) {
    const isFailing = failing.includes(i)
    const path = `${isFailing ? '/fail' : ''}/${tenant.tenantId}/${tenant.endpoints.length}`
    const created = await fetch(`${api.url}/v1/webhook-endpoints`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${tenant.token}` },
      // Both signing schemes, as integrators use both.
      body: JSON.stringify({
        url: `${peer.receiverUrl(i)}${path}`,
        events: [eventType],
        signingScheme: i % 2 ? 'v2' : 'v1',
      }),
    })
    if (created.status !== 201) throw new Error(`endpoint: ${created.status} ${await created.text()}`)
    const { id } = (await created.json()) as { id: string }
    tenant.endpoints.push({ id, path, failing: isFailing })
  }
}

/** An event as the benchmark saw it: `committedAt` is when its unit of work's commit returned (ms since the epoch). */
export interface EmittedEvent {
  id: string
  committedAt: number
}

export interface Emission {
  events: EmittedEvent[]
  /** How long the recording transactions took, sorted. */
  recordMs: number[]
  sendSeconds: number
}

/**
 * Records `rate` `child.registered` events a second for `seconds` in `tenantId`, each by `recordEvent` in its own
 * tenant unit of work, as an operation records it, and at its own time whatever the earlier ones are doing (open
 * loop: a slow database shows up as latency, not as a lower rate).
 */
export async function emitEvents(api: RunningApi, tenantId: string, rate: number, seconds: number): Promise<Emission> {
  const events: EmittedEvent[] = []
  const recordMs: number[] = []
  const total = Math.round(rate * seconds)
  const started = performance.now()
  const inFlight: Promise<void>[] = []
  for (let i = 0; i < total; i++) {
    const wait = started + (i * 1000) / rate - performance.now()
    if (wait > 0) await sleep(wait)
    inFlight.push(
      (async () => {
        const t0 = performance.now()
        const event = await runInUnitOfWork(api.deps.db, tenantId, (uow) =>
          recordEvent(uow, 'child.registered', { childId: newId('child'), locationId: null })
        )
        recordMs.push(performance.now() - t0)
        events.push({ id: event.id, committedAt: Date.now() })
      })()
    )
  }
  const sendSeconds = (performance.now() - started) / 1000
  await Promise.all(inFlight)
  return { events, recordMs: recordMs.sort((a, b) => a - b), sendSeconds }
}

/** How many of the (event, path) pairs have been delivered. */
export const deliveredCount = (peer: Peer, eventIds: string[], paths: string[]) =>
  eventIds.reduce((n, id) => n + paths.filter((path) => peer.delivered.has(deliveryKey(id, path))).length, 0)

/**
 * Waits until every event has reached every path, or `timeoutMs` has passed.
 * @returns whether everything arrived
 */
export async function waitDelivered(peer: Peer, eventIds: string[], paths: string[], timeoutMs: number) {
  const deadline = Date.now() + timeoutMs
  const expected = eventIds.length * paths.length
  for (;;) {
    await peer.sync()
    if (deliveredCount(peer, eventIds, paths) >= expected) return true
    if (Date.now() > deadline) return false
    await sleep(250)
  }
}

export interface DeliveryStats {
  expected: number
  delivered: number
  lost: number
  duplicates: number
  p50: number
  p95: number
  p99: number
  max: number
  /** When the last delivery arrived (ms since the epoch). */
  lastAt: number
}

/**
 * The deliveries' p50 / p95 ms by the second of the run their event was committed in ("0: 97/175, 1: 54/116, ..."):
 * whether a slow run started behind and caught up, or fell behind as it went (docs/benchmarks.md, "Webhooks: an idle
 * pump that hears the first event").
 */
export function latencyBySecond(peer: Peer, events: EmittedEvent[], paths: string[]): string {
  const start = Math.min(...events.map((e) => e.committedAt))
  const seconds: number[][] = []
  for (const event of events) {
    const second = Math.floor((event.committedAt - start) / 1000)
    for (const path of paths) {
      const at = peer.delivered.get(deliveryKey(event.id, path))
      if (at !== undefined) (seconds[second] ??= []).push(at - event.committedAt)
    }
  }
  return seconds
    .map((latencies, second) => {
      latencies.sort((a, b) => a - b)
      return `${second}: ${percentile(latencies, 50)}/${percentile(latencies, 95)}`
    })
    .filter(Boolean)
    .join(', ')
}

/** Latency from commit to arrival, over every (event, path) pair; what never arrived is lost. */
export function deliveryStats(peer: Peer, events: EmittedEvent[], paths: string[]): DeliveryStats {
  const latencies: number[] = []
  let duplicates = 0
  let lastAt = 0
  for (const event of events) {
    for (const path of paths) {
      const key = deliveryKey(event.id, path)
      const at = peer.delivered.get(key)
      duplicates += peer.duplicatesOf.get(key) ?? 0
      if (at === undefined) continue
      latencies.push(at - event.committedAt)
      lastAt = Math.max(lastAt, at)
    }
  }
  latencies.sort((a, b) => a - b)
  const expected = events.length * paths.length
  return {
    expected,
    delivered: latencies.length,
    lost: expected - latencies.length,
    duplicates,
    p50: percentile(latencies, 50),
    p95: percentile(latencies, 95),
    p99: percentile(latencies, 99),
    max: latencies.at(-1) ?? NaN,
    lastAt,
  }
}
