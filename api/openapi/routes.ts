/**
 * @module Route definition helpers. `protectedRoute` is how every /v1 route is declared: the scope it needs is
 * enforced by middleware and documented in OpenAPI from the same value, so the two cannot disagree.
 */
import { createRoute, type RouteConfig } from '@hono/zod-openapi'
import type { Scope } from '../../domain/auth/scopes.ts'
import { errorCodesOf } from '../../domain/error-catalogue.ts'
import { PROBLEM_CONTENT_TYPE } from '../middleware/error-handler.ts'
import { requireAllScopes, requireAnyScope, requireScope } from '../middleware/require-scope.ts'
import { ProblemSchema } from './schemas.ts'

/**
 * What an error status means on a route, in a few words; the codes it can carry are added from the error catalogue
 * (domain/error-catalogue.ts), so a new code shows in the description of its status without editing this list.
 */
const STATUS_SUMMARIES = {
  400: 'The request is not valid',
  401: 'Missing, invalid or expired access token',
  403: 'The caller may not do this: the token lacks the scope, or a rule of the resource refuses the caller',
  404: 'Not found, or not visible to this tenant',
  409: 'Conflict with the current state of the resource',
  410: 'The route is past its sunset; the detail and the `Link` header name its successor',
  413: 'Request body too large',
  415: 'Unsupported media type',
  422: 'Idempotency-Key reused with a different request',
  429: 'Rate limit exceeded',
  500: 'Internal error; writes are safe to retry with the same Idempotency-Key',
  503: 'A dependency is unavailable',
} as const

/** Each declared error status's description: its summary and every code the catalogue answers with it. */
export const ERROR_DESCRIPTIONS = Object.fromEntries(
  Object.entries(STATUS_SUMMARIES).map(([status, summary]) => {
    const codes = errorCodesOf(Number(status)).map((code) => `\`${code}\``)
    return [status, `${summary} (${codes.join(', ')})`]
  })
) as Record<keyof typeof STATUS_SUMMARIES, string>

export type ErrorStatus = keyof typeof ERROR_DESCRIPTIONS

/** Problem-document responses for the given statuses. */
export function problemResponses<S extends ErrorStatus>(...statuses: S[]) {
  return Object.fromEntries(
    statuses.map((status) => [
      status,
      { description: ERROR_DESCRIPTIONS[status], content: { [PROBLEM_CONTENT_TYPE]: { schema: ProblemSchema } } },
    ])
  ) as unknown as Record<
    S,
    { description: string; content: { [PROBLEM_CONTENT_TYPE]: { schema: typeof ProblemSchema } } }
  >
}

/** The errors every authenticated route can answer. */
export const COMMON_ERRORS = [401, 403, 429, 500] as const satisfies ErrorStatus[]

/**
 * Declares an authenticated route that requires `scope`.
 * @param scope - the scope the caller's token must satisfy
 * @param config - the route, as for `createRoute`
 */
export function protectedRoute<R extends RouteConfig>(scope: Scope, config: R) {
  return createRoute({ ...config, security: [{ oauth2: [scope] }], middleware: [requireScope(scope)] })
}

/**
 * Declares an authenticated route that any one of `scopes` opens (OpenAPI: one security requirement per scope, any of
 * which suffices). The handler's domain function narrows what each scope sees; `scopes[0]` is the one that sees all.
 * @param scopes - the alternatives, the broadest first
 * @param config - the route, as for `createRoute`
 */
export function protectedRouteAnyOf<R extends RouteConfig>(scopes: readonly Scope[], config: R) {
  return createRoute({
    ...config,
    security: scopes.map((scope) => ({ oauth2: [scope] })),
    middleware: [requireAnyScope(scopes)],
  })
}

/**
 * Declares an authenticated route that needs every one of `scopes` (OpenAPI: one security requirement naming them
 * all): a route whose answer carries another resource's data, such as a child's goal scores in an AI insight, needs
 * that resource's read scope as its sibling routes do, beside its own (docs/access-control.md, "Health data and the
 * scopes that read it").
 * @param scopes - the route's own scope first, then the scopes of the data it returns
 * @param config - the route, as for `createRoute`
 */
export function protectedRouteAllOf<R extends RouteConfig>(scopes: readonly Scope[], config: R) {
  return createRoute({ ...config, security: [{ oauth2: [...scopes] }], middleware: [requireAllScopes(scopes)] })
}
