/**
 * @module Route definition helpers. `protectedRoute` is how every /v1 route is declared: the scope it needs is
 * enforced by middleware and documented in OpenAPI from the same value, so the two cannot disagree.
 */
import { createRoute, type RouteConfig } from '@hono/zod-openapi'
import type { Scope } from '../../domain/auth/scopes.ts'
import { PROBLEM_CONTENT_TYPE } from '../middleware/error-handler.ts'
import { requireAnyScope, requireScope } from '../middleware/require-scope.ts'
import { ProblemSchema } from './schemas.ts'

export const ERROR_DESCRIPTIONS = {
  400: 'Validation error (`validation_error`, `invalid_json`)',
  401: 'Missing, invalid or expired access token (`invalid_token`)',
  403: 'The token lacks the required scope (`insufficient_scope`), or the caller may not sign as the session provider (`not_session_provider`)',
  404: 'Not found, or not visible to this tenant (`not_found`)',
  409:
    'Conflict (`conflict`, `slot_unavailable`, `invalid_state_transition`, `idempotency_request_in_progress`, ' +
    '`amount_exceeds_balance`, `amount_exceeds_refundable`, `note_locked`)',
  410: 'The route is past its sunset (`version_sunset`); the detail and the `Link` header name its successor',
  413: 'Request body too large (`payload_too_large`)',
  415: 'Unsupported media type (`unsupported_media_type`)',
  422: 'Idempotency-Key reused with a different request (`idempotency_key_reused`)',
  429: 'Rate limit exceeded (`rate_limited`)',
  500: 'Internal error (`internal_error`); writes are safe to retry with the same Idempotency-Key',
  503: 'A dependency is unavailable (`dependency_unavailable`)',
} as const

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
