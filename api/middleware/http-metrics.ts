/**
 * @module Counts every answered request and its duration by route template (`/v1/children/:id`, never the id
 * itself: one series per route, and no identifier in a label), method and status class. Outermost but for server
 * timing, so errors, 404s, 429s and preflights are counted like the rest.
 */
import type { MiddlewareHandler } from 'hono'
import { routePath } from 'hono/route'
import type { Metrics } from '../../infra/metrics/metrics-registry.ts'
import type { AppEnv } from '../app-env.ts'

/** Methods are a fixed set: anything else is one label value, not one per string a client invents. */
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'])

export const httpMetrics = (metrics: Metrics): MiddlewareHandler<AppEnv> => {
  // The series of each (route, method, status class), resolved once: prom-client hashes a label object on every
  // call otherwise, which was most of what metrics cost a request (docs/benchmarks.md, "Guarded read").
  const series = new Map<string, { count: () => void; time: (seconds: number) => void }>()
  const seriesOf = (route: string, method: string, statusClass: string) => {
    const key = `${route} ${method} ${statusClass}`
    let found = series.get(key)
    if (!found) {
      const counter = metrics.httpRequests.labels({ route, method, status_class: statusClass })
      const histogram = metrics.httpDuration.labels({ route, method })
      found = { count: () => counter.inc(), time: (seconds) => histogram.observe(seconds) }
      series.set(key, found)
    }
    return found
  }
  return async function httpMetrics(c, next) {
    const started = performance.now()
    try {
      await next()
    } finally {
      // The handler's route; a path no route matched is `unmatched` (the 404s of probes and typos are one series).
      const matched = routePath(c, -1)
      const route = matched === '*' || matched === '/*' ? 'unmatched' : matched
      const method = METHODS.has(c.req.method) ? c.req.method : 'OTHER'
      const measured = seriesOf(route, method, `${Math.floor(c.res.status / 100)}xx`)
      measured.count()
      measured.time((performance.now() - started) / 1000)
    }
  }
}
