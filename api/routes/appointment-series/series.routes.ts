/** @module Route table of /v1/appointment-series: weekly recurring appointments (docs/appointments.md). */
import { z } from '@hono/zod-openapi'
import { MAX_OCCURRENCES, WEEKDAYS } from '../../../domain/appointment-series/recurrence.ts'
import { DisciplineSchema } from '../../../domain/catalogue/disciplines.ts'
import { listQuerySchema } from '../../../domain/listing.ts'
import { idFilter } from '../../openapi/list-parts.ts'
import { COMMON_ERRORS, problemResponses, protectedRoute } from '../../openapi/routes.ts'
import { IdParam, OffsetDateTime, UtcDateTime, pageOf } from '../../openapi/schemas.ts'
import {
  AppointmentStatusSchema,
  AppointmentTypeSchema,
  CancellationReasonSchema,
} from '../appointments/appointment-schemas.ts'
import { MAX_DURATION_MINUTES } from '../../../domain/appointments/appointment-rules.ts'
import { resourceId } from '../../../domain/id-schema.ts'
import { CALENDAR_DATE } from '../../../domain/time.ts'

const LocalDate = z
  .string()
  .regex(CALENDAR_DATE, 'Must be a date, YYYY-MM-DD')
  .refine(
    (v) => !Number.isNaN(Date.parse(`${v}T00:00:00Z`)) && new Date(`${v}T00:00:00Z`).toISOString().startsWith(v),
    {
      message: 'Not a valid date',
      params: { code: 'invalid_date' },
    }
  )
  .openapi({ format: 'date', example: '2026-12-22' })

export const SeriesCreate = z
  .strictObject({
    childId: resourceId('child'),
    providerId: resourceId('provider'),
    type: AppointmentTypeSchema.default('THERAPY_SESSION'),
    service: DisciplineSchema.optional().openapi({ description: 'Defaults as for a single appointment' }),
    startsAt: OffsetDateTime.openapi({
      format: 'date-time',
      example: '2026-12-01T16:00:00-06:00',
      description:
        "The first occurrence. Every occurrence keeps its wall-clock time in the location's zone (DST-correct).",
    }),
    durationMinutes: z.number().int().min(5).max(MAX_DURATION_MINUTES).default(60),
    notes: z.string().max(5000).optional().openapi({ description: 'Copied to every occurrence' }),
    recurrence: z
      .strictObject({
        frequency: z.literal('WEEKLY'),
        interval: z.number().int().min(1).max(12).default(1).openapi({ description: 'Every n weeks' }),
        byWeekday: z.array(z.enum(WEEKDAYS)).min(1).max(7).optional().openapi({
          description: 'Weekdays (RFC 5545 codes); default the weekday of startsAt, which must be included',
        }),
        count: z.number().int().min(1).max(MAX_OCCURRENCES).optional().openapi({
          description: 'Number of occurrences, exceptions included (RFC 5545 COUNT with EXDATE)',
        }),
        until: LocalDate.optional().openapi({ description: 'Last local date an occurrence may fall on (inclusive)' }),
      })
      // Exactly one of them, as the recurrence rule requires (`count_or_until` otherwise).
      .openapi({ oneOf: [{ required: ['count'] }, { required: ['until'] }] }),
    exceptions: z.array(LocalDate).max(MAX_OCCURRENCES).optional().openapi({
      description: 'Local dates to skip; each must be a date the rule generates',
    }),
    skipConflicts: z
      .boolean()
      .default(false)
      .openapi({
        description:
          'false (default): any unbookable occurrence makes the whole request a 409 listing every conflicting date and ' +
          'nothing is booked. true: the bookable occurrences are booked, the others listed in skippedDates.',
      }),
  })
  .openapi('AppointmentSeriesCreate')

export const SeriesCancel = z
  .strictObject({
    from: LocalDate.optional().openapi({
      description: "First local date to cancel; default today in the location's zone",
    }),
    reason: CancellationReasonSchema,
    note: z.string().max(2000).optional(),
  })
  .openapi('AppointmentSeriesCancel')

export const SeriesException = z
  .strictObject({
    date: LocalDate.openapi({ description: 'A date the series generates' }),
    reason: CancellationReasonSchema,
    note: z.string().max(2000).optional(),
  })
  .openapi('AppointmentSeriesException')

export const Series = z
  .object({
    id: resourceId('appointmentSeries'),
    childId: z.string(),
    providerId: z.string(),
    locationId: z.string(),
    type: AppointmentTypeSchema,
    service: z.string(),
    timeZone: z.string(),
    startsAt: z.string().openapi({ format: 'date-time', description: 'The first occurrence as requested' }),
    durationMinutes: z.number().int(),
    recurrence: z.object({
      frequency: z.literal('WEEKLY'),
      interval: z.number().int(),
      byWeekday: z.array(z.enum(WEEKDAYS)),
      count: z.number().int().nullable(),
      until: z.string().nullable().openapi({ format: 'date' }),
    }),
    exceptions: z.array(z.string().openapi({ format: 'date' })),
    skippedDates: z
      .array(z.string().openapi({ format: 'date' }))
      .openapi({ description: 'Not booked at creation: the slot was taken' }),
    cancelledFrom: z.string().nullable().openapi({ format: 'date' }),
    notes: z.string().nullable(),
    occurrences: z.array(
      z.object({
        date: z.string().openapi({ format: 'date' }),
        appointmentId: z.string(),
        status: AppointmentStatusSchema,
        startsAt: z.string().openapi({ format: 'date-time', description: 'Current start (after any reschedule)' }),
      })
    ),
    createdAt: UtcDateTime,
    updatedAt: UtcDateTime,
  })
  .openapi('AppointmentSeries')

const SeriesId = IdParam('appointmentSeries')
const json = <T>(schema: T) => ({ 'application/json': { schema } })
const ok = { 200: { description: 'The series', content: json(Series) } }

export const ListSeriesQuery = listQuerySchema(['createdAt'], '-createdAt').extend({
  childId: idFilter('childId'),
  providerId: idFilter('providerId'),
})

export const createSeriesRoute = protectedRoute('bookings', {
  method: 'post',
  path: '/v1/appointment-series',
  tags: ['Appointments'],
  summary: 'Book a weekly series of appointments',
  description:
    `Books one CONFIRMED appointment per occurrence (at most ${MAX_OCCURRENCES}), in one transaction, each with its ` +
    'booking workflow and `booking.created` event. Occurrences keep their local time across daylight-saving changes. ' +
    'Conflicts: see `skipConflicts`; the 409 lists each conflicting date in `errors` (path `occurrences[YYYY-MM-DD]`).',
  request: { body: { required: true, content: json(SeriesCreate) } },
  responses: {
    201: { description: 'The series', content: json(Series) },
    ...problemResponses(400, 409, 413, 415, 422, ...COMMON_ERRORS),
  },
})

export const listSeriesRoute = protectedRoute('bookings.read', {
  method: 'get',
  path: '/v1/appointment-series',
  tags: ['Appointments'],
  summary: 'List appointment series',
  request: { query: ListSeriesQuery },
  responses: {
    200: { description: 'A page of series', content: json(pageOf(Series, 'AppointmentSeriesPage')) },
    ...problemResponses(400, ...COMMON_ERRORS),
  },
})

export const getSeriesRoute = protectedRoute('bookings.read', {
  method: 'get',
  path: '/v1/appointment-series/{id}',
  tags: ['Appointments'],
  summary: 'Retrieve an appointment series',
  request: { params: SeriesId },
  responses: { ...ok, ...problemResponses(404, ...COMMON_ERRORS) },
})

export const cancelSeriesRoute = protectedRoute('bookings', {
  method: 'post',
  path: '/v1/appointment-series/{id}/cancel',
  tags: ['Appointments'],
  summary: 'Cancel the rest of a series',
  description:
    'Cancels every CONFIRMED occurrence on or after `from` (each an ordinary cancellation with `booking.cancelled` ' +
    'and its late flag); completed and no-show occurrences stay as they are.',
  request: { params: SeriesId, body: { required: true, content: json(SeriesCancel) } },
  responses: { ...ok, ...problemResponses(400, 404, 409, 413, 415, 422, ...COMMON_ERRORS) },
})

export const addSeriesExceptionRoute = protectedRoute('bookings', {
  method: 'post',
  path: '/v1/appointment-series/{id}/exceptions',
  tags: ['Appointments'],
  summary: 'Skip one occurrence of a series',
  description:
    "Records the date as an exception and cancels that occurrence's appointment if it is CONFIRMED (a 409 " +
    '`invalid_state_transition` if it is already COMPLETED or NO_SHOW). Adding the same date again changes nothing.',
  request: { params: SeriesId, body: { required: true, content: json(SeriesException) } },
  responses: { ...ok, ...problemResponses(400, 404, 409, 413, 415, 422, ...COMMON_ERRORS) },
})
