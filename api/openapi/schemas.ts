/**
 * @module Schemas shared by every route: the problem document, ids, pagination and timestamps. Zod schemas are the
 * single source of truth: they validate requests, type handlers and generate the OpenAPI description.
 */
import { z } from '@hono/zod-openapi'
import { idLabel, resourceId } from '../../domain/id-schema.ts'
import type { IdKind } from '../../domain/id-prefixes.ts'
import { pageQuerySchema } from '../../domain/listing.ts'
import { isStorableInstant, OFFSET_DATE_TIME } from '../../domain/time.ts'

export const ProblemSchema = z
  .object({
    type: z
      .string()
      .url()
      .openapi({
        description:
          'The problem type: `<PUBLIC_URL>/errors/<code>`, a page on this API (no authentication) that says what the ' +
          'code means and what to do; HTML, or JSON with `Accept: application/json` (GET /errors/{code}).',
        example: 'https://api.example.org/errors/slot_unavailable',
      }),
    title: z.string(),
    status: z.number().int(),
    detail: z.string(),
    instance: z.string().openapi({ example: '/v1/appointments' }),
    code: z.string().openapi({ description: 'Stable machine-readable error code', example: 'slot_unavailable' }),
    requestId: z.string(),
    errors: z
      .array(z.object({ path: z.string(), code: z.string(), message: z.string() }))
      .optional()
      .openapi({ description: 'Per-field errors of a validation_error' }),
  })
  .openapi('Problem', {
    description:
      'An RFC 9457 problem document. Its `code` is the stable contract; its `type` links to the code’s page, ' +
      '`/errors/{code}` on this API (e.g. /errors/slot_unavailable), which explains the code and what to do.',
  })

/** A date-time with a UTC offset or Z (RFC 3339), as the spec requires for `startsAt`. */
export const OffsetDateTime = z
  .string()
  .regex(OFFSET_DATE_TIME, 'Must be an ISO 8601 date-time with a UTC offset, e.g. 2026-12-01T09:00:00-06:00')
  .refine(isStorableInstant, 'Not a valid date-time')

/** Server timestamps: UTC with Z. */
export const UtcDateTime = z.string().openapi({ format: 'date-time', example: '2026-11-21T18:00:00.000Z' })

/**
 * A path parameter holding an id of `kind`, with the pattern every such id matches; one that does not match is a 404
 * `not_found`, as an unknown id is (`validation-hook.ts`).
 * @param kind - the resource kind, which picks the prefix
 * @param name - the parameter's name in the path template
 */
export const pathId = (kind: IdKind, name = 'id') =>
  resourceId(kind).openapi({ param: { name, in: 'path' }, description: `The ${idLabel(kind)} id` })

/**
 * The `{id}` of a resource's own path, `/v1/children/{id}`.
 * @param kind - the resource kind
 */
export const IdParam = (kind: IdKind) => z.object({ id: pathId(kind) })

/** Limit and cursor of a list in one fixed order: the same parameters as every sorted list's (domain/listing.ts). */
export const PaginationQuery = pageQuerySchema

/** The list envelope of docs/conventions.md. */
export const pageOf = <T extends z.ZodTypeAny>(item: T, name: string) =>
  z.object({ data: z.array(item), nextCursor: z.string().nullable() }).openapi(name)
