/** @module Route table of a child's progress follow-up: periodic progress reports, the open follow-up, summaries on request. */
import { z } from '@hono/zod-openapi'
import { listQuerySchema } from '../../../domain/listing.ts'
import { REPORT_SORTS } from '../../../domain/child-progress/progress-view.ts'
import { COMMON_ERRORS, problemResponses, protectedRoute } from '../../openapi/routes.ts'
import { IdParam, UtcDateTime, pageOf } from '../../openapi/schemas.ts'
import { CareNotification } from '../../openapi/care-notification-schema.ts'
import { resourceId } from '../../../domain/id-schema.ts'
import { orNull } from '../../../domain/nullable.ts'

const ChildId = IdParam('child')
const TAGS = ['Child progress']
const CUEING = z.enum(['INDEPENDENT', 'MINIMAL', 'MODERATE', 'MAXIMAL', 'HAND_OVER_HAND'])

export const GoalProgress = z
  .object({
    goalId: z.string(),
    dataPoints: z
      .number()
      .int()
      .openapi({ description: 'Sessions with an accuracy figure for the goal in the look-back' }),
    firstAccuracy: z.number().nullable(),
    lastAccuracy: z.number().nullable(),
    trendChange: z
      .number()
      .nullable()
      .openapi({ description: 'Accuracy points gained (negative: lost) by the trend over the recent sessions' }),
    firstCueing: CUEING.nullable(),
    lastCueing: CUEING.nullable(),
    trend: z.enum(['MASTERED', 'IMPROVING', 'STALLED', 'DECLINING', 'INSUFFICIENT_DATA']),
  })
  .openapi('GoalProgress')

export const ProgressReport = z
  .object({
    id: resourceId('progressReport'),
    childId: z.string(),
    trigger: z.enum(['SCHEDULED', 'REQUESTED']),
    periodStart: UtcDateTime,
    periodEnd: UtcDateTime,
    sessionsCount: z.number().int(),
    signedNotesCount: z.number().int(),
    goals: z.array(GoalProgress),
    assessments: z.array(z.object({ assessmentId: z.string(), instrument: z.string(), completedAt: UtcDateTime })),
    stalledGoalIds: z
      .array(z.string())
      .openapi({ description: 'Active goals that stalled or declined: the follow-up is about them' }),
    createdAt: UtcDateTime,
  })
  .openapi('ProgressReport')

export const ChildProgress = z
  .object({
    childId: z.string(),
    workflowId: z.string().openapi({ description: 'The follow-up workflow, for operators (Temporal UI)' }),
    schedule: z
      .object({
        running: z.boolean(),
        intervalDays: z.number().int().optional(),
        periodStart: UtcDateTime.optional(),
        nextSummaryAt: UtcDateTime.optional(),
        reportsRecorded: z.number().int().optional(),
      })
      .nullable()
      .openapi({ description: "The workflow's schedule (its query); null when Temporal cannot answer right now" }),
    latestReport: orNull(ProgressReport),
    openFollowUp: CareNotification.nullable(),
  })
  .openapi('ChildProgress')

export const getProgressRoute = protectedRoute('children.read', {
  method: 'get',
  path: '/v1/children/{id}/progress',
  tags: TAGS,
  summary: "A child's progress: the latest report, the open follow-up and the next periodic summary",
  request: { params: ChildId },
  responses: {
    200: { description: 'The progress', content: { 'application/json': { schema: ChildProgress } } },
    ...problemResponses(404, ...COMMON_ERRORS),
  },
})

export const listReportsRoute = protectedRoute('children.read', {
  method: 'get',
  path: '/v1/children/{id}/progress/reports',
  tags: TAGS,
  summary: "A child's progress reports",
  request: { params: ChildId, query: listQuerySchema(REPORT_SORTS, '-periodEnd') },
  responses: {
    200: {
      description: 'A page of reports',
      content: { 'application/json': { schema: pageOf(ProgressReport, 'ProgressReportPage') } },
    },
    ...problemResponses(400, 404, ...COMMON_ERRORS),
  },
})

export const requestReportRoute = protectedRoute('children', {
  method: 'post',
  path: '/v1/children/{id}/progress/reports',
  tags: TAGS,
  summary: 'Make a progress summary of the last interval now',
  description:
    "Asks the child's follow-up workflow (started if it is not running) for a summary now, out of cycle; answers " +
    'with the report it recorded. 409 `invalid_state_transition` for an archived child; 503 when the workflow ' +
    'service cannot answer (retry with the same Idempotency-Key).',
  request: { params: ChildId },
  responses: {
    201: { description: 'The report', content: { 'application/json': { schema: ProgressReport } } },
    ...problemResponses(404, 409, 422, 503, ...COMMON_ERRORS),
  },
})

export const stopFollowUpRoute = protectedRoute('children', {
  method: 'delete',
  path: '/v1/children/{id}/progress',
  tags: TAGS,
  summary: "Stop a child's periodic progress summaries",
  description:
    'Cancels the follow-up workflow (its open follow-up is cancelled with it); reports stay. A later summary request ' +
    'starts it again. Repeating it changes nothing.',
  request: { params: ChildId },
  responses: {
    200: { description: 'The progress after stopping', content: { 'application/json': { schema: ChildProgress } } },
    ...problemResponses(404, 409, 422, 503, ...COMMON_ERRORS),
  },
})
