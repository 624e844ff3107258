/**
 * @module What the audit trail says about one HTTP call: route template, resource, status, actor, address, latency.
 * Read from the Hono context once the response is decided; the middleware that records it is api/middleware/audit.ts.
 */
import { getConnInfo } from '@hono/node-server/conninfo'
import type { Context } from 'hono'
import { matchedRoutes } from 'hono/route'
import { actorOf, type AuditedPrincipal, type AuditEntry } from '../domain/audit/audit-event.ts'
import type { AppEnv, AppVariables } from './app-env.ts'
import { lastForwardedAddress } from './client-address.ts'

/** Responses worth reading for the created resource's id and its location: one resource, not a page of them. */
const MAX_INSPECTED_BODY = 64 * 1024

/**
 * The template of the route that serves (or would have served) the request, e.g. `/v1/children/:id`. The router
 * matched every route before the first middleware ran, so this holds even for a request refused before its handler
 * (a 401). Middleware registered with `use` has the method `ALL`; an empty string means no route matched.
 */
export function routeTemplate(c: Context<AppEnv>): string {
  const routes = matchedRoutes(c)
  for (let i = routes.length - 1; i >= 0; i--) {
    const route = routes[i]!
    if (route.method !== 'ALL') return route.path
  }
  return ''
}

/**
 * The resource a route addresses: the segment before its `:id` parameter and that parameter's value in the path, or
 * for a route without one (a collection) its first segment after the version.
 * @example
 *   resourceOf('/v1/appointments/:id/cancel', '/v1/appointments/apt_1/cancel') // { type: 'appointments', id: 'apt_1' }
 */
export function resourceOf(template: string, path: string): { type: string | null; id: string | null } {
  if (!template) return { type: null, id: null }
  const parts = template.split('/').filter(Boolean)
  const values = path.split('/').filter(Boolean)
  const idIndex = parts.indexOf(':id')
  if (idIndex > 0) return { type: parts[idIndex - 1] ?? null, id: values[idIndex] ?? null }
  const type = parts[1]
  return { type: type && !type.startsWith(':') ? type : null, id: null }
}

/** The last path segment of a `Location` header that points into this API, e.g. a created resource's id. */
export function idFromLocation(location: string | null): string | null {
  if (!location) return null
  const path = location.replace(/^https?:\/\/[^/]+/, '').split(/[?#]/)[0] ?? ''
  if (!path.startsWith('/v1/')) return null
  return path.split('/').filter(Boolean).at(-1) ?? null
}

/**
 * The exact peer address (not the rate limiter's /64 bucket): the last X-Forwarded-For entry behind a trusted proxy,
 * otherwise the TCP peer, with IPv4-mapped IPv6 shown as IPv4.
 */
export function callerAddress(c: Context<AppEnv>, trustProxy: boolean): string | null {
  const forwarded = trustProxy ? lastForwardedAddress(c.req.header('X-Forwarded-For')) : undefined
  let address = forwarded
  if (!address) {
    try {
      address = getConnInfo(c).remote.address
    } catch {
      // Not served by @hono/node-server (app.request in a test): no socket to ask.
    }
  }
  return address?.replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/, '$1') ?? null
}

/**
 * Remembers what the handler passed to `c.json`, so the record can read the answer's fields without reading the
 * response back: cloning it costs ~0.3 ms and turns `@hono/node-server`'s string response into a web stream.
 */
export function rememberJsonAnswers(c: Context<AppEnv>, start: CallStart): void {
  const json = c.json as (...args: unknown[]) => Response
  c.json = ((...args: unknown[]) => {
    const response = json(...args)
    start.answered = { response, body: args[0] }
    return response
  }) as typeof c.json
}

const fieldsOf = (body: unknown) => {
  const { id, locationId } = (body ?? {}) as { id?: unknown; locationId?: unknown }
  return { id: typeof id === 'string' ? id : null, locationId: typeof locationId === 'string' ? locationId : null }
}

/** The `id` and `locationId` of a single-resource JSON response, when it has them. */
async function bodyFields(
  c: Context<AppEnv>,
  start: CallStart
): Promise<{ id: string | null; locationId: string | null }> {
  const none = { id: null, locationId: null }
  // The very response `c.json` made, not one put in its place since (a replayed answer, an error's).
  if (start.answered?.response === c.res) return fieldsOf(start.answered.body)
  if (!/^application\/json/i.test(c.res.headers.get('Content-Type') ?? '')) return none
  const declared = Number(c.res.headers.get('Content-Length') ?? 0)
  if (declared > MAX_INSPECTED_BODY) return none
  const text = await c.res.clone().text()
  if (text.length > MAX_INSPECTED_BODY) return none
  try {
    return fieldsOf(JSON.parse(text))
  } catch {
    return none
  }
}

/**
 * The authenticated caller, if any: the principal of `authenticate`, or for a request refused before it ran (a rate
 * limit, a body too large) the principal of the token `identifyCaller` verified. Never an unverified claim.
 */
export function callerOf(c: Context<AppEnv>): (AuditedPrincipal & { tenantId: string }) | undefined {
  const principal = c.var.principal as AppVariables['principal'] | undefined
  if (principal) return principal
  const bearer = c.var.bearer
  return bearer?.ok ? bearer.principal : undefined
}

/** When the request arrived, for its record's `occurredAt` and `latencyMs`. */
export interface CallStart {
  occurredAt: Date
  /** `performance.now()` at arrival. */
  startedAt: number
  /** The last answer made with `c.json`, and what it was made of (rememberJsonAnswers). */
  answered?: { response: Response; body: unknown }
}

/**
 * Describes a finished call for the audit trail.
 * @param tenantId - the chain the record goes to (the principal's tenant, or the platform chain)
 */
export async function describeCall(
  c: Context<AppEnv>,
  start: CallStart,
  tenantId: string,
  options: { trustProxy: boolean }
): Promise<AuditEntry> {
  const route = routeTemplate(c)
  const path = c.req.path
  const resource = resourceOf(route, path)
  const status = c.res.status
  // A single resource that answered successfully may name what was created and the centre it belongs to.
  const single = status >= 200 && status < 300 && (c.req.method !== 'GET' || resource.id !== null)
  const body = single ? await bodyFields(c, start) : { id: null, locationId: null }
  return {
    tenantId,
    occurredAt: start.occurredAt,
    ...actorOf(callerOf(c)),
    locationId: body.locationId,
    method: c.req.method,
    route,
    path,
    resourceType: resource.type,
    resourceId: resource.id ?? (single ? (idFromLocation(c.res.headers.get('Location')) ?? body.id) : null),
    status,
    requestId: c.var.requestId,
    clientIp: callerAddress(c, options.trustProxy),
    userAgent: c.req.header('User-Agent') ?? null,
    latencyMs: performance.now() - start.startedAt,
  }
}
