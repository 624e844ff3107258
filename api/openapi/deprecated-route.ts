/**
 * @module Deprecated aliases of current routes (docs/versioning.md). An alias has its successor's contract (scope,
 * parameters, responses) under an older path; the `deprecation` middleware adds the headers until the sunset and
 * answers 410 from it, and the OpenAPI description says so from the same values.
 */
import { createRoute, type RouteConfig } from '@hono/zod-openapi'
import type { Clock } from '../../infra/clock.ts'
import { deprecation, deprecationHeader, sunsetHeader, type DeprecationPolicy } from '../middleware/deprecation.ts'
import { problemResponses } from './routes.ts'

/** The lifecycle of a deprecated version: shared by all of its routes. */
export interface VersionLifecycle extends Omit<DeprecationPolicy, 'successor'> {
  clock: Clock
}

type ResponseConfig = RouteConfig['responses'][string]

/** Statuses the app answers before a route's own middleware runs: authentication, body size, rate limit. */
const ANSWERED_BEFORE_THE_ROUTE = new Set(['401', '413', '429'])

function lifecycleHeaders(lifecycle: VersionLifecycle, successor: string) {
  return {
    Deprecation: {
      description: 'When this route was deprecated (RFC 9745)',
      schema: { type: 'string', example: deprecationHeader(lifecycle.deprecatedAt) },
    },
    Sunset: {
      description: 'From this instant the route answers 410 `version_sunset` (RFC 8594)',
      schema: { type: 'string', example: sunsetHeader(lifecycle.sunsetAt) },
    },
    Link: {
      description: `The successor (\`rel="successor-version"\`, ${successor}) and the deprecation's documentation`,
      schema: { type: 'string', example: `<${successor}>; rel="successor-version"` },
    },
  } as const
}

/**
 * Declares `path` as a deprecated alias of `current`.
 * @param current - the route that replaces the alias (a `protectedRoute`; its scope check is kept)
 * @param path - the alias, in OpenAPI form (`/v0/children/{id}`)
 * @param lifecycle - dates, documentation link and clock of the deprecated version
 * @returns a route for `app.openapi`, taking the same handler as `current`
 */
export function deprecatedAlias<R extends RouteConfig, P extends string>(
  current: R,
  path: P,
  lifecycle: VersionLifecycle
) {
  const { clock, ...dates } = lifecycle
  const headers = lifecycleHeaders(lifecycle, current.path)
  const responses: Record<string, ResponseConfig> = {}
  for (const [status, response] of Object.entries(current.responses)) {
    // Answers decided before the route runs lack the headers; a $ref response is shared with other operations.
    const decorated = !ANSWERED_BEFORE_THE_ROUTE.has(status) && !('$ref' in response)
    responses[status] = decorated ? { ...response, headers: { ...(response.headers as object), ...headers } } : response
  }
  const currentMiddleware = current.middleware === undefined ? [] : [current.middleware].flat()
  const route = createRoute({
    ...current,
    path,
    deprecated: true,
    description:
      `Deprecated: use \`${current.method.toUpperCase()} ${current.path}\`, which behaves the same. From ` +
      `${lifecycle.sunsetAt.toISOString()} this route answers 410 \`version_sunset\`.`,
    // The sunset check comes first: once retired, the route answers 410 whatever the token's scopes.
    middleware: [deprecation({ ...dates, successor: current.path }, clock), ...currentMiddleware],
    responses: { ...responses, ...problemResponses(410) },
  })
  // Typed as the current route at the new path, so the current route's handler serves the alias unchanged.
  return route as unknown as Omit<R, 'path'> & { path: P; getRoutingPath(): string }
}
