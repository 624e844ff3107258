/**
 * @module Where a request's server time goes, stage by stage (`SERVER_TIMING_STAGES=on`; docs/benchmarks.md, "Where
 * a guarded request's time goes"): each timed middleware's own time, its wait for the database included and what runs
 * after it excluded, is added to `Server-Timing` as `stage-<name>`. The rest of the request, the handler with the
 * middleware that is not timed, is `stage-handler`.
 *
 * Time goes to one stage at a time per request: the stage that runs now. Where Node measures a
 * thread's CPU (`process.threadCpuUsage`, Node 23.9+), the API thread's CPU in each stage is added as `cpu-<name>`:
 * exact one request at a time, mixed with other requests' when several run at once. Off, nothing is wrapped and
 * nothing is measured.
 */
import type { Context, MiddlewareHandler } from 'hono'
import { performance } from 'node:perf_hooks'
import type { AppEnv } from '../app-env.ts'
import { serverTimingMetric } from './server-timing.ts'

/** What runs after the timed middleware that is not itself timed: the handler, mostly. */
const DOWNSTREAM = 'handler'

interface StageClock {
  current: string
  since: number
  sinceCpu: number
  totals: Map<string, number>
  cpu: Map<string, number>
}

/** This thread's CPU time in ms, where Node can tell (23.9+); 0 elsewhere. */
const threadCpu = (() => {
  const usage = (process as { threadCpuUsage?: () => NodeJS.CpuUsage }).threadCpuUsage
  return usage
    ? () => {
        const { user, system } = usage.call(process)
        return (user + system) / 1000
      }
    : undefined
})()

const clocks = new WeakMap<Context, StageClock>()

/** Charges the time since the last switch to the current stage and makes `name` current; returns the one left. */
function switchTo(clock: StageClock, name: string): string {
  const now = performance.now()
  clock.totals.set(clock.current, (clock.totals.get(clock.current) ?? 0) + now - clock.since)
  if (threadCpu) {
    const cpu = threadCpu()
    clock.cpu.set(clock.current, (clock.cpu.get(clock.current) ?? 0) + cpu - clock.sinceCpu)
    clock.sinceCpu = cpu
  }
  const left = clock.current
  clock.current = name
  clock.since = now
  return left
}

/**
 * Starts a request's stage clock; first in the chain, so that everything after it is charged to some stage, and adds
 * the stages to `Server-Timing` once the response is ready. The time before the first timed stage is `stage-other`.
 */
export const stageTimingStart = (): MiddlewareHandler<AppEnv> =>
  async function stageTimingStart(c, next) {
    const clock: StageClock = {
      current: 'other',
      since: performance.now(),
      sinceCpu: threadCpu?.() ?? 0,
      totals: new Map(),
      cpu: new Map(),
    }
    clocks.set(c, clock)
    await next()
    switchTo(clock, 'other')
    const metrics = [
      ...[...clock.totals].map(([name, ms]) => serverTimingMetric(`stage-${name}`, ms)),
      ...[...clock.cpu].map(([name, ms]) => serverTimingMetric(`cpu-${name}`, ms)),
    ]
    c.res.headers.append('Server-Timing', metrics.join(', '))
  }

/**
 * Times a middleware as the stage `name`: its own work before and after `next()`, not what `next()` runs.
 * @param name - the stage (`token`, `rate-limit`, `transaction`...)
 */
export function timedStage(name: string, middleware: MiddlewareHandler<AppEnv>): MiddlewareHandler<AppEnv> {
  return async function timed(c, next) {
    const clock = clocks.get(c)
    if (!clock) return middleware(c, next)
    const outer = switchTo(clock, name)
    try {
      return await middleware(c, async () => {
        switchTo(clock, DOWNSTREAM)
        try {
          await next()
        } finally {
          switchTo(clock, name)
        }
      })
    } finally {
      switchTo(clock, outer)
    }
  }
}
