/**
 * @module The documentation of every error code: what it means and what the caller should do. A problem document's
 * `type` is `<PUBLIC_URL>/errors/<code>`, and the API serves this entry there (api/routes/errors/), so the link in
 * every error answers. The codes are a type, {@link ErrorCode}, derived from this catalogue's keys: `AppError` and its
 * factories take only an `ErrorCode`, so a code without a page (or a typo) does not compile, and the OpenAPI
 * description lists each status's codes from here (api/openapi/routes.ts). A unit test checks that each code is
 * answered with the status its page gives.
 */

/** One error code's page. */
export interface ErrorCodeEntry {
  /** The HTTP status the code is answered with. */
  status: number
  /** The problem's `title`. */
  title: string
  /** What happened, in the integrator's terms. */
  meaning: string
  /** What to do about it: fix and resend, retry, or ask someone. */
  action: string
  /** Whether resending the same request later can succeed without changing it. */
  retryable: boolean
}

const entry = (status: number, title: string, meaning: string, action: string, retryable = false): ErrorCodeEntry => ({
  status,
  title,
  meaning,
  action,
  retryable,
})

const RETRY_SAME_KEY = 'Retry the same request with the same Idempotency-Key: a write that failed left nothing behind.'

/** Every code a problem document can carry, by code. Codes are a public contract: never rename or remove one. */
export const ERROR_CATALOGUE = {
  validation_error: entry(
    400,
    'Validation error',
    'The request is well-formed but one or more fields are missing or not valid. `errors[]` names each field (`path`), ' +
      'a stable `code` for the failure and a message.',
    'Fix the fields listed in `errors[]` and send the request again. The operation in /openapi.json describes every ' +
      'field and its constraints.'
  ),
  invalid_json: entry(
    400,
    'Malformed JSON',
    'The body was declared as JSON but could not be parsed.',
    'Send a valid JSON document with `Content-Type: application/json` (check quoting and trailing commas).'
  ),
  invalid_text: entry(
    400,
    'Invalid text',
    'A parameter or field contains text the database cannot store: a NUL character (U+0000) or invalid UTF-8.',
    'Remove NUL characters and send UTF-8 text.'
  ),
  malformed_request: entry(
    400,
    'Malformed request',
    'The HTTP server could not read the request: it is not valid HTTP/1.1.',
    'Check the client or proxy that builds the request; this is not about its content.'
  ),
  bad_request: entry(
    400,
    'Bad request',
    'The request could not be read as the operation expects (a problem below the validation of its fields).',
    'Read `detail`, correct the request and send it again.'
  ),
  invalid_token: entry(
    401,
    'Invalid token',
    'No access token was sent, or it is expired, malformed, revoked or signed by a key we do not know. The ' +
      '`WWW-Authenticate` header says which (RFC 6750).',
    'Get a new access token from POST /oauth/token (client credentials or your refresh token) and send it as ' +
      '`Authorization: Bearer <token>`. Tokens live 15 minutes by default.',
    true
  ),
  sso_connection_ambiguous: entry(
    401,
    'SSO connection ambiguous',
    'The SSO token is valid for connections of more than one tenant: each registered the same issuer and audience. ' +
      'The platform does not guess which tenant the user signs in to.',
    'Send the request again with the `X-Tenant-Id` header naming your tenant (ask your administrator for its id); ' +
      'or have the other registration removed.'
  ),
  insufficient_scope: entry(
    403,
    'Insufficient scope',
    'The token is valid but was not granted the scope this operation needs (or the API key does not permit this ' +
      'method on this resource). `detail` and `WWW-Authenticate` name the scope.',
    'Request a token with that scope (the client must be allowed it), or use a key that permits the call. The ' +
      'scope catalogue is in /.well-known/oauth-authorization-server.'
  ),
  forbidden: entry(
    403,
    'Forbidden',
    'The caller is authenticated and has the scope, but this particular action is not allowed to it: a disabled ' +
      'user, a key asked to do more than its creator, an assistant tool not granted.',
    'Read `detail`: it names the rule. An administrator of the tenant can change the grant.'
  ),
  not_session_provider: entry(
    403,
    'Not the session provider',
    'Signing or changing this clinical record is the act of the session’s provider, and the caller is not them: a ' +
      'note is signed by a credential linked to the provider, or by an administrator on the record.',
    'Sign with a user or API key linked to the session’s provider (`providerId`), as an OWNER or ADMIN user on the ' +
      'record, or ask the provider to sign. Read `detail`: it says which.'
  ),
  not_found: entry(
    404,
    'Not found',
    'No such route, or no such resource visible to this tenant. Another tenant’s resources are also answered 404, ' +
      'so their existence is not disclosed.',
    'Check the id (ids carry a type prefix such as `chd_` or `prv_`) and that the token belongs to the right tenant.'
  ),
  method_not_allowed: entry(
    405,
    'Method not allowed',
    'The route exists but not with this HTTP method.',
    'Use a method the route offers; /openapi.json lists them.'
  ),
  request_timeout: entry(
    408,
    'Request timeout',
    'The request did not arrive completely in time.',
    'Send it again; check the network or a slow upload.',
    true
  ),
  conflict: entry(
    409,
    'Conflict',
    'The request conflicts with the current state of a resource: a duplicate, a record still in use, a version ' +
      'that moved on.',
    'Read `detail`, fetch the resource’s current state, and decide whether to send a changed request.'
  ),
  slot_unavailable: entry(
    409,
    'Slot unavailable',
    'The appointment time is not bookable: taken by another booking, outside the provider’s hours, in time off, ' +
      'or within the location’s notice or buffer.',
    'Ask GET /v1/availability for bookable slots and book one of them.'
  ),
  invalid_state_transition: entry(
    409,
    'Invalid state transition',
    'The operation is not allowed from the resource’s current status (e.g. completing a cancelled appointment, ' +
      'approving an offboarded provider).',
    'Fetch the resource to see its status; `detail` says which statuses allow the operation.'
  ),
  note_locked: entry(
    409,
    'Note locked',
    'The SOAP note is signed, and signed notes are never changed.',
    'Add an addendum to the note instead.'
  ),
  sso_connection_taken: entry(
    409,
    'SSO connection taken',
    'Another tenant registered this issuer and audience; a pair belongs to one tenant, so tokens are never ambiguous.',
    'Register the tenant’s own audience (`urn:therapy-care:tenant:<tenant id>`, named in `detail`) at the identity ' +
      'provider and here.'
  ),
  reconciliation_run_in_progress: entry(
    409,
    'Reconciliation run in progress',
    'The tenant’s last requested reconciliation run is waiting to start or running (its id is in `detail`); a tenant ' +
      'runs one at a time.',
    'Wait for that run to end (GET /v1/reconciliation/findings lists what it found), then ask again.',
    true
  ),
  last_owner: entry(
    409,
    'Last owner',
    'The change would leave the tenant without an enabled OWNER (demoting or disabling its last one).',
    'Make another user an OWNER first, then change this one.'
  ),
  amount_exceeds_balance: entry(
    409,
    'Amount exceeds balance',
    'The payment is larger than what the order still owes.',
    'Fetch the order and pay at most its outstanding balance.'
  ),
  amount_exceeds_refundable: entry(
    409,
    'Amount exceeds refundable',
    'The refund is larger than what is left to refund on the payment.',
    'Fetch the payment and refund at most its refundable amount.'
  ),
  quota_exceeded: entry(
    409,
    'Quota exceeded',
    'The tenant already holds as much of something as its quota allows: active API keys, enabled agent workflows, ' +
      'stored knowledge bytes, or documents of one assistant. `detail` names the quota, its limit and the variable ' +
      'that sets it (docs/rate-limits.md, "Quotas"). Quotas count what a tenant holds, not a rate: waiting does not ' +
      'help.',
    'Free some of it (revoke an unused key, disable or delete a workflow, delete documents) and send the request ' +
      'again, or ask the operator of the deployment to raise the quota.'
  ),
  idempotency_request_in_progress: entry(
    409,
    'Request in progress',
    'A request with the same Idempotency-Key is still being processed.',
    'Wait for `Retry-After` seconds and send the same request with the same key: you will get its answer.',
    true
  ),
  idempotency_replay_withheld: entry(
    409,
    'Replay withheld',
    'The first request with this Idempotency-Key succeeded, but its answer carried a secret that is shown once and was not kept for replay (no sealing key is configured).',
    'Find what the first request created (its `Location`, or list the resource) and, if its secret was lost, revoke it or rotate it.'
  ),
  version_sunset: entry(
    410,
    'Version sunset',
    'This API version of the route was retired on its sunset date.',
    'Call the successor route named in `detail` and in the `Link: rel="successor-version"` header.'
  ),
  payload_too_large: entry(
    413,
    'Payload too large',
    'The request body, or one uploaded file, is larger than allowed. `detail` gives the limit.',
    'Send less: split a list into several requests, or a large file into smaller documents.'
  ),
  unsupported_media_type: entry(
    415,
    'Unsupported media type',
    'The body’s Content-Type is not one this operation accepts, or an uploaded file is of a type it does not read.',
    'Send the body as the operation’s request body in /openapi.json says (most take `application/json`; knowledge ' +
      'uploads also take `multipart/form-data`), and files of the accepted types `detail` lists.'
  ),
  idempotency_key_reused: entry(
    422,
    'Idempotency key reused',
    'This Idempotency-Key was already used with a different request (method, path or body) in the last 24 hours.',
    'Use a new key for a new request; reuse a key only to resend exactly the same request.'
  ),
  rate_limited: entry(
    429,
    'Too many requests',
    'The client used up its requests for the current window (600 a minute by default), or a tenant polls workflow ' +
      'views faster than they are paced (20 a second by default) and its queue of waiting views is full.',
    'Wait `Retry-After` seconds, then continue; the `X-RateLimit-*` headers show the budget on every response. ' +
      'Poll workflow views less often: a view changes only when its workflow does something.',
    true
  ),
  request_header_fields_too_large: entry(
    431,
    'Request header fields too large',
    'The request line and headers together exceed 16 KiB.',
    'Send long filters in fewer, shorter query parameters, and drop unneeded headers or cookies.'
  ),
  internal_error: entry(
    500,
    'Internal server error',
    'An unexpected error on our side. Nothing about it is disclosed in the answer.',
    `${RETRY_SAME_KEY} If it persists, contact support with the \`requestId\`.`,
    true
  ),
  dependency_unavailable: entry(
    503,
    'Dependency unavailable',
    'A service the API needs (the database, Temporal, the payment processor) is temporarily unreachable.',
    `Wait \`Retry-After\` seconds. ${RETRY_SAME_KEY}`,
    true
  ),
  processor_refused: entry(
    422,
    'Refused by the processor',
    'The online processor (Stripe) refused the request for its amount or currency under its own limits: below its ' +
      'minimum charge, above its maximum, or a currency not enabled on the account. `errors[]` names the field ' +
      '(`amount` or `currency`) and the limit (`amount_too_small`, `amount_too_large`, `currency_not_supported`), ' +
      "with the processor's message.",
    'Change the amount or currency (split a large payment, take a small one another way) and send a new request ' +
      'with a new Idempotency-Key: the same request is refused again.'
  ),
  processor_not_configured: entry(
    409,
    'Processor not configured',
    'The operation moves money through an online processor (Stripe), and this deployment has none configured ' +
      '(`ONLINE_PAYMENT_PROCESSOR=none`).',
    'Ask the operator to configure the processor (README, "Online card payments"); until then payments are recorded ' +
      'and settlements move no money.'
  ),
  invalid_signature: entry(
    400,
    'Invalid signature',
    "A payment processor's webhook whose signature does not verify against the configured signing secret, or whose " +
      'signed timestamp is outside the tolerance (5 minutes). Nothing in it was applied.',
    "Check the webhook signing secret configured for the processor (STRIPE_WEBHOOK_SECRET) and the server's clock; " +
      'the processor delivers the event again.'
  ),
} as const satisfies Readonly<Record<string, ErrorCodeEntry>>

/** A stable error code: one of the catalogue's keys. */
export type ErrorCode = keyof typeof ERROR_CATALOGUE

/** Whether `code` is one we answer (e.g. a code read from a URL). */
export const isErrorCode = (code: string): code is ErrorCode => Object.hasOwn(ERROR_CATALOGUE, code)

/** The entry of a code, or undefined for a code we never answer. */
export const errorCodeEntry = (code: string): ErrorCodeEntry | undefined =>
  isErrorCode(code) ? ERROR_CATALOGUE[code] : undefined

/** The codes answered with `status`, in the catalogue's order (for the OpenAPI description of that status). */
export const errorCodesOf = (status: number): ErrorCode[] =>
  (Object.keys(ERROR_CATALOGUE) as ErrorCode[]).filter((code) => ERROR_CATALOGUE[code].status === status)
