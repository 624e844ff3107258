/**
 * @module What a failed call throws. An answer outside 2xx becomes an {@link ApiError} carrying the problem
 * document's fields (RFC 9457: every API error, with a stable `code`) or the token endpoint's OAuth error
 * (RFC 6749 §5.2: `error` becomes `code`). A call that never got an answer becomes an {@link ApiConnectionError}.
 */

/** One failed field of a `validation_error`. */
export interface FieldError {
  path: string
  code: string
  message: string
}

/**
 * The codes the API documents (docs/conventions.md, "Errors") plus the token endpoint's OAuth errors. Any other string
 * may appear too (codes are added, never renamed), hence the open union.
 */
export type ErrorCode =
  | 'validation_error'
  | 'invalid_json'
  | 'invalid_token'
  | 'insufficient_scope'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'invalid_state_transition'
  | 'slot_unavailable'
  | 'idempotency_request_in_progress'
  | 'version_sunset'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'idempotency_key_reused'
  | 'rate_limited'
  | 'internal_error'
  | 'dependency_unavailable'
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'invalid_scope'
  | 'unsupported_grant_type'
  // `string & {}` keeps editor completion for the names above while accepting any other code.
  | (string & {})

/** A non-2xx answer of the API. */
export class ApiError extends Error {
  /** HTTP status. */
  readonly status: number
  /** The stable machine-readable code: branch on this, never on `title` or `detail`. */
  readonly code: ErrorCode
  /** Short summary of the problem type. */
  readonly title: string
  /** This occurrence, in words. */
  readonly detail?: string
  /** Per-field errors of a `validation_error`. */
  readonly errors?: FieldError[]
  /** The request id (body or `X-Request-Id`): quote it to support. */
  readonly requestId?: string
  /** The problem type URI. */
  readonly type?: string
  /** The request path the problem is about. */
  readonly instance?: string
  /** The answer's headers (rate-limit state, `Retry-After`, `WWW-Authenticate`...). */
  readonly headers: Headers
  /** The parsed body (or its text when it was not JSON). */
  readonly body: unknown

  constructor(init: {
    status: number
    code: string
    title: string
    detail?: string
    errors?: FieldError[]
    requestId?: string
    type?: string
    instance?: string
    headers: Headers
    body: unknown
  }) {
    super(`${init.status} ${init.code}: ${init.detail ?? init.title}`)
    this.name = 'ApiError'
    this.status = init.status
    this.code = init.code
    this.title = init.title
    this.detail = init.detail
    this.errors = init.errors
    this.requestId = init.requestId
    this.type = init.type
    this.instance = init.instance
    this.headers = init.headers
    this.body = init.body
  }
}

/** The call got no answer: every attempt failed on the network or timed out. */
export class ApiConnectionError extends Error {
  /** How many attempts were made. */
  readonly attempts: number

  constructor(message: string, attempts: number, cause: unknown) {
    super(message, { cause })
    this.name = 'ApiConnectionError'
    this.attempts = attempts
  }
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null
const optionalString = (value: unknown) => (typeof value === 'string' ? value : undefined)

function fieldErrors(value: unknown): FieldError[] | undefined {
  if (!Array.isArray(value)) return undefined
  return value.filter(
    (e): e is FieldError =>
      isRecord(e) && typeof e.path === 'string' && typeof e.code === 'string' && typeof e.message === 'string'
  )
}

/**
 * Reads a non-2xx response into an {@link ApiError}, consuming its body.
 * @param response - an answer outside 2xx
 */
export async function toApiError(response: Response): Promise<ApiError> {
  const text = await response.text().catch(() => '')
  let body: unknown = text
  try {
    body = text ? JSON.parse(text) : undefined
  } catch {
    // Not JSON (a proxy's HTML page, say): keep the text, the status still says what happened.
  }
  const headerRequestId = response.headers.get('x-request-id') ?? undefined
  const base = { status: response.status, headers: response.headers, body }
  if (isRecord(body) && typeof body.code === 'string') {
    return new ApiError({
      ...base,
      code: body.code,
      title: optionalString(body.title) ?? response.statusText,
      detail: optionalString(body.detail),
      errors: fieldErrors(body.errors),
      requestId: optionalString(body.requestId) ?? headerRequestId,
      type: optionalString(body.type),
      instance: optionalString(body.instance),
    })
  }
  if (isRecord(body) && typeof body.error === 'string') {
    return new ApiError({
      ...base,
      code: body.error,
      title: body.error,
      detail: optionalString(body.error_description),
      requestId: headerRequestId,
    })
  }
  return new ApiError({
    ...base,
    code: `http_${response.status}`,
    title: response.statusText || `HTTP ${response.status}`,
    requestId: headerRequestId,
  })
}
