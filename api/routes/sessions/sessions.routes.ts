/** @module Route table of /v1/sessions: the therapy sessions appointments become (spec row 5: PATCH). */
import { z } from '@hono/zod-openapi'
import { listQuerySchema } from '../../../domain/listing.ts'
import { mergePatchSchema } from '../../../domain/merge-patch.ts'
import { SESSION_ATTENDANCE, SESSION_STATUSES } from '../../../domain/sessions/session-rules.ts'
import { BillingLine, SessionFields } from '../../../domain/sessions/session-schema.ts'
import { SESSION_SORTS } from '../../../domain/sessions/session-service.ts'
import { idFilter, pageResponses, queryFilter } from '../../openapi/list-parts.ts'
import { COMMON_ERRORS, problemResponses, protectedRoute } from '../../openapi/routes.ts'
import { IdParam, OffsetDateTime, UtcDateTime } from '../../openapi/schemas.ts'
import { resourceId } from '../../../domain/id-schema.ts'

export const SessionOpen = z
  .strictObject({
    appointmentId: resourceId('appointment').openapi({ description: 'The appointment the session is of' }),
  })
  .openapi('SessionOpen')

export const SessionPatch = mergePatchSchema(SessionFields, {
  required: ['status', 'billingCodes', 'telehealth'],
}).openapi('SessionPatch', {
  description:
    'A JSON merge patch (RFC 7396): members present replace, null removes an optional member, `billingCodes` is replaced whole. ' +
    'Status transitions: SCHEDULED → IN_PROGRESS | COMPLETED | CANCELLED, IN_PROGRESS → COMPLETED; others are 409 `invalid_state_transition`.',
})

export const Session = z
  .object({
    id: resourceId('session'),
    appointmentId: z.string(),
    childId: z.string(),
    providerId: z.string(),
    locationId: z.string(),
    status: z.enum(SESSION_STATUSES),
    scheduledStartsAt: z
      .string()
      .openapi({ description: "With the location's UTC offset", example: '2026-12-01T09:00:00-06:00' }),
    scheduledEndsAt: z.string(),
    timeZone: z.string().openapi({ example: 'America/Chicago' }),
    actualStartedAt: z.string().nullable(),
    actualEndedAt: z.string().nullable(),
    attendance: z.enum(SESSION_ATTENDANCE).nullable(),
    billingCodes: z.array(BillingLine),
    totalUnits: z.number().int().openapi({ description: 'Sum of the billing lines’ units' }),
    placeOfService: z.string().nullable().openapi({ description: 'CMS place-of-service code' }),
    telehealth: z.boolean(),
    createdAt: UtcDateTime,
    updatedAt: UtcDateTime,
  })
  .openapi('Session')

const ListSessionsQuery = listQuerySchema(SESSION_SORTS, '-scheduledStartsAt').extend({
  childId: idFilter('childId'),
  providerId: idFilter('providerId'),
  appointmentId: idFilter('appointmentId'),
  status: queryFilter('status', z.enum(SESSION_STATUSES)),
  from: OffsetDateTime.optional().openapi({
    param: { name: 'from', in: 'query' },
    description: 'Scheduled to start at or after',
  }),
  to: OffsetDateTime.optional().openapi({
    param: { name: 'to', in: 'query' },
    description: 'Scheduled to start before',
  }),
})

export const SessionId = IdParam('session')
const sessionResponse = (description: string) => ({ description, content: { 'application/json': { schema: Session } } })

export const openSessionRoute = protectedRoute('sessions', {
  method: 'post',
  path: '/v1/sessions',
  tags: ['Sessions'],
  summary: "Open an appointment's session (check-in)",
  description: 'Idempotent: an appointment has one session. 201 when it is created now, 200 when it already existed.',
  request: { body: { required: true, content: { 'application/json': { schema: SessionOpen } } } },
  responses: {
    201: sessionResponse('The session, created'),
    200: sessionResponse('The session the appointment already had'),
    ...problemResponses(400, 409, 413, 415, 422, ...COMMON_ERRORS),
  },
})

export const listSessionsRoute = protectedRoute('sessions.read', {
  method: 'get',
  path: '/v1/sessions',
  tags: ['Sessions'],
  summary: 'List sessions',
  request: { query: ListSessionsQuery },
  responses: pageResponses(Session, 'SessionPage', 'A page of sessions'),
})

export const getSessionRoute = protectedRoute('sessions.read', {
  method: 'get',
  path: '/v1/sessions/{id}',
  tags: ['Sessions'],
  summary: 'Retrieve a session',
  request: { params: SessionId },
  responses: { 200: sessionResponse('The session'), ...problemResponses(404, ...COMMON_ERRORS) },
})

export const patchSessionRoute = protectedRoute('sessions', {
  method: 'patch',
  path: '/v1/sessions/{id}',
  tags: ['Sessions'],
  summary: 'Update a session (JSON merge patch): status, actual times, attendance, billing codes',
  request: {
    params: SessionId,
    body: {
      required: true,
      content: {
        'application/merge-patch+json': { schema: SessionPatch },
        'application/json': { schema: SessionPatch },
      },
    },
  },
  responses: {
    200: sessionResponse('The session'),
    ...problemResponses(400, 404, 409, 413, 415, 422, ...COMMON_ERRORS),
  },
})
