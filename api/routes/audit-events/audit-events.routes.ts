/** @module Route table of /v1/audit-events: schemas and OpenAPI definitions. */
import { z } from '@hono/zod-openapi'
import { COMMON_ERRORS, problemResponses, protectedRoute } from '../../openapi/routes.ts'
import { OffsetDateTime, PaginationQuery, UtcDateTime, pageOf } from '../../openapi/schemas.ts'
import { resourceId } from '../../../domain/id-schema.ts'
import { orNull } from '../../../domain/nullable.ts'

const Hash = z.string().openapi({ description: 'SHA-256, lowercase hex', example: 'c6a1…' })

export const AuditEvent = z
  .object({
    id: resourceId('auditEvent'),
    tenantId: z.string(),
    seq: z
      .number()
      .int()
      .nullable()
      .openapi({
        description:
          "Position on the tenant's chain: 1, 2, 3… without gaps, in the order records were sealed. Null until the " +
          'record is sealed, normally within a second of its request committing',
      }),
    occurredAt: UtcDateTime.openapi({ description: 'When the request arrived' }),
    actorType: z.enum(['client', 'api_key', 'user', 'anonymous']),
    actorId: z.string().nullable().openapi({ description: 'The API client, key or user', example: 'cli_019a...' }),
    locationId: z.string().nullable(),
    method: z.string().openapi({ example: 'GET' }),
    route: z
      .string()
      .openapi({ description: 'The route template; empty when no route matched', example: '/v1/children/:id' }),
    path: z.string().openapi({ example: '/v1/children/chd_019a...' }),
    resourceType: z.string().nullable().openapi({ example: 'children' }),
    resourceId: z.string().nullable().openapi({ example: 'chd_019a...' }),
    status: z.number().int().openapi({ example: 200 }),
    requestId: z.string(),
    clientIp: z.string().nullable(),
    userAgent: z.string().nullable(),
    latencyMs: z.number().int(),
    prevHash: Hash.nullable().openapi({
      description: "The previous record's hash; 64 zeros for seq 1. Null until the record is sealed",
    }),
    hash: Hash.nullable().openapi({
      description:
        'SHA-256 over prevHash, seq and the canonical JSON of every other field (docs/audit-trail.md). Null until ' +
        'the record is sealed',
    }),
  })
  .openapi('AuditEvent')

export const AuditEventQuery = PaginationQuery.extend({
  sort: z
    .enum(['-occurredAt', 'occurredAt'])
    .default('-occurredAt')
    .openapi({
      param: { name: 'sort', in: 'query' },
      description: '`-occurredAt` newest first (default), `occurredAt` oldest first; ties in id order',
    }),
  from: OffsetDateTime.optional().openapi({
    param: { name: 'from', in: 'query' },
    description: 'Records that occurred at or after this instant',
    example: '2026-11-01T00:00:00Z',
  }),
  to: OffsetDateTime.optional().openapi({
    param: { name: 'to', in: 'query' },
    description: 'Records that occurred before this instant',
    example: '2026-12-01T00:00:00Z',
  }),
  actorId: z
    .string()
    .min(1)
    .max(255)
    .optional()
    .openapi({ param: { name: 'actorId', in: 'query' } }),
  resourceType: z
    .string()
    .min(1)
    .max(255)
    .optional()
    .openapi({ param: { name: 'resourceType', in: 'query' } }),
  resourceId: z
    .string()
    .min(1)
    .max(255)
    .optional()
    .openapi({ param: { name: 'resourceId', in: 'query' } }),
  status: z.coerce
    .number()
    .int()
    .min(100)
    .max(599)
    .optional()
    .openapi({ param: { name: 'status', in: 'query' } }),
  method: z
    .enum(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'])
    .optional()
    .openapi({ param: { name: 'method', in: 'query' } }),
})

const BrokenLink = z
  .object({
    seq: z.number().int(),
    id: z.string(),
    reason: z.enum(['seq_gap', 'prev_hash_mismatch', 'hash_mismatch', 'event_missing']),
    expected: z.string().openapi({
      description: 'For seq_gap the seq that should come next; for event_missing the missing id; otherwise a hash',
    }),
    found: z.string().openapi({ description: 'Empty for event_missing' }),
  })
  .openapi('AuditChainBrokenLink')

export const ChainReport = z
  .object({
    valid: z.boolean(),
    checked: z.number().int().openapi({ description: 'Records examined, the broken one included' }),
    firstBrokenLink: orNull(BrokenLink),
    head: z
      .object({ seq: z.number().int(), hash: Hash })
      .nullable()
      .openapi({ description: 'The last record of a valid chain; keep it elsewhere to detect a rewritten tail' }),
    unsealed: z
      .number()
      .int()
      .openapi({ description: 'Records not on the chain yet (committed after the check began)' }),
    staleUnsealed: z.number().int().openapi({
      description: 'Unsealed records that arrived over a minute ago: the chain is not being sealed; makes it invalid',
    }),
  })
  .openapi('AuditChainReport')

export const listAuditEventsRoute = protectedRoute('audit', {
  method: 'get',
  path: '/v1/audit-events',
  tags: ['Audit'],
  summary: "List the tenant's audit trail",
  description:
    'One record per API call, newest first (by `occurredAt`, then `id`). Filters combine with AND; `from` is ' +
    'inclusive, `to` exclusive. A record is listed once its request commits; `seq`, `prevHash` and `hash` are ' +
    'null until the sealer has put it on the chain, normally within a second.',
  request: { query: AuditEventQuery },
  responses: {
    200: {
      description: 'A page of audit records',
      content: { 'application/json': { schema: pageOf(AuditEvent, 'AuditEventPage') } },
    },
    ...problemResponses(400, ...COMMON_ERRORS),
  },
})

export const verifyAuditChainRoute = protectedRoute('audit', {
  method: 'get',
  path: '/v1/audit-events/verify',
  tags: ['Audit'],
  summary: "Verify the tenant's audit chain",
  description:
    "Seals every committed record, then recomputes every record's hash in seq order and reports the first " +
    'broken link: a changed record (`hash_mismatch`), a replaced one (`prev_hash_mismatch`), a missing link ' +
    '(`seq_gap`) or a missing record (`event_missing`).',
  responses: {
    200: { description: 'The verification report', content: { 'application/json': { schema: ChainReport } } },
    ...problemResponses(...COMMON_ERRORS),
  },
})
