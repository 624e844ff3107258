/**
 * @module Route table of /v1/locations. Locations are part of the provider roster's set-up, so they share the
 * `providers` scopes (docs/availability.md explains why no separate scope).
 */
import { z } from '@hono/zod-openapi'
import { listQuerySchema } from '../../../domain/listing.ts'
import { LOCATION_SORTS, LocationFieldsSchema } from '../../../domain/locations/location-service.ts'
import { COMMON_ERRORS, problemResponses, protectedRoute } from '../../openapi/routes.ts'
import { IdParam, UtcDateTime, pageOf } from '../../openapi/schemas.ts'
import { resourceId } from '../../../domain/id-schema.ts'

const json = <T>(schema: T) => ({ 'application/json': { schema } })
const locationId = IdParam('location')
const fields = LocationFieldsSchema.shape

const policyDocs = {
  currency: fields.currency.openapi({
    description: 'ISO 4217 currency of prices and payments here; default USD',
    example: 'USD',
  }),
  bufferMinutes: fields.bufferMinutes.openapi({
    description: 'Free minutes kept between two appointments of a provider; default 0',
  }),
  minimumNoticeMinutes: fields.minimumNoticeMinutes.openapi({
    description: 'How long before its start a slot can still be booked; default 0',
  }),
  lateCancellationHours: fields.lateCancellationHours.openapi({
    description: 'A cancellation later than this many hours before the start is late; default 24',
  }),
  reminderOffsetsMinutes: fields.reminderOffsetsMinutes.openapi({
    description: 'Reminders go out this many minutes before an appointment; default [2880, 120]',
  }),
  noteDueHours: fields.noteDueHours.openapi({
    description: 'Hours after a session by which its note should be signed; default 48',
  }),
}

export const LocationCreate = z
  .strictObject({
    ...fields,
    ...policyDocs,
    name: fields.name.openapi({ example: 'Sunrise Speech — Main Street' }),
    timeZone: fields.timeZone.openapi({ description: 'IANA time zone of the centre', example: 'America/Chicago' }),
  })
  .openapi('LocationCreate')

const nullableText = (schema: z.ZodOptional<z.ZodString>) => schema.unwrap().nullable().optional()

export const LocationPatch = z
  .strictObject({
    name: fields.name.optional(),
    timeZone: fields.timeZone.optional(),
    ...policyDocs,
    addressLine1: nullableText(fields.addressLine1),
    addressLine2: nullableText(fields.addressLine2),
    city: nullableText(fields.city),
    region: nullableText(fields.region),
    postalCode: nullableText(fields.postalCode),
    country: nullableText(fields.country),
  })
  .openapi('LocationPatch', { description: 'A JSON merge patch (RFC 7396); null removes an address field' })

export const Location = z
  .object({
    id: resourceId('location'),
    name: z.string(),
    timeZone: z.string(),
    currency: z.string(),
    bufferMinutes: z.number().int(),
    minimumNoticeMinutes: z.number().int(),
    lateCancellationHours: z.number().int(),
    reminderOffsetsMinutes: z.array(z.number().int()),
    noteDueHours: z.number().int(),
    addressLine1: z.string().nullable(),
    addressLine2: z.string().nullable(),
    city: z.string().nullable(),
    region: z.string().nullable(),
    postalCode: z.string().nullable(),
    country: z.string().nullable(),
    createdAt: UtcDateTime,
    updatedAt: UtcDateTime,
  })
  .openapi('Location')

export const LocationListQuery = listQuerySchema(LOCATION_SORTS, 'createdAt').extend({
  country: z.string().max(2).optional(),
  region: z.string().max(100).optional(),
})

export const createLocationRoute = protectedRoute('providers', {
  method: 'post',
  path: '/v1/locations',
  tags: ['Locations'],
  summary: 'Create a location (centre)',
  request: { body: { required: true, content: json(LocationCreate) } },
  responses: {
    201: { description: 'The location', content: json(Location) },
    ...problemResponses(400, 409, 413, 415, 422, ...COMMON_ERRORS),
  },
})

export const listLocationsRoute = protectedRoute('providers.read', {
  method: 'get',
  path: '/v1/locations',
  tags: ['Locations'],
  summary: 'List locations',
  request: { query: LocationListQuery },
  responses: {
    200: { description: 'A page of locations', content: json(pageOf(Location, 'LocationPage')) },
    ...problemResponses(400, ...COMMON_ERRORS),
  },
})

export const getLocationRoute = protectedRoute('providers.read', {
  method: 'get',
  path: '/v1/locations/{id}',
  tags: ['Locations'],
  summary: 'Retrieve a location',
  request: { params: locationId },
  responses: {
    200: { description: 'The location', content: json(Location) },
    ...problemResponses(404, ...COMMON_ERRORS),
  },
})

export const updateLocationRoute = protectedRoute('providers', {
  method: 'patch',
  path: '/v1/locations/{id}',
  tags: ['Locations'],
  summary: 'Update a location (JSON merge patch)',
  description: 'Policy changes apply to bookings made from then on; existing appointments are not re-checked.',
  request: {
    params: locationId,
    body: {
      required: true,
      content: { 'application/merge-patch+json': { schema: LocationPatch }, ...json(LocationPatch) },
    },
  },
  responses: {
    200: { description: 'The location', content: json(Location) },
    ...problemResponses(400, 404, 409, 413, 415, 422, ...COMMON_ERRORS),
  },
})

export const deleteLocationRoute = protectedRoute('providers', {
  method: 'delete',
  path: '/v1/locations/{id}',
  tags: ['Locations'],
  summary: 'Delete a location that holds no records',
  description: 'A location with providers, children, appointments or other records is kept: 409 `conflict`.',
  request: { params: locationId },
  responses: {
    204: { description: 'Deleted' },
    ...problemResponses(404, 409, 422, ...COMMON_ERRORS),
  },
})
