/** @module Route table of /v1/assessments: standardised assessments, their completion and their reminders. */
import { z } from '@hono/zod-openapi'
import { ASSESSMENT_STATUSES } from '../../../domain/assessments/assessment-rules.ts'
import {
  AssessmentCompletion,
  AssessmentFields,
  AssessmentPatchFields,
  AssessmentScore,
} from '../../../domain/assessments/assessment-schema.ts'
import { ASSESSMENT_SORTS, NOTIFICATION_SORTS } from '../../../domain/assessments/assessment-store.ts'
import { CalendarDate } from '../../../domain/clients/record-fields.ts'
import { listQuerySchema } from '../../../domain/listing.ts'
import { mergePatchSchema } from '../../../domain/merge-patch.ts'
import { idFilter, pageResponses, queryFilter } from '../../openapi/list-parts.ts'
import { COMMON_ERRORS, problemResponses, protectedRoute } from '../../openapi/routes.ts'
import { IdParam, UtcDateTime, pageOf } from '../../openapi/schemas.ts'
import { resourceId } from '../../../domain/id-schema.ts'

export const AssessmentCreate = AssessmentFields.openapi('AssessmentCreate')

export const AssessmentPatch = mergePatchSchema(AssessmentPatchFields, { required: ['instrument'] }).openapi(
  'AssessmentPatch',
  {
    description:
      'A JSON merge patch (RFC 7396) of an open assessment; null removes providerId, dueDate or the cadence. A new due date ' +
      'sets the status back to SCHEDULED and re-plans the reminders.',
  }
)

export const Assessment = z
  .object({
    id: resourceId('assessment'),
    childId: z.string(),
    providerId: z.string().nullable(),
    instrument: z.string(),
    status: z.enum(ASSESSMENT_STATUSES),
    dueDate: z.string().nullable().openapi({ format: 'date' }),
    reassessmentCadenceDays: z.number().int().nullable(),
    scores: z.array(AssessmentScore).nullable().openapi({ description: 'Recorded on completion' }),
    completedAt: UtcDateTime.nullable(),
    cancelledAt: UtcDateTime.nullable(),
    previousAssessmentId: z.string().nullable().openapi({ description: 'The assessment this one re-assesses' }),
    nextAssessmentId: z
      .string()
      .nullable()
      .openapi({ description: 'The re-assessment created when this one was completed' }),
    createdAt: UtcDateTime,
    updatedAt: UtcDateTime,
  })
  .openapi('Assessment')

export const AssessmentNotification = z
  .object({
    id: resourceId('assessmentNotification'),
    assessmentId: z.string(),
    kind: z.enum(['REMINDER', 'DUE', 'ESCALATION']),
    dueDate: z.string().openapi({ format: 'date', description: 'The due date it refers to' }),
    daysFromDue: z.number().int().openapi({ description: '-7 and -1: reminders; 0: due; 1, 8, 15...: escalations' }),
    recipientProviderId: z.string().nullable(),
    createdAt: UtcDateTime,
  })
  .openapi('AssessmentNotification')

const ListAssessmentsQuery = listQuerySchema(ASSESSMENT_SORTS, '-createdAt').extend({
  childId: idFilter('childId'),
  providerId: idFilter('providerId'),
  status: queryFilter('status', z.enum(ASSESSMENT_STATUSES)),
  instrument: z
    .string()
    .max(100)
    .optional()
    .openapi({ param: { name: 'instrument', in: 'query' } }),
  dueFrom: CalendarDate.optional().openapi({ param: { name: 'dueFrom', in: 'query' }, description: 'Due on or after' }),
  dueTo: CalendarDate.optional().openapi({ param: { name: 'dueTo', in: 'query' }, description: 'Due on or before' }),
})

const AssessmentId = IdParam('assessment')
const assessmentResponse = (description: string) => ({
  description,
  content: { 'application/json': { schema: Assessment } },
})

export const createAssessmentRoute = protectedRoute('assessments', {
  method: 'post',
  path: '/v1/assessments',
  tags: ['Assessments'],
  summary: 'Schedule an assessment',
  description:
    'With a due date, its reminder workflow starts: reminders before, `assessment.due` on the day, escalations after.',
  request: { body: { required: true, content: { 'application/json': { schema: AssessmentCreate } } } },
  responses: {
    201: assessmentResponse('The assessment'),
    ...problemResponses(400, 409, 413, 415, 422, ...COMMON_ERRORS),
  },
})

export const listAssessmentsRoute = protectedRoute('assessments.read', {
  method: 'get',
  path: '/v1/assessments',
  tags: ['Assessments'],
  summary: 'List assessments',
  request: { query: ListAssessmentsQuery },
  responses: pageResponses(Assessment, 'AssessmentPage', 'A page of assessments'),
})

export const getAssessmentRoute = protectedRoute('assessments.read', {
  method: 'get',
  path: '/v1/assessments/{id}',
  tags: ['Assessments'],
  summary: 'Retrieve an assessment',
  request: { params: AssessmentId },
  responses: { 200: assessmentResponse('The assessment'), ...problemResponses(404, ...COMMON_ERRORS) },
})

export const patchAssessmentRoute = protectedRoute('assessments', {
  method: 'patch',
  path: '/v1/assessments/{id}',
  tags: ['Assessments'],
  summary: 'Update an open assessment (JSON merge patch)',
  request: {
    params: AssessmentId,
    body: {
      required: true,
      content: {
        'application/merge-patch+json': { schema: AssessmentPatch },
        'application/json': { schema: AssessmentPatch },
      },
    },
  },
  responses: {
    200: assessmentResponse('The assessment'),
    ...problemResponses(400, 404, 409, 413, 415, 422, ...COMMON_ERRORS),
  },
})

export const cancelAssessmentRoute = protectedRoute('assessments', {
  method: 'delete',
  path: '/v1/assessments/{id}',
  tags: ['Assessments'],
  summary: 'Cancel an assessment',
  description:
    'Cancels rather than deletes: the record stays (status CANCELLED, `cancelledAt`) and its reminders stop. Idempotent.',
  request: { params: AssessmentId },
  responses: {
    200: assessmentResponse('The cancelled assessment'),
    ...problemResponses(404, 409, 422, ...COMMON_ERRORS),
  },
})

export const completeAssessmentRoute = protectedRoute('assessments', {
  method: 'post',
  path: '/v1/assessments/{id}/complete',
  tags: ['Assessments'],
  summary: 'Record the completion and scores',
  description:
    'Emits `assessment.completed` and ends the reminders; with a re-assessment cadence, creates the next assessment ' +
    '(`nextAssessmentId`) due that many days after the completion date.',
  request: {
    params: AssessmentId,
    body: { required: true, content: { 'application/json': { schema: AssessmentCompletion } } },
  },
  responses: {
    200: assessmentResponse('The completed assessment'),
    ...problemResponses(400, 404, 409, 413, 415, 422, ...COMMON_ERRORS),
  },
})

export const listNotificationsRoute = protectedRoute('assessments.read', {
  method: 'get',
  path: '/v1/assessments/{id}/notifications',
  tags: ['Assessments'],
  summary: 'List the reminders, due notices and escalations recorded for an assessment',
  request: { params: AssessmentId, query: listQuerySchema(NOTIFICATION_SORTS, 'createdAt') },
  responses: {
    200: {
      description: 'A page of notifications',
      content: { 'application/json': { schema: pageOf(AssessmentNotification, 'AssessmentNotificationPage') } },
    },
    ...problemResponses(400, 404, ...COMMON_ERRORS),
  },
})
