/**
 * @module Errors as values. Domain code throws these; `api/middleware/error-handler.ts` is the one place that maps
 * them to RFC 9457 problem documents. Codes are part of the public contract (docs/conventions.md): never rename one.
 * A code is an {@link ErrorCode}, a key of the error catalogue, so a code without its documentation page does not
 * compile. (A type import only: workflows bundle this module, and the catalogue's text has no place there.)
 */
import type { ErrorCode } from './error-catalogue.ts'

/** One failed field of a validation error. */
export interface FieldError {
  path: string
  code: string
  message: string
}

/** Options for an {@link AppError}. */
export interface AppErrorOptions {
  detail?: string
  errors?: FieldError[]
  headers?: Record<string, string>
  cause?: unknown
}

/** An expected failure with a stable machine-readable code and the HTTP status it maps to. */
export class AppError extends Error {
  readonly code: ErrorCode
  readonly status: number
  readonly title: string
  readonly errors?: FieldError[]
  readonly headers?: Record<string, string>

  constructor(status: number, code: ErrorCode, title: string, options: AppErrorOptions = {}) {
    super(options.detail ?? title, { cause: options.cause })
    this.name = 'AppError'
    this.status = status
    this.code = code
    this.title = title
    this.errors = options.errors
    this.headers = options.headers
  }
}

export const validationError = (errors: FieldError[], detail = 'The request is not valid.') =>
  new AppError(400, 'validation_error', 'Validation error', { detail, errors })

export const invalidJson = (detail = 'The request body is not valid JSON.') =>
  new AppError(400, 'invalid_json', 'Malformed JSON', { detail })

export const invalidToken = (detail = 'The access token is missing, expired or invalid.') =>
  new AppError(401, 'invalid_token', 'Invalid token', {
    detail,
    headers: { 'WWW-Authenticate': `Bearer error="invalid_token", error_description="${detail.replace(/"/g, "'")}"` },
  })

/**
 * 401 for an SSO token that connections of more than one tenant verify (the same issuer and audience registered by
 * each): which tenant the user signs in to is never guessed; the request names it (`X-Tenant-Id`).
 */
export const ssoConnectionAmbiguous = () => {
  const detail =
    'SSO connections of more than one tenant accept this token. Name the tenant to sign in to in the X-Tenant-Id header.'
  return new AppError(401, 'sso_connection_ambiguous', 'SSO connection ambiguous', {
    detail,
    headers: { 'WWW-Authenticate': `Bearer error="invalid_token", error_description="${detail}"` },
  })
}

/** 401 without `error=` when no credentials were sent at all (RFC 6750 §3.1). */
export const missingToken = () =>
  new AppError(401, 'invalid_token', 'Authentication required', {
    detail: 'Send an access token in the Authorization header: Bearer <token>.',
    headers: { 'WWW-Authenticate': 'Bearer realm="api"' },
  })

/**
 * 403 for a token without the scope(s) an operation needs.
 * @param scope - the scope, or several separated by spaces (as `WWW-Authenticate` lists them)
 * @param detail - what to tell the caller, when more than the scope's name helps
 */
export const insufficientScope = (scope: string, detail = `This operation needs the scope "${scope}".`) =>
  new AppError(403, 'insufficient_scope', 'Insufficient scope', {
    detail,
    headers: { 'WWW-Authenticate': `Bearer error="insufficient_scope", scope="${scope}"` },
  })

export const keyNotPermitted = (scope: string, method: string) =>
  new AppError(403, 'insufficient_scope', 'Insufficient scope', {
    detail: `This API key may not ${method} ${scope.replace(/\.read$/, '')}.`,
  })

/**
 * 403 for an action the caller, authenticated and with the scope, is still not allowed (a disabled user, a key asked
 * to do more than its creator, a tool not granted).
 * @param detail - the rule that refuses it
 * @param title - a more specific title than "Forbidden"
 */
export const forbidden = (detail: string, title = 'Forbidden') => new AppError(403, 'forbidden', title, { detail })

export const notFound = (what: string, id: string) =>
  new AppError(404, 'not_found', 'Not found', { detail: `No ${what} with id "${id}".` })

export const routeNotFound = (path: string) =>
  new AppError(404, 'not_found', 'Not found', { detail: `No route matches ${path}.` })

export const conflict = (detail: string) => new AppError(409, 'conflict', 'Conflict', { detail })

/**
 * 409 for a time that cannot be booked.
 * @param errors - one entry per conflicting occurrence, when a request books several
 */
export const slotUnavailable = (detail: string, errors?: FieldError[]) =>
  new AppError(409, 'slot_unavailable', 'Slot unavailable', { detail, errors })

export const invalidStateTransition = (detail: string) =>
  new AppError(409, 'invalid_state_transition', 'Invalid state transition', { detail })

/** 409 for a change to a signed SOAP note: signed notes are locked; only addenda can be added. */
export const noteLocked = (detail: string) => new AppError(409, 'note_locked', 'Note locked', { detail })

/**
 * 409 for an SSO issuer and audience another tenant registered: a pair belongs to one tenant (docs/access-control.md,
 * "SSO (OpenID Connect)"). The tenant's own audience, which nobody else may register, is in `detail`.
 */
export const ssoConnectionTaken = (ownAudience: string) =>
  new AppError(409, 'sso_connection_taken', 'SSO connection taken', {
    detail:
      'Another tenant registered this issuer and audience. Give your identity provider the audience ' +
      `"${ownAudience}" (this tenant's own, which no other tenant may register) and register that.`,
  })

/** 409 for a reconciliation run asked for while the tenant's last one has not ended (docs/payments.md). */
export const reconciliationRunInProgress = (workflowId: string) =>
  new AppError(409, 'reconciliation_run_in_progress', 'Reconciliation run in progress', {
    detail: `The reconciliation run ${workflowId} of this tenant has not ended; ask again once it has.`,
  })

/** 409 for a change that would leave the tenant without an enabled OWNER (docs/access-control.md, "Role order"). */
export const lastOwner = (detail: string) => new AppError(409, 'last_owner', 'Last owner', { detail })

/** 403 when the caller may not act as the session's provider (signing a note is the provider's act). */
export const notSessionProvider = (detail: string) =>
  new AppError(403, 'not_session_provider', 'Not the session provider', { detail })

/**
 * 409 for a request that would take the tenant beyond one of its quotas (docs/rate-limits.md, "Quotas"). A count of
 * things the tenant holds, not a rate: the request succeeds once the tenant holds less, not after a wait, so it is a
 * conflict with the tenant's current state (409) rather than a 429 with `Retry-After`.
 * @param detail - names the quota, its limit and the variable that sets it
 */
export const quotaExceeded = (detail: string) => new AppError(409, 'quota_exceeded', 'Quota exceeded', { detail })

export const idempotencyInProgress = () =>
  new AppError(409, 'idempotency_request_in_progress', 'Request in progress', {
    detail: 'A request with this Idempotency-Key is still being processed. Retry later with the same key.',
    headers: { 'Retry-After': '1' },
  })

export const idempotencyReplayWithheld = () =>
  new AppError(409, 'idempotency_replay_withheld', 'Replay withheld', {
    detail:
      'The first request with this Idempotency-Key succeeded; its answer held a secret that is shown only once and was not kept. Fetch what it created instead.',
  })

export const idempotencyKeyReused = () =>
  new AppError(422, 'idempotency_key_reused', 'Idempotency key reused', {
    detail: 'This Idempotency-Key was already used with a different request (method, path or body).',
  })

/**
 * 410 for a deprecated route from its sunset on (RFC 8594): the detail and a `successor-version` link name the
 * route to call instead.
 * @param successor - the replacement path, e.g. `/v1/children/chd_…`
 * @param sunsetAt - the instant the route was retired
 */
export const versionSunset = (successor: string, sunsetAt: Date) =>
  new AppError(410, 'version_sunset', 'Version sunset', {
    detail: `This API version was retired on ${sunsetAt.toISOString()}. Call ${successor} instead.`,
    headers: { Link: `<${successor}>; rel="successor-version"` },
  })

/**
 * 401 of an operator-only endpoint (the Temporal codec server): no operator credential, or a wrong one.
 * @param challenge - the `WWW-Authenticate` value naming the accepted schemes
 */
export const operatorCredentialRequired = (challenge: string) =>
  new AppError(401, 'invalid_token', 'Operator credential required', {
    detail: 'This endpoint is for platform operators: send the operator token as a Bearer token or Basic password.',
    headers: { 'WWW-Authenticate': challenge },
  })

/**
 * 405 for a path served with other methods.
 * @param allow - the methods the path is served with, sent as `Allow` (RFC 9110 §10.2.1)
 */
export const methodNotAllowed = (method: string, path: string, allow: readonly string[]) =>
  new AppError(405, 'method_not_allowed', 'Method not allowed', {
    detail: `${method} is not allowed on ${path}; it is served with ${allow.join(', ')}.`,
    headers: { Allow: allow.join(', ') },
  })

/** Text the database cannot store, a NUL character for one, in any parameter or field. */
export const invalidText = () =>
  new AppError(400, 'invalid_text', 'Invalid text', {
    detail: 'The request contains text that cannot be stored: a NUL character (U+0000) or an invalid byte sequence.',
  })

/**
 * 413 for a body (or one uploaded file) over its limit.
 * @param limit - the limit in bytes
 * @param detail - what was too large, when it is not the whole body
 */
export const payloadTooLarge = (limit: number, detail = `The request body exceeds ${limit} bytes.`) =>
  new AppError(413, 'payload_too_large', 'Payload too large', { detail })

export const unsupportedMediaType = (detail = 'Send the request body as application/json.') =>
  new AppError(415, 'unsupported_media_type', 'Unsupported media type', { detail })

/**
 * 429 when the caller has used up its requests for the current window.
 * @param retryAfterSeconds - whole seconds until the window resets (at least 1)
 */
export const rateLimited = (retryAfterSeconds: number, detail?: string) =>
  new AppError(429, 'rate_limited', 'Too many requests', {
    detail: detail ?? `The request limit of the current window is used up. Retry after ${retryAfterSeconds} seconds.`,
    headers: { 'Retry-After': String(retryAfterSeconds) },
  })

/**
 * 422: the processor refused the request's amount or currency under its own limits (issue 58); `errors[]` names the
 * field and the limit (`amount_too_small`, `amount_too_large`, `currency_not_supported`) with the processor's words.
 */
export const processorRefused = (field: 'amount' | 'currency', limit: string, message: string, cause?: unknown) =>
  new AppError(422, 'processor_refused', 'Refused by the processor', {
    detail: `The payment processor refuses this ${field}: ${message}`,
    errors: [{ path: field, code: limit, message }],
    cause,
  })

export const dependencyUnavailable = (what: string, cause?: unknown) =>
  new AppError(503, 'dependency_unavailable', 'Dependency unavailable', {
    detail: `${what} is temporarily unavailable. Retry later.`,
    headers: { 'Retry-After': '5' },
    cause,
  })
