/**
 * @module One structured line per request, after the response: method, matched route (never the raw path, which
 * can carry ids an operator does not need), status and latency. Request id and tenant come from the log context.
 * Bodies and query strings are never logged: they can hold health data.
 */
import type { MiddlewareHandler } from 'hono'
import type { Logger } from '../../infra/logger.ts'
import type { AppEnv } from '../app-env.ts'
import { isSpanContextValid, trace } from '@opentelemetry/api'

export const accessLog = (logger: Logger): MiddlewareHandler<AppEnv> =>
  async function accessLog(c, next) {
    const started = performance.now()
    try {
      await next()
    } finally {
      const status = c.res.status
      // The request's trace, when tracing is on: its id links this line (and its request id) to the trace.
      const span = trace.getActiveSpan()?.spanContext()
      const line = {
        method: c.req.method,
        route: c.req.routePath,
        status,
        latencyMs: Math.round((performance.now() - started) * 10) / 10,
        ...(span && isSpanContextValid(span) ? { traceId: span.traceId } : {}),
      }
      if (status >= 500) logger.error(line, 'request failed')
      else logger.info(line, 'request')
    }
  }
