/**
 * @module The webhook benchmark's crash scenarios (bench/webhooks.bench.ts): the worker killed with SIGKILL in the
 * middle of a run, the API process killed with SIGKILL while it answers emitting calls, and the worker stopped with
 * SIGTERM in front of a backlog; each started again, and every delivery accounted for.
 */
import {
  deliveryStats,
  emitEvents,
  newTenant,
  sleep,
  subscribe,
  waitDelivered,
  type BenchContext,
  type EmittedEvent,
} from './webhook-bench-kit.ts'
import { freePort } from '../scripts/start/start-process.ts'
import { startApiProcess } from '../scripts/start/worker-process.ts'
import { deliveryKey } from './webhook-peer-client.ts'
import type { KillApiResult, KillResult, SigtermResult } from './webhook-results.ts'
import { emittingCall } from './webhook-scenarios.ts'

/** After a crash, in-flight claims wait for their lease (60 s) and the pump for its heartbeat timeout (10 s). */
const CRASH_DRAIN_MS = 180_000

export async function killScenario(ctx: BenchContext, killAtS: number): Promise<KillResult> {
  const tenant = await newTenant(ctx.api)
  await subscribe(ctx.api, ctx.peer, tenant, 20)
  const paths = tenant.endpoints.map((e) => e.path)
  const window = await ctx.openWindow()
  let killedAt = 0
  let restartMs = 0
  const crash = (async () => {
    await sleep(killAtS * 1000)
    killedAt = Date.now()
    await ctx.worker().kill('SIGKILL')
    ctx.log('worker killed; starting it again')
    await ctx.startWorker()
    restartMs = Date.now() - killedAt
  })()
  const emission = await emitEvents(ctx.api, tenant.tenantId, ctx.rate, ctx.seconds)
  await crash
  await waitDelivered(
    ctx.peer,
    emission.events.map((e) => e.id),
    paths,
    CRASH_DRAIN_MS
  )
  const stats = deliveryStats(ctx.peer, emission.events, paths)
  // Each event's last arrival (Infinity: one never came); loops, not spreads: tens of thousands of values.
  const lastArrival = (event: EmittedEvent) =>
    paths.reduce((last, path) => Math.max(last, ctx.peer.delivered.get(deliveryKey(event.id, path)) ?? Infinity), 0)
  const sorted = [...emission.events].sort((a, b) => a.committedAt - b.committedAt)
  let firstAfterKill = Infinity
  let lastBeforeKill = 0
  let overThirty = 0
  for (const event of sorted) {
    for (const path of paths) {
      const at = ctx.peer.delivered.get(deliveryKey(event.id, path)) ?? Infinity
      if (event.committedAt > killedAt) firstAfterKill = Math.min(firstAfterKill, at)
      else lastBeforeKill = Math.max(lastBeforeKill, at)
      if (at - event.committedAt > 30_000) overThirty++
    }
  }
  // Walking back from the last event: the earliest commit from which every later event took under 1 s everywhere.
  let backUnder = Infinity
  for (let i = sorted.length - 1; i >= 0; i--) {
    const event = sorted[i]!
    if (lastArrival(event) - event.committedAt >= 1000) break
    backUnder = event.committedAt
  }
  return {
    rate: ctx.rate,
    killAtS: killAtS,
    events: emission.events.length,
    restartMs,
    firstDeliveryMs: firstAfterKill - killedAt,
    backUnderOneSecondMs: backUnder - killedAt,
    lastEarlierDeliveryMs: lastBeforeKill - killedAt,
    stats,
    overThirtySeconds: overThirty,
    window: await window.close(stats.lastAt),
  }
}

/**
 * 20 endpoints subscribed to `payment.succeeded`; `POST /v1/payments` at the run's rate from the peer to an API in a
 * process of its own, killed with SIGKILL `killAtS` seconds in and started again at once on the same port. Requests
 * the dead process never answered are counted; every payment it committed, answered or not, must reach every endpoint.
 */
export async function killApiScenario(ctx: BenchContext, killAtS: number): Promise<KillApiResult> {
  const tenant = await newTenant(ctx.api)
  await subscribe(ctx.api, ctx.peer, tenant, 20, [], 'payment.succeeded')
  const call = await emittingCall(ctx, tenant, 'payments')
  const port = await freePort()
  const startApi = () => startApiProcess({ ...ctx.env, PORT: String(port), LOG_LEVEL: 'info' })
  let api = await startApi()
  const since = new Date()
  const window = await ctx.openWindow()
  let restartMs = 0
  const crash = (async () => {
    await sleep(killAtS * 1000)
    const killedAt = Date.now()
    await api.kill('SIGKILL')
    ctx.log('API killed; starting it again')
    api = await startApi()
    restartMs = Date.now() - killedAt
  })()
  const load = await ctx.peer.load({
    url: `http://127.0.0.1:${port}${call.path}`,
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${tenant.token}` },
    bodies: call.bodies,
    rate: ctx.rate,
    seconds: ctx.seconds,
  })
  await crash
  await api.kill('SIGTERM')
  const db = ctx.api.deps.db
  const events = (
    await db.event.findMany({
      where: { tenantId: tenant.tenantId, type: 'payment.succeeded', createdAt: { gte: since } },
      select: { id: true, createdAt: true },
    })
  ).map((e) => ({ id: e.id, committedAt: e.createdAt.getTime() }))
  const payments = await db.payment.count({ where: { tenantId: tenant.tenantId, createdAt: { gte: since } } })
  const paths = tenant.endpoints.map((e) => e.path)
  await waitDelivered(
    ctx.peer,
    events.map((e) => e.id),
    paths,
    CRASH_DRAIN_MS
  )
  const stats = deliveryStats(ctx.peer, events, paths)
  return {
    rate: ctx.rate,
    killAtS,
    statuses: load.statuses,
    restartMs,
    payments,
    events: events.length,
    stats,
    window: await window.close(stats.lastAt),
  }
}

export async function sigtermScenario(
  ctx: BenchContext,
  options: { burstEvents: number; slowReceiverMs: number }
): Promise<SigtermResult> {
  const tenant = await newTenant(ctx.api)
  await subscribe(ctx.api, ctx.peer, tenant, 20)
  const paths = tenant.endpoints.map((e) => e.path)
  const window = await ctx.openWindow()
  ctx.peer.behave({ delayMs: options.slowReceiverMs })
  // A burst far faster than slow receivers take it: a backlog, and every pump slot busy with a slow request.
  const emission = await emitEvents(ctx.api, tenant.tenantId, 200, options.burstEvents / 200)
  const ids = emission.events.map((e) => e.id)
  await sleep(options.slowReceiverMs + 2000)
  await ctx.peer.sync()
  const deliveredAtSignal = paths.reduce(
    (n, path) => n + ids.filter((id) => ctx.peer.delivered.has(deliveryKey(id, path))).length,
    0
  )
  const claimedAtSignal = await ctx.api.deps.db.webhookDelivery.count({
    where: { tenantId: tenant.tenantId, status: 'PENDING', dispatchLeaseUntil: { gt: new Date() } },
  })
  const signalled = Date.now()
  const logBefore = ctx.worker().output().length
  const exitCode = await ctx.worker().kill('SIGTERM')
  const exitMs = Date.now() - signalled
  const shutdownOutput = ctx.worker().output().slice(logBefore)
  const stoppedCleanly = shutdownOutput.includes('worker stopped')
  const shutdownLog = shutdownOutput
    .split('\n')
    .filter((line) => /state|stop|shut|pump|cancel/i.test(line))
    .map((line) => line.slice(0, 300))
  ctx.log(`worker exited ${exitMs} ms after SIGTERM (code ${exitCode}); starting it again`)
  ctx.peer.behave({ delayMs: 0 })
  await ctx.startWorker()
  const restarted = Date.now()
  await waitDelivered(ctx.peer, ids, paths, CRASH_DRAIN_MS)
  // The rows' own word: every delivery ended, and how. Attempts the stopped worker made but did not record are made
  // again when their lease ends (60 s), and only then recorded: duplicates are counted after that.
  const deadline = Date.now() + CRASH_DRAIN_MS
  let statuses: Record<string, number>
  for (;;) {
    const groups = await ctx.api.deps.db.webhookDelivery.groupBy({
      by: ['status'],
      where: { tenantId: tenant.tenantId },
      _count: true,
    })
    statuses = Object.fromEntries(groups.map((g) => [g.status, g._count]))
    if (!statuses.PENDING || Date.now() > deadline) break
    await sleep(1000)
  }
  const endedAfterRestartMs = Date.now() - restarted
  await sleep(1000)
  await ctx.peer.sync()
  const stats = deliveryStats(ctx.peer, emission.events, paths)
  return {
    events: ids.length,
    endpoints: paths.length,
    receiverDelayMs: options.slowReceiverMs,
    claimedAtSignal,
    deliveredAtSignal,
    exitMs,
    exitCode,
    stoppedCleanly,
    shutdownLog,
    restartMs: restarted - signalled - exitMs,
    drainAfterRestartMs: stats.lastAt - restarted,
    endedAfterRestartMs,
    statuses,
    stats,
    window: await window.close(stats.lastAt),
  }
}
