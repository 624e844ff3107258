/**
 * @module Response conformance: every response of a described route must match what its OpenAPI description says,
 * status and body. On in the test suite (`RESPONSE_VALIDATION=enforce`), so every integration test that calls the
 * API is also a check that the description tells the truth; a response that does not match becomes a 500
 * `response_schema_violation` naming the route, the status and the first differences, and the test fails where the
 * lie is. Off in production: a mismatch there is a bug to fix, not a reason to refuse a client's answer.
 *
 * The statuses the platform's middleware answers on every route (authentication, rate limit, body limit, idempotency,
 * outages) are added to the description by construction (`middlewareStatuses`), so they are declared too.
 */
import type { RouteConfig } from '@hono/zod-openapi'
import type { MiddlewareHandler } from 'hono'
import type { ZodType } from 'zod'
import { ProblemSchema } from './schemas.ts'
import type { AppEnv } from '../app-env.ts'

/** The statuses a described operation can answer whatever its handler does, because middleware answers them. */
export function middlewareStatuses(method: string, path: string, secured: boolean, hasInput: boolean): number[] {
  const statuses = [429, 500, 503]
  if (secured) statuses.push(401, 403)
  if (hasInput) statuses.push(400)
  const write = method !== 'get' && method !== 'head'
  // Idempotency (409 in progress, 422 key reused), body limit (413) and media type (415) guard every versioned write.
  if (write && /^\/v[01]\//.test(path)) statuses.push(409, 413, 415, 422)
  // /v0 answers 410 from its sunset.
  if (path.startsWith('/v0/')) statuses.push(410)
  return statuses
}

type RouteDefinition = { type: string; route?: RouteConfig }

interface Described {
  route: RouteConfig
  secured: boolean
  hasInput: boolean
}

const toHonoPath = (path: string) => path.replace(/\{(\w+)\}/g, ':$1')

function schemaOf(route: RouteConfig, status: number): { declared: boolean; schema?: ZodType } {
  const response = (route.responses as Record<string, { content?: Record<string, { schema?: unknown }> }>)[
    String(status)
  ]
  if (!response) return { declared: false }
  const content = response.content ?? {}
  const media = content['application/json'] ?? content['application/problem+json'] ?? Object.values(content)[0]
  const schema = media?.schema as ZodType | undefined
  return { declared: true, schema: typeof schema?.safeParse === 'function' ? schema : undefined }
}

/**
 * The first problems of a response against its route's description, or none.
 * @returns human-readable problems, empty when the response conforms
 */
export function conformanceProblems(
  described: Described,
  method: string,
  status: number,
  body: unknown,
  mediaType?: string
): string[] {
  const { route } = described
  const { declared, schema: declaredSchema } = schemaOf(route, status)
  if (!declared) {
    const byMiddleware = middlewareStatuses(method, route.path, described.secured, described.hasInput).includes(status)
    if (!byMiddleware) return [`status ${status} is not described`]
  }
  // A response that is not JSON but in a media type its description offers (an HTML page beside its JSON form) has
  // no JSON body to check.
  if (declared && mediaType && !/json/.test(mediaType)) {
    const content = (route.responses as Record<string, { content?: Record<string, unknown> }>)[String(status)]?.content
    if (content && Object.hasOwn(content, mediaType)) return []
  }
  const schema = declared ? declaredSchema : ProblemSchema
  if (!schema) return []
  const result = schema.safeParse(body)
  if (result.success) return []
  return result.error.issues.slice(0, 5).map((issue) => `${issue.path.join('.') || '(body)'}: ${issue.message}`)
}

/**
 * The enforcing middleware.
 * @param definitions - the app's OpenAPI registry definitions (read on first use, once every route is mounted)
 */
export function responseConformance(definitions: () => readonly RouteDefinition[]): MiddlewareHandler<AppEnv> {
  let index: Map<string, Described> | undefined
  const lookup = (method: string, honoPath: string) => {
    index ??= new Map(
      definitions()
        .filter((d): d is { type: 'route'; route: RouteConfig } => d.type === 'route' && d.route !== undefined)
        .map(({ route }) => [
          `${route.method.toUpperCase()} ${toHonoPath(route.path)}`,
          {
            route,
            secured: (route.security?.length ?? 0) > 0,
            hasInput: Boolean(route.request?.body || route.request?.query || route.request?.params),
          },
        ])
    )
    return index.get(`${method} ${honoPath}`)
  }
  return async function responseConformance(c, next) {
    await next()
    const described = lookup(c.req.method, c.req.routePath)
    if (!described) return
    const type = c.res.headers.get('content-type') ?? ''
    const text = await c.res.clone().text()
    let body: unknown = undefined
    if (/json/.test(type) && text.length > 0) body = JSON.parse(text)
    const mediaType = type.split(';')[0]!.trim().toLowerCase() || undefined
    const problems = conformanceProblems(described, c.req.method.toLowerCase(), c.res.status, body, mediaType)
    if (problems.length === 0) return
    const detail = `${c.req.method} ${described.route.path} answered ${c.res.status}, which its description does not allow: ${problems.join('; ')}`
    c.res = new Response(
      JSON.stringify({
        type: 'about:blank',
        title: 'Response does not match its description',
        status: 500,
        detail,
        instance: c.req.path,
        code: 'response_schema_violation',
        requestId: c.get('requestId'),
      }),
      { status: 500, headers: { 'Content-Type': 'application/problem+json' } }
    )
  }
}
