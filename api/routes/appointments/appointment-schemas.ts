/**
 * @module Request and response schemas of /v1/appointments. The original creation contract and response fields
 * (id, status, childId, provider{id,name}, type, startsAt with offset, createdAt in UTC) are a promise to existing
 * clients and are kept exactly (docs/appointments.md, "Resource"); everything else sits beside them.
 */
import { z } from '@hono/zod-openapi'
import { MAX_DURATION_MINUTES } from '../../../domain/appointments/appointment-rules.ts'
import { APPOINTMENT_STATUSES } from '../../../common/appointments/appointment-status.ts'
import { APPOINTMENT_SORT_FIELDS, DEFAULT_APPOINTMENT_SORT } from '../../../domain/appointments/list-appointments.ts'
import { DisciplineSchema } from '../../../domain/catalogue/disciplines.ts'
import { listQuerySchema } from '../../../domain/listing.ts'
import type { AppointmentType, CancellationReason } from '../../../generated/prisma/enums.ts'
import { OffsetDateTime, UtcDateTime, pageOf } from '../../openapi/schemas.ts'
import { resourceId } from '../../../domain/id-schema.ts'
import { orNull } from '../../../domain/nullable.ts'

export const APPOINTMENT_TYPES = [
  'THERAPY_SESSION',
  'EVALUATION',
  'REEVALUATION',
  'ASSESSMENT',
  'SCREENING',
  'CONSULTATION',
  'PARENT_COACHING',
  'EARLY_INTERVENTION',
  'IFSP_MEETING',
] as const satisfies readonly AppointmentType[]
// Every database value is listed (and nothing else): a new enum value must be documented here.
const _allTypesListed: Exclude<AppointmentType, (typeof APPOINTMENT_TYPES)[number]> extends never ? true : never = true
void _allTypesListed

export const CANCELLATION_REASONS = [
  'FAMILY_REQUEST',
  'ILLNESS',
  'PROVIDER_UNAVAILABLE',
  'CENTRE_CLOSED',
  'WEATHER',
  'SCHEDULING_CONFLICT',
  'OTHER',
] as const satisfies readonly CancellationReason[]

export const AppointmentTypeSchema = z.enum(APPOINTMENT_TYPES).openapi('AppointmentType', {
  description:
    'THERAPY_SESSION (the default), EVALUATION, REEVALUATION, ASSESSMENT (a standardised instrument), SCREENING, ' +
    'CONSULTATION, PARENT_COACHING, EARLY_INTERVENTION (an early-intervention visit) and IFSP_MEETING.',
})
export const AppointmentStatusSchema = z.enum(APPOINTMENT_STATUSES).openapi('AppointmentStatus')
export const CancellationReasonSchema = z.enum(CANCELLATION_REASONS).openapi('CancellationReason')

const DurationMinutes = z
  .number()
  .int()
  .min(5)
  .max(MAX_DURATION_MINUTES)
  .openapi({ description: `Length in minutes, 5 to ${MAX_DURATION_MINUTES}; endsAt is derived from it`, example: 45 })

const ServiceField = DisciplineSchema.openapi({
  description:
    "The discipline delivered (e.g. SPEECH_THERAPY, EARLY_INTERVENTION). Defaults to the provider's first discipline; " +
    'for a provider without disciplines, EARLY_INTERVENTION for EARLY_INTERVENTION and IFSP_MEETING appointments and ' +
    'SPEECH_THERAPY otherwise.',
})

export const AppointmentCreate = z
  .strictObject({
    childId: resourceId('child'),
    providerId: resourceId('provider'),
    type: AppointmentTypeSchema.default('THERAPY_SESSION'),
    service: ServiceField.optional(),
    startsAt: OffsetDateTime.openapi({ format: 'date-time', example: '2026-12-01T09:00:00-06:00' }),
    endsAt: OffsetDateTime.optional().openapi({
      format: 'date-time',
      description: 'Alternative to durationMinutes (give at most one); at most 8 hours after startsAt',
    }),
    durationMinutes: DurationMinutes.optional().openapi({ description: 'Defaults to 60 (or to endsAt when given)' }),
    notes: z.string().max(5000).optional().openapi({ description: 'Free text for the care team' }),
  })
  .openapi('AppointmentCreate')

export const AppointmentPatch = z
  .strictObject({
    notes: z
      .string()
      .max(5000)
      .nullable()
      .optional()
      .openapi({ description: 'null removes the notes; editable in every state' }),
    type: AppointmentTypeSchema.optional(),
    service: DisciplineSchema.optional(),
    startsAt: OffsetDateTime.optional().openapi({ format: 'date-time', description: 'A change is a reschedule' }),
    durationMinutes: DurationMinutes.optional().openapi({ description: 'A change is a reschedule' }),
    providerId: resourceId('provider').optional().openapi({ description: 'A change is a reschedule' }),
  })
  .openapi('AppointmentPatch', {
    description:
      'A JSON merge patch (RFC 7396) of the writable fields. Members left out stay as they are; `notes: null` removes ' +
      'the notes (the other fields cannot be removed). startsAt, durationMinutes and providerId make it a reschedule ' +
      '(CONFIRMED only); type and service can change only while CONFIRMED; a field set to its current value changes nothing.',
  })

export const AppointmentReschedule = z
  .strictObject({
    startsAt: OffsetDateTime.openapi({ format: 'date-time', example: '2026-12-03T16:00:00-06:00' }),
    durationMinutes: DurationMinutes.optional().openapi({ description: 'Defaults to the current duration' }),
    providerId: resourceId('provider').optional().openapi({ description: 'Defaults to the current provider' }),
  })
  .openapi('AppointmentReschedule')

export const AppointmentCancel = z
  .strictObject({
    reason: CancellationReasonSchema,
    note: z.string().max(2000).optional().openapi({ description: 'Free text, for the care team' }),
  })
  .openapi('AppointmentCancel')

const LocalDateTime = (description: string) =>
  z.string().openapi({ format: 'date-time', description, example: '2026-12-01T09:00:00-06:00' })

/** The appointment lifecycle's answer (common/appointments/appointment-workflow-contract.ts `AppointmentLifecycleView`). */
export const AppointmentWorkflowAnswer = z
  .object({
    state: AppointmentStatusSchema.openapi({ description: 'The state the booking workflow accepted' }),
    nextReminderAt: UtcDateTime.nullable().openapi({
      description: 'The next reminder to the family; null when none is left',
    }),
    remindersSent: z.number().int().openapi({ description: 'Reminders recorded so far (care notifications)' }),
    noShowAt: UtcDateTime.nullable().openapi({
      description: 'When it becomes NO_SHOW without a check-in; null once final or checked in',
    }),
    checkedIn: z.boolean().openapi({ description: 'Whether the workflow has seen a check-in (the session exists)' }),
  })
  .openapi('BookingWorkflowAnswer')

export const Appointment = z
  .object({
    id: resourceId('appointment'),
    status: AppointmentStatusSchema,
    childId: z.string(),
    provider: z.object({ id: z.string(), name: z.string() }),
    type: AppointmentTypeSchema,
    service: z.string().openapi({ description: 'A discipline, e.g. EARLY_INTERVENTION', example: 'SPEECH_THERAPY' }),
    startsAt: LocalDateTime('Start, with the UTC offset of `timeZone` at that instant'),
    endsAt: LocalDateTime('End (exclusive), with the UTC offset of `timeZone` at that instant'),
    durationMinutes: z.number().int(),
    timeZone: z.string().openapi({ description: 'IANA zone of the location; startsAt and endsAt carry its offset' }),
    locationId: z.string(),
    seriesId: z.string().nullable().openapi({ description: 'The weekly series this appointment belongs to' }),
    occurrenceDate: z
      .string()
      .nullable()
      .openapi({ format: 'date', description: 'Its date in the series (kept when rescheduled)' }),
    notes: z.string().nullable(),
    cancellation: z
      .object({
        cancelledAt: UtcDateTime,
        reason: CancellationReasonSchema,
        note: z.string().nullable(),
        lateCancellation: z
          .boolean()
          .openapi({ description: "Inside the location's lateCancellationHours before the start" }),
      })
      .nullable(),
    completedAt: UtcDateTime.nullable(),
    noShowAt: UtcDateTime.nullable(),
    rescheduleHistory: z
      .array(
        z.object({
          previousStartsAt: LocalDateTime('Start before this reschedule'),
          previousEndsAt: LocalDateTime('End before this reschedule'),
          previousProviderId: z.string(),
          startsAt: LocalDateTime('Start after this reschedule'),
          endsAt: LocalDateTime('End after this reschedule'),
          providerId: z.string(),
          rescheduledAt: UtcDateTime,
        })
      )
      .openapi({ description: 'Every reschedule, oldest first' }),
    nextReminderAt: UtcDateTime.nullable().openapi({
      description:
        "When the family's next reminder is due, from the start and the location's `reminderOffsetsMinutes` " +
        '(reminders whose time has passed are skipped); null when none is left or the appointment is not CONFIRMED. ' +
        'In every answer at once, including the booking’s; the booking workflow sends the reminders by the same rule.',
    }),
    createdAt: UtcDateTime,
    updatedAt: UtcDateTime,
    workflow: orNull(AppointmentWorkflowAnswer)
      .optional()
      .openapi({
        description:
          'Only in the answers of reschedule, cancel, complete, no-show (and a PATCH that reschedules): the booking ' +
          "workflow's accepted result. null when the workflow has not started yet (its start waits in the outbox).",
      }),
  })
  .openapi('Appointment')

export const AppointmentWorkflow = z
  .object({
    appointmentId: z.string(),
    status: AppointmentStatusSchema.openapi({
      description: "The appointment's status in the database (the source of truth)",
    }),
    workflowId: z.string().openapi({ description: 'The booking workflow (Temporal UI: search by this id)' }),
    execution: z.enum(['NOT_STARTED', 'SCHEDULED', 'RUNNING', 'CLOSED', 'LEGACY']).openapi({
      description:
        'NOT_STARTED: its start waits in the outbox; SCHEDULED: started, its first step waits until `runsFrom` ' +
        '(10 minutes before the first reminder: until then the workflow has nothing to do; a reschedule, cancel, ' +
        'complete or no-show runs it at once), so `lifecycle` is null and the appointment’s `nextReminderAt` says ' +
        'when the first reminder is due; LEGACY: a run started before the lifecycle (no reminders)',
    }),
    runsFrom: UtcDateTime.nullable().openapi({
      description: 'When a SCHEDULED workflow runs its first step; null in every other execution state',
    }),
    lifecycle: orNull(AppointmentWorkflowAnswer),
    followUp: z
      .object({
        workflowId: z.string(),
        status: z.enum(['WAITING_FOR_NOTE', 'NUDGING', 'FOLLOWED_UP', 'UNSIGNED', 'NOT_COMPLETED']),
        noteDueAt: UtcDateTime.nullable().openapi({ description: "Completion + the location's noteDueHours" }),
        nudgesSent: z.number().int(),
        nextNudgeAt: UtcDateTime.nullable(),
      })
      .nullable()
      .openapi({
        description: 'The appointment follow-up (after completion): note deadline, nudges, family follow-up',
      }),
  })
  .openapi('AppointmentWorkflow')

export const AppointmentPage = pageOf(Appointment, 'AppointmentPage')

const queryParam = (name: string, description: string) => ({ param: { name, in: 'query' as const }, description })

export const ListAppointmentsQuery = listQuerySchema(APPOINTMENT_SORT_FIELDS, DEFAULT_APPOINTMENT_SORT).extend({
  childId: z.string().max(64).optional().openapi(queryParam('childId', 'Only this child')),
  providerId: z.string().max(64).optional().openapi(queryParam('providerId', 'Only this provider')),
  locationId: z.string().max(64).optional().openapi(queryParam('locationId', 'Only this location')),
  seriesId: z.string().max(64).optional().openapi(queryParam('seriesId', 'Only occurrences of this series')),
  status: AppointmentStatusSchema.optional().openapi(queryParam('status', 'Only this status')),
  type: AppointmentTypeSchema.optional().openapi(queryParam('type', 'Only this type')),
  service: DisciplineSchema.optional().openapi(queryParam('service', 'Only this service')),
  from: OffsetDateTime.optional().openapi(queryParam('from', 'Only appointments starting at or after this instant')),
  to: OffsetDateTime.optional().openapi(queryParam('to', 'Only appointments starting before this instant')),
})
