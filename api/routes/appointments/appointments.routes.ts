/** @module Route table of /v1/appointments: OpenAPI definitions (docs/appointments.md). */
import { COMMON_ERRORS, problemResponses, protectedRoute } from '../../openapi/routes.ts'
import { IdParam } from '../../openapi/schemas.ts'
import {
  Appointment,
  AppointmentCancel,
  AppointmentCreate,
  AppointmentPage,
  AppointmentPatch,
  AppointmentReschedule,
  AppointmentWorkflow,
  ListAppointmentsQuery,
} from './appointment-schemas.ts'

/** The state machine, in every lifecycle operation's description (docs/appointments.md has the diagram). */
export const STATE_MACHINE = `

**Lifecycle.** An appointment is created \`CONFIRMED\`. From \`CONFIRMED\`:

| action | next status | condition |
|---|---|---|
| reschedule (POST …/reschedule, or PATCH of startsAt, durationMinutes or providerId) | CONFIRMED | the new slot is bookable; the previous time is kept in \`rescheduleHistory\` |
| cancel (POST …/cancel) | CANCELLED | a reason code; \`lateCancellation\` is true inside the location's \`lateCancellationHours\` before the start |
| complete (POST …/complete) | COMPLETED | the appointment has started |
| no-show (POST …/no-show) | NO_SHOW | the appointment has started |
| edit type or service (PATCH) | CONFIRMED | |

CANCELLED, COMPLETED and NO_SHOW are final. Any other action is a 409 \`invalid_state_transition\` whose detail names
the current status and the attempted action. \`notes\` can be edited in every status.

**Booking workflow.** Reschedule, cancel, complete and no-show are first accepted by the appointment's booking
workflow (a Temporal update, refused with 409 when the workflow's state does not allow it); the answer's \`workflow\`
is its accepted result: the state, the next reminder to the family and the no-show deadline. When Temporal is
unreachable the answer is 503 \`dependency_unavailable\` and nothing changed (retry with the same Idempotency-Key).
\`GET /v1/appointments/{id}/workflow\` shows the workflow's state at any time.`

const AppointmentId = IdParam('appointment')
const json = <T>(schema: T) => ({ 'application/json': { schema } })
const ok = { 200: { description: 'The appointment', content: json(Appointment) } }

export const createAppointmentRoute = protectedRoute('bookings', {
  method: 'post',
  path: '/v1/appointments',
  tags: ['Appointments'],
  summary: 'Create an appointment',
  description:
    'Books a session for a child with a provider: CONFIRMED at once when the slot is bookable (the same rules as the ' +
    'availability endpoint: working hours, time off, buffers, minimum notice). An overlap with another CONFIRMED ' +
    'appointment of the same provider or of the same child is a 409 `slot_unavailable`; the database enforces it, ' +
    'so concurrent requests cannot double-book. Starts the booking workflow and records `booking.created`.' +
    STATE_MACHINE,
  request: { body: { required: true, content: json(AppointmentCreate) } },
  responses: {
    201: { description: 'The appointment', content: json(Appointment) },
    ...problemResponses(400, 409, 413, 415, 422, ...COMMON_ERRORS),
  },
})

export const listAppointmentsRoute = protectedRoute('bookings.read', {
  method: 'get',
  path: '/v1/appointments',
  tags: ['Appointments'],
  summary: 'List appointments',
  description:
    'Cursor pages, sorted by `startsAt` (default) or `createdAt`, either direction. Filters combine with AND; ' +
    '`from` (inclusive) and `to` (exclusive) bound the start time.',
  request: { query: ListAppointmentsQuery },
  responses: {
    200: { description: 'A page of appointments', content: json(AppointmentPage) },
    ...problemResponses(400, ...COMMON_ERRORS),
  },
})

export const getAppointmentRoute = protectedRoute('bookings.read', {
  method: 'get',
  path: '/v1/appointments/{id}',
  tags: ['Appointments'],
  summary: 'Retrieve an appointment',
  request: { params: AppointmentId },
  responses: { ...ok, ...problemResponses(404, ...COMMON_ERRORS) },
})

export const getAppointmentWorkflowRoute = protectedRoute('bookings.read', {
  method: 'get',
  path: '/v1/appointments/{id}/workflow',
  tags: ['Appointments'],
  summary: "Retrieve an appointment's workflows",
  description:
    'The booking lifecycle as its workflow holds it (next reminder to the family, reminders sent, the no-show ' +
    'deadline) and, after completion, the follow-up (note due, nudges to the provider). Asked of Temporal live: ' +
    '503 `dependency_unavailable` when it is unreachable. Paced per tenant (20 views a second by default): a view ' +
    'beyond the pace waits its turn, and one that would wait more than 2 s is refused with 429 `rate_limited`.',
  request: { params: AppointmentId },
  responses: {
    200: { description: "The appointment's workflows", content: json(AppointmentWorkflow) },
    ...problemResponses(404, 503, ...COMMON_ERRORS),
  },
})

export const patchAppointmentRoute = protectedRoute('bookings', {
  method: 'patch',
  path: '/v1/appointments/{id}',
  tags: ['Appointments'],
  summary: 'Update an appointment (JSON merge patch)',
  description:
    'Writable fields: notes, type, service, and startsAt, durationMinutes and providerId (which reschedule it, with ' +
    '`appointment.rescheduled`).' +
    STATE_MACHINE,
  request: {
    params: AppointmentId,
    body: {
      required: true,
      content: { 'application/merge-patch+json': { schema: AppointmentPatch }, ...json(AppointmentPatch) },
    },
  },
  responses: { ...ok, ...problemResponses(400, 404, 409, 413, 415, 422, 503, ...COMMON_ERRORS) },
})

export const rescheduleAppointmentRoute = protectedRoute('bookings', {
  method: 'post',
  path: '/v1/appointments/{id}/reschedule',
  tags: ['Appointments'],
  summary: 'Reschedule an appointment',
  description:
    'Moves a CONFIRMED appointment to a new start (and optionally duration and provider); it stays CONFIRMED. The ' +
    'new slot must be bookable (its own current slot does not count against it). Records `appointment.rescheduled`; ' +
    'a request that changes nothing is answered with the unchanged appointment.' +
    STATE_MACHINE,
  request: { params: AppointmentId, body: { required: true, content: json(AppointmentReschedule) } },
  responses: { ...ok, ...problemResponses(400, 404, 409, 413, 415, 422, 503, ...COMMON_ERRORS) },
})

export const cancelAppointmentRoute = protectedRoute('bookings', {
  method: 'post',
  path: '/v1/appointments/{id}/cancel',
  tags: ['Appointments'],
  summary: 'Cancel an appointment',
  description:
    'CONFIRMED → CANCELLED with a reason code and an optional note. Records `booking.cancelled`.' + STATE_MACHINE,
  request: { params: AppointmentId, body: { required: true, content: json(AppointmentCancel) } },
  responses: { ...ok, ...problemResponses(400, 404, 409, 413, 415, 422, 503, ...COMMON_ERRORS) },
})

export const completeAppointmentRoute = protectedRoute('bookings', {
  method: 'post',
  path: '/v1/appointments/{id}/complete',
  tags: ['Appointments'],
  summary: 'Complete an appointment',
  description:
    'CONFIRMED → COMPLETED once it has started. Records `appointment.completed` and starts the appointment follow-up ' +
    "(the session's note deadline, nudges to the provider, the family's follow-up once the note is signed)." +
    STATE_MACHINE,
  request: { params: AppointmentId },
  responses: { ...ok, ...problemResponses(404, 409, 422, 503, ...COMMON_ERRORS) },
})

export const noShowAppointmentRoute = protectedRoute('bookings', {
  method: 'post',
  path: '/v1/appointments/{id}/no-show',
  tags: ['Appointments'],
  summary: 'Mark an appointment as a no-show',
  description:
    'CONFIRMED → NO_SHOW once it has started; records `appointment.no_show`. The booking workflow also marks it by ' +
    'itself when the end plus a grace passes without a check-in.' +
    STATE_MACHINE,
  request: { params: AppointmentId },
  responses: { ...ok, ...problemResponses(404, 409, 422, 503, ...COMMON_ERRORS) },
})
