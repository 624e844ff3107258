/**
 * @module The OpenAPI 3.1 description. Generated from the route definitions, then completed with what the app's
 * middleware adds to every operation by construction (the Idempotency-Key header on writes, the request id, the rate
 * limit's headers and 429), so the description documents exactly what the middleware enforces, and with the links
 * from the operations that return ids to those that take them.
 */
import type { OpenAPIHono } from '@hono/zod-openapi'
import type { AppEnv } from '../app-env.ts'
import { API_VERSION } from '../version.ts'
import { eventWebhooksSection } from '../routes/events/event-webhooks.openapi.ts'
import { addOperationIds } from './operation-ids.ts'
import { addResourceLinks } from './links.ts'
import { fixNullableRefs } from './nullable-refs.ts'
import { middlewareStatuses } from './response-conformance.ts'
import { ERROR_DESCRIPTIONS } from './routes.ts'

const IDEMPOTENCY_KEY = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'Makes a write safe to retry: the same key and request within 24 hours returns the stored response with ' +
    '`Idempotent-Replayed: true`; the same key with a different request is a 422 `idempotency_key_reused`; ' +
    'while the first request is still running, a 409 `idempotency_request_in_progress`. Use a new key (a UUID, say) ' +
    'for every new request.',
  // HTTP drops a header value's surrounding whitespace, so a key of spaces only arrives empty: a 400 `invalid_length`
  // like an empty one (api/middleware/idempotency.ts).
  schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '\\S' },
}

const REQUEST_ID_HEADER = {
  description: 'The request id, generated or taken from a well-formed X-Request-Id request header',
  schema: { type: 'string' },
}

const integerHeader = (description: string) => ({ description, schema: { type: 'integer' } })

/** On every response (api/app.ts): the semantic version of the API that answered, `info.version` here. */
const API_VERSION_HEADER = {
  description: 'The API version that answered (semantic versioning, CHANGELOG.md); the same as `info.version`',
  schema: { type: 'string' },
}

/** On a write's response replayed from the idempotency store (api/middleware/idempotency.ts). */
const IDEMPOTENT_REPLAYED_HEADER = {
  description: '`true` when this is the stored response to an earlier request with the same `Idempotency-Key`',
  schema: { type: 'string', enum: ['true'] },
}

/** On every response (rate-limit middleware). */
const RATE_LIMIT_HEADERS = {
  'X-RateLimit-Limit': integerHeader(
    'Requests allowed per 60-second window to the caller: its API client, or its address when unauthenticated'
  ),
  'X-RateLimit-Remaining': integerHeader('Requests left in the current window'),
  'X-RateLimit-Reset': integerHeader('Unix epoch seconds at which the current window ends'),
}

/** Every operation can be refused by the rate limit, whatever else it answers. */
const rateLimitedResponse = () => ({
  description: 'Rate limit exceeded (`rate_limited`): retry after `Retry-After` seconds',
  content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
  headers: { 'Retry-After': integerHeader('Seconds until the window ends and requests are accepted again') },
})

type Operation = {
  parameters?: unknown[]
  requestBody?: unknown
  security?: unknown[]
  responses?: Record<string, { description?: string; headers?: Record<string, unknown>; content?: unknown }>
}

/** A problem the HTTP server answers before the app, where the request's path is unknown (api/client-errors.ts). */
const REQUEST_HEAD_PROBLEM = {
  type: 'object',
  description: 'An RFC 9457 problem document about a request head the HTTP server could not accept (no `instance`)',
  required: ['type', 'title', 'status', 'detail', 'code', 'requestId'],
  properties: {
    type: { type: 'string', format: 'uri' },
    title: { type: 'string' },
    status: { type: 'integer' },
    detail: { type: 'string' },
    code: {
      type: 'string',
      description: 'Stable machine-readable error code',
      example: 'request_header_fields_too_large',
    },
    requestId: { type: 'string' },
  },
}

const HEAD_TOO_LARGE = {
  description: 'Request line and headers together too large (over 16 KiB), refused by the HTTP server',
  headers: { 'X-Request-Id': REQUEST_ID_HEADER },
  content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/RequestHeadProblem' } } },
}

const problemResponse = (status: number) => ({
  // Any status may be asked for; only the listed ones have a description.
  description: (ERROR_DESCRIPTIONS as Partial<Record<number, string>>)[status] ?? 'Problem',
  content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
})

/**
 * Builds the description served at /openapi.json.
 * @param app - the app whose routes are described
 * @param serverUrl - the public base URL
 */
export function buildOpenApiDocument(app: OpenAPIHono<AppEnv>, serverUrl: string) {
  const document = app.getOpenAPI31Document({
    openapi: '3.1.0',
    info: {
      title: 'Therapy Care Platform API',
      version: API_VERSION,
      description: 'Bookings, care records, events and AI for therapy centres.',
    },
    servers: [{ url: serverUrl }],
  })
  // What webhooks deliver: one entry per event type, generated from the event catalogue (docs/webhooks.md).
  const events = eventWebhooksSection()
  document.webhooks = events.webhooks as typeof document.webhooks
  document.components = {
    ...document.components,
    schemas: {
      ...document.components?.schemas,
      ...events.schemas,
      RequestHeadProblem: REQUEST_HEAD_PROBLEM,
    } as NonNullable<typeof document.components>['schemas'],
  }
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    for (const [method, op] of Object.entries(item as Record<string, Operation>)) {
      if (method !== 'get' && method !== 'head' && path.startsWith('/v1/')) {
        op.parameters = [...(op.parameters ?? []), IDEMPOTENCY_KEY]
      }
      const responses = op.responses
      if (!responses) continue
      // What the middleware answers on this operation whatever its handler does, declared by construction; the
      // response-conformance check holds the API to exactly this list.
      const hasInput = Boolean(op.requestBody) || (op.parameters ?? []).some((p) => p !== IDEMPOTENCY_KEY)
      for (const status of middlewareStatuses(method, path, (op.security?.length ?? 0) > 0, hasInput)) {
        responses[String(status)] ??= problemResponse(status)
      }
      const tooMany = rateLimitedResponse()
      responses['429'] = {
        ...tooMany,
        ...responses['429'],
        headers: { ...responses['429']?.headers, ...tooMany.headers },
      }
      const replayable = op.parameters?.includes(IDEMPOTENCY_KEY) ?? false
      for (const response of Object.values(responses)) {
        response.headers = {
          'X-Request-Id': REQUEST_ID_HEADER,
          'X-Api-Version': API_VERSION_HEADER,
          ...RATE_LIMIT_HEADERS,
          ...(replayable ? { 'Idempotent-Replayed': IDEMPOTENT_REPLAYED_HEADER } : {}),
          ...response.headers,
        }
      }
      // The HTTP server refuses a request head over 16 KiB (a very long query string, say) before any middleware
      // runs, so that answer has only the request id of the headers above: possible on every operation
      // (api/client-errors.ts).
      responses['431'] ??= HEAD_TOO_LARGE
    }
  }
  // Links from each create and list to the operations on the ids it returns (links.ts), read from the patterns; an
  // operationId on every operation, from its method and path (operation-ids.ts).
  return addOperationIds(addResourceLinks(fixNullableRefs(document)))
}
