/** @module Route table of /v1/events: a tenant's events in the envelope webhooks deliver, and their deliveries. */
import { z } from '@hono/zod-openapi'
import { EVENT_SORTS } from '../../../domain/events/list-events.ts'
import { EVENT_DATA_SCHEMAS } from '../../../domain/events/event-catalogue.ts'
import { listQuerySchema } from '../../../domain/listing.ts'
import { EVENT_LIST_SCOPES } from '../../../domain/events/event-scopes.ts'
import { COMMON_ERRORS, problemResponses, protectedRoute, protectedRouteAnyOf } from '../../openapi/routes.ts'
import { IdParam, OffsetDateTime, UtcDateTime, pageOf } from '../../openapi/schemas.ts'
import { WebhookDelivery, WebhookDeliveryListQuery } from '../webhook-endpoints/webhook-schemas.ts'
import { resourceId } from '../../../domain/id-schema.ts'

const EVENT_TYPES = Object.keys(EVENT_DATA_SCHEMAS) as [string, ...string[]]

export const Event = z
  .object({
    id: resourceId('event'),
    type: z.enum(EVENT_TYPES),
    createdAt: UtcDateTime,
    data: z.record(z.string(), z.unknown()).openapi({
      description: "The type's payload; each type's schema is in this description's `webhooks` section",
    }),
  })
  .openapi('Event', { description: 'The event envelope, exactly as webhooks deliver it' })

export const EventListQuery = listQuerySchema(EVENT_SORTS, '-createdAt').extend({
  type: z
    .enum(EVENT_TYPES)
    .optional()
    .openapi({ param: { name: 'type', in: 'query' } }),
  from: OffsetDateTime.optional().openapi({
    param: { name: 'from', in: 'query' },
    description: 'Events created at or after this instant',
    example: '2026-11-01T00:00:00Z',
  }),
  to: OffsetDateTime.optional().openapi({
    param: { name: 'to', in: 'query' },
    description: 'Events created before this instant',
    example: '2026-12-01T00:00:00Z',
  }),
})

const eventId = IdParam('event')

/** Who reads which events, for the descriptions of the list and the retrieval. */
const EVENT_SCOPES_NOTE =
  '`webhooks.read` reads every event. A token without it but with the read scope of a resource reads that ' +
  "resource's events: `bookings.read` (or `bookings`) booking.* and appointment.*, `payments.read` payment.*, " +
  '`assessments.read` assessment.*, `providers.read` provider.*, `children.read` child.*, `sessions.read` session.*.'

export const listEventsRoute = protectedRouteAnyOf(EVENT_LIST_SCOPES, {
  method: 'get',
  path: '/v1/events',
  tags: ['Events'],
  summary: "List the tenant's events",
  description:
    'Every event recorded for the tenant that the caller may read, delivered or not (newest first by default): a ' +
    'receiver that missed deliveries can catch up here. `from` is inclusive, `to` exclusive. ' +
    EVENT_SCOPES_NOTE +
    ' Asking for a `type` the token may not read is a 403 `insufficient_scope` naming the scope it needs.',
  request: { query: EventListQuery },
  responses: {
    200: { description: 'A page of events', content: { 'application/json': { schema: pageOf(Event, 'EventPage') } } },
    ...problemResponses(400, ...COMMON_ERRORS),
  },
})

export const getEventRoute = protectedRouteAnyOf(EVENT_LIST_SCOPES, {
  method: 'get',
  path: '/v1/events/{id}',
  tags: ['Events'],
  summary: 'Retrieve an event',
  description: `${EVENT_SCOPES_NOTE} An event of a type the token may not read is a 404, as another tenant's is.`,
  request: { params: eventId },
  responses: {
    200: { description: 'The event', content: { 'application/json': { schema: Event } } },
    ...problemResponses(404, ...COMMON_ERRORS),
  },
})

export const listEventDeliveriesRoute = protectedRoute('webhooks.read', {
  method: 'get',
  path: '/v1/events/{id}/deliveries',
  tags: ['Events'],
  summary: "An event's deliveries, to every endpoint, with their attempts",
  request: { params: eventId, query: WebhookDeliveryListQuery },
  responses: {
    200: {
      description: 'A page of deliveries',
      content: { 'application/json': { schema: pageOf(WebhookDelivery, 'WebhookDeliveryPage') } },
    },
    ...problemResponses(400, 404, ...COMMON_ERRORS),
  },
})
