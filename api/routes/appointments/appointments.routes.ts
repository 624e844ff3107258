/** @module Route table of /v1/appointments: schemas and OpenAPI definitions (spec Part 2 and row 2). */
import { z } from '@hono/zod-openapi'
import { COMMON_ERRORS, problemResponses, protectedRoute } from '../../openapi/routes.ts'
import { IdParam, OffsetDateTime, UtcDateTime } from '../../openapi/schemas.ts'

export const APPOINTMENT_TYPES = [
  'THERAPY_SESSION',
  'EVALUATION',
  'REEVALUATION',
  'CONSULTATION',
  'PARENT_COACHING',
  'EARLY_INTERVENTION',
] as const

export const APPOINTMENT_STATUSES = ['CONFIRMED', 'CANCELLED', 'COMPLETED', 'NO_SHOW'] as const

export const AppointmentCreate = z
  .strictObject({
    childId: z.string().min(1).openapi({ example: 'chd_019a...' }),
    providerId: z.string().min(1).openapi({ example: 'prv_019a...' }),
    type: z.enum(APPOINTMENT_TYPES).default('THERAPY_SESSION').openapi({ description: 'Defaults to THERAPY_SESSION' }),
    startsAt: OffsetDateTime.openapi({ format: 'date-time', example: '2026-12-01T09:00:00-06:00' }),
    endsAt: OffsetDateTime.optional().openapi({
      format: 'date-time',
      description: 'Defaults to 60 minutes after startsAt; at most 8 hours after it',
    }),
    notes: z.string().max(5000).optional().openapi({ description: 'Free text for the care team' }),
  })
  .openapi('AppointmentCreate')

export const Appointment = z
  .object({
    id: z.string().openapi({ example: 'apt_019a...' }),
    status: z.enum(APPOINTMENT_STATUSES),
    childId: z.string(),
    provider: z.object({ id: z.string(), name: z.string() }),
    type: z.enum(APPOINTMENT_TYPES),
    startsAt: z.string().openapi({ format: 'date-time', example: '2026-12-01T09:00:00-06:00' }),
    endsAt: z.string().openapi({ format: 'date-time', example: '2026-12-01T10:00:00-06:00' }),
    timeZone: z.string().openapi({ description: "IANA zone of the location; startsAt and endsAt carry its offset" }),
    locationId: z.string(),
    notes: z.string().nullable(),
    createdAt: UtcDateTime,
    updatedAt: UtcDateTime,
  })
  .openapi('Appointment')

export const createAppointmentRoute = protectedRoute('bookings', {
  method: 'post',
  path: '/v1/appointments',
  tags: ['Appointments'],
  summary: 'Create an appointment',
  description:
    'Books a therapy session for a child with a provider. The appointment is CONFIRMED at once when the provider ' +
    'is free; an overlapping appointment of the same provider is a 409 `slot_unavailable`. Starts the booking ' +
    'workflow that carries the appointment from here on.',
  request: { body: { required: true, content: { 'application/json': { schema: AppointmentCreate } } } },
  responses: {
    201: { description: 'The appointment', content: { 'application/json': { schema: Appointment } } },
    ...problemResponses(400, 409, 413, 415, 422, ...COMMON_ERRORS),
  },
})

export const getAppointmentRoute = protectedRoute('bookings.read', {
  method: 'get',
  path: '/v1/appointments/{id}',
  tags: ['Appointments'],
  summary: 'Retrieve an appointment',
  request: { params: IdParam('appointment', 'apt_019a...') },
  responses: {
    200: { description: 'The appointment', content: { 'application/json': { schema: Appointment } } },
    ...problemResponses(404, ...COMMON_ERRORS),
  },
})
