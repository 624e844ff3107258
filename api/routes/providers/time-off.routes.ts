/** @module Route table of /v1/providers/{id}/time-off: a provider's time off, a sub-resource. */
import { z } from '@hono/zod-openapi'
import { listQuerySchema } from '../../../domain/listing.ts'
import { TIME_OFF_SORTS } from '../../../domain/providers/time-off-service.ts'
import { COMMON_ERRORS, problemResponses, protectedRoute } from '../../openapi/routes.ts'
import { IdParam, OffsetDateTime, UtcDateTime, pageOf, pathId } from '../../openapi/schemas.ts'
import { resourceId } from '../../../domain/id-schema.ts'

export const TIME_OFF_REASONS = ['VACATION', 'SICK_LEAVE', 'TRAINING', 'HOLIDAY', 'PERSONAL', 'OTHER'] as const

const json = <T>(schema: T) => ({ 'application/json': { schema } })
const instant = (example: string) => OffsetDateTime.openapi({ format: 'date-time', example })

const ProviderParam = IdParam('provider')
const EntryParams = ProviderParam.extend({ timeOffId: pathId('timeOff', 'timeOffId') })

export const TimeOffCreate = z
  .strictObject({
    startsAt: instant('2026-12-24T00:00:00-06:00'),
    endsAt: instant('2026-12-27T00:00:00-06:00'),
    reason: z.enum(TIME_OFF_REASONS),
    note: z.string().trim().max(500).optional().openapi({ description: 'For the centre; not shown to families' }),
  })
  .openapi('TimeOffCreate')

export const TimeOffPatch = z
  .strictObject({
    startsAt: instant('2026-12-24T00:00:00-06:00').optional(),
    endsAt: instant('2026-12-28T00:00:00-06:00').optional(),
    reason: z.enum(TIME_OFF_REASONS).optional(),
    note: z.string().trim().max(500).nullable().optional(),
  })
  .openapi('TimeOffPatch', { description: 'A JSON merge patch (RFC 7396); null removes the note' })

export const TimeOff = z
  .object({
    id: resourceId('timeOff'),
    providerId: z.string(),
    startsAt: z.string().openapi({ format: 'date-time', description: "With the provider's offset at that instant" }),
    endsAt: z.string().openapi({ format: 'date-time' }),
    timeZone: z.string().openapi({ description: "The provider's IANA time zone" }),
    reason: z.enum(TIME_OFF_REASONS),
    note: z.string().nullable(),
    conflictingAppointmentIds: z
      .array(z.string())
      .openapi({ description: 'CONFIRMED appointments inside the range: time off does not cancel them' }),
    createdAt: UtcDateTime,
    updatedAt: UtcDateTime,
  })
  .openapi('TimeOff')

export const TimeOffListQuery = listQuerySchema(TIME_OFF_SORTS, 'startsAt').extend({
  from: instant('2026-12-01T00:00:00-06:00')
    .optional()
    .openapi({ description: 'Only entries ending after this instant' }),
  to: instant('2027-01-01T00:00:00-06:00')
    .optional()
    .openapi({ description: 'Only entries starting before this instant' }),
})

export const createTimeOffRoute = protectedRoute('providers', {
  method: 'post',
  path: '/v1/providers/{id}/time-off',
  tags: ['Providers'],
  summary: 'Record time off for a provider',
  request: { params: ProviderParam, body: { required: true, content: json(TimeOffCreate) } },
  responses: {
    201: { description: 'The time off', content: json(TimeOff) },
    ...problemResponses(400, 404, 409, 413, 415, 422, ...COMMON_ERRORS),
  },
})

export const listTimeOffRoute = protectedRoute('providers.read', {
  method: 'get',
  path: '/v1/providers/{id}/time-off',
  tags: ['Providers'],
  summary: "List a provider's time off",
  request: { params: ProviderParam, query: TimeOffListQuery },
  responses: {
    200: { description: 'A page of time off', content: json(pageOf(TimeOff, 'TimeOffPage')) },
    ...problemResponses(400, 404, ...COMMON_ERRORS),
  },
})

export const getTimeOffRoute = protectedRoute('providers.read', {
  method: 'get',
  path: '/v1/providers/{id}/time-off/{timeOffId}',
  tags: ['Providers'],
  summary: 'Retrieve a time-off entry',
  request: { params: EntryParams },
  responses: {
    200: { description: 'The time off', content: json(TimeOff) },
    ...problemResponses(404, ...COMMON_ERRORS),
  },
})

export const updateTimeOffRoute = protectedRoute('providers', {
  method: 'patch',
  path: '/v1/providers/{id}/time-off/{timeOffId}',
  tags: ['Providers'],
  summary: 'Update a time-off entry (JSON merge patch)',
  request: {
    params: EntryParams,
    body: {
      required: true,
      content: { 'application/merge-patch+json': { schema: TimeOffPatch }, ...json(TimeOffPatch) },
    },
  },
  responses: {
    200: { description: 'The time off', content: json(TimeOff) },
    ...problemResponses(400, 404, 409, 413, 415, 422, ...COMMON_ERRORS),
  },
})

export const deleteTimeOffRoute = protectedRoute('providers', {
  method: 'delete',
  path: '/v1/providers/{id}/time-off/{timeOffId}',
  tags: ['Providers'],
  summary: 'Delete a time-off entry (the provider is bookable then again)',
  request: { params: EntryParams },
  responses: {
    204: { description: 'Deleted' },
    ...problemResponses(404, 409, 422, ...COMMON_ERRORS),
  },
})
