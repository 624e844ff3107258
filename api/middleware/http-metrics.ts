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

export const httpMetrics = (metrics: Metrics): MiddlewareHandler<AppEnv> =>
  async function httpMetrics(c, next) {
    const started = performance.now()
    try {
      await next()
    } finally {
      // The handler's route; a path no route matched is `unmatched` (the 404s of probes and typos are one series).
      const matched = routePath(c, -1)
      const route = matched === '*' || matched === '/*' ? 'unmatched' : matched
      const method = METHODS.has(c.req.method) ? c.req.method : 'OTHER'
      const statusClass = `${Math.floor(c.res.status / 100)}xx`
      metrics.httpRequests.inc({ route, method, status_class: statusClass })
      metrics.httpDuration.observe({ route, method }, (performance.now() - started) / 1000)
    }
  }
