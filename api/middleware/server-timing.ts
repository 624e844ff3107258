/**
 * @module `Server-Timing` (W3C Server Timing) on every response: `total;dur=` is the time from the request reaching
 * this middleware (the first of the chain) to the response being ready, in milliseconds. Handlers may add their own
 * metrics before it (the availability handler adds `load`, `compute` and `json`). It lets a benchmark, or an operator in the
 * browser's network panel, tell the server's time from the client's and the network's: on a loaded machine the
 * loopback round trip and the client's own parsing are a large part of what a client measures.
 *
 * It reveals durations only, never data; the figures are already observable from outside as response latency.
 */
import type { MiddlewareHandler } from 'hono'
import { performance } from 'node:perf_hooks'
import type { AppEnv } from '../app-env.ts'

/** A `Server-Timing` metric, milliseconds with microsecond precision. */
export const serverTimingMetric = (name: string, ms: number): string => `${name};dur=${ms.toFixed(3)}`

export const serverTiming = (): MiddlewareHandler<AppEnv> =>
  async function serverTiming(c, next) {
    const started = performance.now()
    await next()
    c.res.headers.append('Server-Timing', serverTimingMetric('total', performance.now() - started))
  }
