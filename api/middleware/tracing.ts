/**
 * @module The request's span (infra/tracing/tracing.ts): continues the caller's trace from `traceparent` when it sends
 * one, is the parent of everything the request does (its unit of work, the workflows it starts), and is named for the
 * route template (`POST /v1/appointments`), never the path with its ids. A no-op unless tracing is installed.
 */
import { context, propagation, SpanKind, SpanStatusCode, trace, type TextMapGetter } from '@opentelemetry/api'
import type { MiddlewareHandler } from 'hono'
import { routePath } from 'hono/route'
import type { AppEnv } from '../app-env.ts'

const tracer = trace.getTracer('therapy-care-api')

const headerGetter: TextMapGetter<Headers> = {
  get: (headers, key) => headers.get(key) ?? undefined,
  keys: (headers) => [...headers.keys()],
}

export const tracing = (): MiddlewareHandler<AppEnv> =>
  async function tracing(c, next) {
    const method = c.req.method
    const parent = propagation.extract(context.active(), c.req.raw.headers, headerGetter)
    await tracer.startActiveSpan(
      method,
      { kind: SpanKind.SERVER, attributes: { 'http.request.method': method } },
      parent,
      async (span) => {
        try {
          await next()
        } finally {
          const matched = routePath(c, -1)
          const route = matched === '*' || matched === '/*' ? 'unmatched' : matched
          span.updateName(`${method} ${route}`)
          span.setAttribute('http.route', route)
          span.setAttribute('http.response.status_code', c.res.status)
          span.setAttribute('therapy.request_id', c.get('requestId'))
          // Set only once authentication ran (a 401 or a public route has none).
          const tenantId = (c.var as Partial<AppEnv['Variables']>).principal?.tenantId
          if (tenantId) span.setAttribute('therapy.tenant_id', tenantId)
          if (c.res.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR })
          span.end()
        }
      }
    )
  }
