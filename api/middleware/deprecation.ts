/**
 * @module Deprecated routes (docs/versioning.md). Until the sunset every response carries `Deprecation` (RFC 9745),
 * `Sunset` (RFC 8594) and a `Link` to the successor; from the sunset instant the route answers 410 `version_sunset`
 * naming the successor. "Now" comes from the injected clock, so tests stand on either side of the date.
 */
import type { MiddlewareHandler } from 'hono'
import { versionSunset } from '../../domain/errors.ts'
import type { Clock } from '../../infra/clock.ts'
import type { AppEnv } from '../app-env.ts'

/** When a route was deprecated, when it goes away, and what replaces it. */
export interface DeprecationPolicy {
  /** The instant the route became deprecated (`Deprecation: @<unix seconds>`). */
  deprecatedAt: Date
  /** From this instant on the route answers 410 (`Sunset`). */
  sunsetAt: Date
  /** The successor's path template in OpenAPI form, `{name}` filled from the request: `/v1/children/{id}`. */
  successor: string
  /** Where the deprecation is documented, linked with `rel="deprecation"`. */
  documentation?: string
}

/** `Deprecation` value: an RFC 9651 date, i.e. `@` and Unix seconds. */
export const deprecationHeader = (at: Date) => `@${Math.floor(at.getTime() / 1000)}`

/** `Sunset` value: an HTTP-date (RFC 9110 IMF-fixdate), which is what `toUTCString` produces. */
export const sunsetHeader = (at: Date) => at.toUTCString()

/** Fills `{name}` placeholders from the route parameters, encoded as path segments. */
function fillTemplate(template: string, params: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(params[name] ?? `{${name}}`))
}

/**
 * Marks a route deprecated and retires it at the sunset.
 * @param policy - dates, successor and documentation link
 * @param clock - decides which side of the sunset a request is on
 */
export function deprecation(policy: DeprecationPolicy, clock: Clock): MiddlewareHandler<AppEnv> {
  if (policy.sunsetAt.getTime() <= policy.deprecatedAt.getTime()) {
    throw new Error('A route must be deprecated before its sunset.')
  }
  const deprecationValue = deprecationHeader(policy.deprecatedAt)
  const sunsetValue = sunsetHeader(policy.sunsetAt)
  const documentationLink = policy.documentation
    ? `, <${policy.documentation}>; rel="deprecation"; type="application/json"`
    : ''
  return async function deprecation(c, next) {
    const successor = fillTemplate(policy.successor, c.req.param())
    // Past the sunset the route is gone for every caller that got this far; nothing of it runs.
    if (clock().getTime() >= policy.sunsetAt.getTime()) throw versionSunset(successor, policy.sunsetAt)
    await next()
    // Set after the handler so error responses (404, 403) carry them too: the route itself is deprecated.
    c.res.headers.set('Deprecation', deprecationValue)
    c.res.headers.set('Sunset', sunsetValue)
    c.res.headers.set('Link', `<${successor}>; rel="successor-version"${documentationLink}`)
  }
}
