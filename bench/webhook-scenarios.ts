/**
 * @module The webhook benchmark's load scenarios (bench/webhooks.bench.ts): steady load, one failing endpoint among
 * twenty, and the emitting API call with and without subscribers.
 */
import { addActions, emptyActions, historyActions } from './temporal-actions.ts'
import {
  deliveryStats,
  latencyBySecond,
  emitEvents,
  newTenant,
  percentile,
  subscribe,
  waitDelivered,
  type BenchContext,
  type BenchTenant,
  type EmittedEvent,
} from './webhook-bench-kit.ts'
import { deliveryKey } from './webhook-peer-client.ts'
import type { ApiCall, ApiResult, ApiRun, FailingResult, Stage, SteadyResult } from './webhook-results.ts'

const stage = (values: number[]): Stage => {
  values.sort((a, b) => a - b)
  return { p50: percentile(values, 50), p95: percentile(values, 95) }
}

/** Where the time went: commit → delivery row (fan-out), row → attempt made, attempt → read by the receiver. */
async function stagesOf(
  ctx: BenchContext,
  tenant: BenchTenant,
  events: EmittedEvent[]
): Promise<SteadyResult['stages']> {
  const committed = new Map(events.map((e) => [e.id, e.committedAt]))
  const pathOf = new Map(tenant.endpoints.map((e) => [e.id, e.path]))
  const rows = await ctx.api.deps.db.webhookDelivery.findMany({
    where: { tenantId: tenant.tenantId },
    select: {
      eventId: true,
      endpointId: true,
      createdAt: true,
      // Attempt 1's time (a successful first attempt has no attempt row: the delivery row keeps it).
      firstAttemptAt: true,
    },
  })
  const fanOut: number[] = []
  const toAttempt: number[] = []
  const post: number[] = []
  for (const row of rows) {
    const commit = committed.get(row.eventId)
    const attempt = row.firstAttemptAt?.getTime()
    const arrived = ctx.peer.delivered.get(deliveryKey(row.eventId, pathOf.get(row.endpointId) ?? ''))
    if (commit !== undefined) fanOut.push(row.createdAt.getTime() - commit)
    if (attempt !== undefined) toAttempt.push(attempt - row.createdAt.getTime())
    if (attempt !== undefined && arrived !== undefined) post.push(arrived - attempt)
  }
  return { fanOut: stage(fanOut), toAttempt: stage(toAttempt), post: stage(post) }
}

export async function steady(ctx: BenchContext, endpoints: number): Promise<SteadyResult> {
  const tenant = await newTenant(ctx.api)
  await subscribe(ctx.api, ctx.peer, tenant, endpoints)
  const paths = tenant.endpoints.map((e) => e.path)
  const window = await ctx.openWindow()
  const emission = await emitEvents(ctx.api, tenant.tenantId, ctx.rate, ctx.seconds)
  const ids = emission.events.map((e) => e.id)
  await waitDelivered(ctx.peer, ids, paths, ctx.drainTimeoutMs)
  const stats = deliveryStats(ctx.peer, emission.events, paths)
  ctx.log(`p50/p95 ms by the second the event was committed in: ${latencyBySecond(ctx.peer, emission.events, paths)}`)
  const lastCommit = Math.max(...emission.events.map((e) => e.committedAt))
  return {
    endpoints,
    rate: ctx.rate,
    events: ids.length,
    eventsPerSecond: ids.length / emission.sendSeconds,
    stats,
    drainMs: Math.max(0, stats.lastAt - lastCommit),
    recordP50: percentile(emission.recordMs, 50),
    recordP95: percentile(emission.recordMs, 95),
    stages: await stagesOf(ctx, tenant, emission.events),
    window: await window.close(Math.max(stats.lastAt, lastCommit)),
  }
}

export async function failing(ctx: BenchContext, rate: number): Promise<FailingResult> {
  const tenant = await newTenant(ctx.api)
  await subscribe(ctx.api, ctx.peer, tenant, 20, [0])
  const bad = tenant.endpoints.find((e) => e.failing)!
  const healthyPaths = tenant.endpoints.filter((e) => !e.failing).map((e) => e.path)
  ctx.peer.behave({ failingPrefixes: ['/fail/'] })
  const window = await ctx.openWindow()
  const emission = await emitEvents(ctx.api, tenant.tenantId, rate, ctx.seconds)
  await waitDelivered(
    ctx.peer,
    emission.events.map((e) => e.id),
    healthyPaths,
    ctx.drainTimeoutMs
  )
  const healthy = deliveryStats(ctx.peer, emission.events, healthyPaths)
  const to = Math.max(healthy.lastAt, ...emission.events.map((e) => e.committedAt))
  const figures = await window.close(to)
  const retry = await historyActions(ctx.api.deps.temporal, {
    query: `WorkflowId = "webhook-endpoint-retry-${bad.id}"`,
    from: window.from,
    to,
  })
  const [held, deliveries] = await Promise.all([
    ctx.api.deps.db.webhookDelivery.count({ where: { endpointId: bad.id, status: 'PENDING' } }),
    ctx.api.deps.db.webhookDelivery.count({ where: { endpointId: bad.id } }),
  ])
  // Its retry workflow ends at its next step once the endpoint is gone: later scenarios are not charged with it.
  await fetch(`${ctx.api.url}/v1/webhook-endpoints/${bad.id}`, {
    method: 'DELETE',
    headers: { Authorization: `Bearer ${tenant.token}` },
  })
  const actions = [...retry.values()].reduce(addActions, emptyActions())
  return {
    rate,
    events: emission.events.length,
    healthy,
    failing: { calls: ctx.peer.failedCalls.get(bad.path) ?? 0, held, deliveries, actions },
    window: figures,
  }
}

/** An emitting call as the peer sends it: its path, the bodies it sends in turn, and the event it emits. */
export interface EmittingCall {
  path: string
  bodies: string[]
  eventType: string
}

/** Orders the payments are spread over: a payment locks its order's row, and one order would queue them all. */
const PAYMENT_ORDERS = 64

/**
 * The emitting call, ready to send for `tenant`:
 * - `children`: `POST /v1/children` (`child.registered`); each request also enqueues the child's progress-follow-up
 *   workflow, so the call costs a workflow start and its first tasks besides the event;
 * - `payments`: `POST /v1/payments` (`payment.succeeded`) against orders opened beforehand through the API: the order's
 *   row lock, the payment, the order's amounts and the event in one transaction, nothing started in Temporal. The call
 *   the issue measured ("50 payments/s").
 */
export async function emittingCall(ctx: BenchContext, tenant: BenchTenant, call: ApiCall): Promise<EmittingCall> {
  if (call === 'children') {
    const body = JSON.stringify({ firstName: 'Bench', lastName: 'Child', dateOfBirth: '2020-03-03' })
    return { path: '/v1/children', bodies: [body], eventType: 'child.registered' }
  }
  const orderIds = await Promise.all(
    Array.from({ length: PAYMENT_ORDERS }, async () => {
      const response = await fetch(`${ctx.api.url}/v1/orders`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${tenant.token}` },
        // Large enough for every payment the scenario sends (a cent each).
        body: JSON.stringify({
          status: 'OPEN',
          currency: 'USD',
          lines: [{ kind: 'PRODUCT', description: 'Bench package', unitAmount: 100_000_000 }],
        }),
      })
      if (response.status !== 201) throw new Error(`order: ${response.status} ${await response.text()}`)
      return ((await response.json()) as { id: string }).id
    })
  )
  const bodies = orderIds.map((orderId) => JSON.stringify({ orderId, amount: 1, currency: 'USD', method: 'CASH' }))
  return { path: '/v1/payments', bodies, eventType: 'payment.succeeded' }
}

/** The emitting call at `rate` requests/s from the peer, with the tenant's endpoints subscribed. */
async function apiRun(
  ctx: BenchContext,
  tenant: BenchTenant,
  call: EmittingCall,
  rate: number,
  seconds: number
): Promise<ApiRun> {
  const window = await ctx.openWindow()
  const result = await ctx.peer.load({
    url: `${ctx.api.url}${call.path}`,
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${tenant.token}` },
    bodies: call.bodies,
    rate,
    seconds,
  })
  const latencies = result.latencies.filter((ms) => Number.isFinite(ms)).sort((a, b) => a - b)
  return {
    subscribed: tenant.endpoints.length,
    requests: result.latencies.length,
    statuses: result.statuses,
    errors: result.errors,
    p50: percentile(latencies, 50),
    p95: percentile(latencies, 95),
    p99: percentile(latencies, 99),
    window: await window.close(),
  }
}

export async function apiScenario(ctx: BenchContext, rate: number, callName: ApiCall): Promise<ApiResult> {
  const tenant = await newTenant(ctx.api)
  const call = await emittingCall(ctx, tenant, callName)
  // Warm-up of the route (its first requests compile Prisma queries and fill caches); not measured.
  await apiRun(ctx, tenant, call, rate, 5)
  const baseline = await apiRun(ctx, tenant, call, rate, ctx.seconds)
  ctx.log(`baseline p95 ${baseline.p95.toFixed(1)} ms`)
  await subscribe(ctx.api, ctx.peer, tenant, 20, [], call.eventType)
  const since = new Date()
  const subscribed = await apiRun(ctx, tenant, call, rate, ctx.seconds)
  // Commit time is not visible from outside the API: the event's own timestamp (taken in its transaction) stands in.
  const events = (
    await ctx.api.deps.db.event.findMany({
      where: { tenantId: tenant.tenantId, createdAt: { gte: since } },
      select: { id: true, createdAt: true },
    })
  ).map((e) => ({ id: e.id, committedAt: e.createdAt.getTime() }))
  const paths = tenant.endpoints.map((e) => e.path)
  await waitDelivered(
    ctx.peer,
    events.map((e) => e.id),
    paths,
    ctx.drainTimeoutMs
  )
  return { call: callName, rate, baseline, subscribed, deliveries: deliveryStats(ctx.peer, events, paths) }
}
