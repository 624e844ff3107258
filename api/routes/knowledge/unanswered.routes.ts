/** @module Route table of an assistant's unanswered questions (issue 77): the report and deletion. */
import { z } from '@hono/zod-openapi'
import { resourceId } from '../../../domain/id-schema.ts'
import { COMMON_ERRORS, problemResponses, protectedRoute } from '../../openapi/routes.ts'
import { IdParam, UtcDateTime, pathId } from '../../openapi/schemas.ts'

const tags = ['Assistants']

const WeekCount = z.object({
  weekStart: z.string().openapi({ format: 'date', description: 'The Monday (UTC) the week starts on' }),
  count: z.number().int(),
})

const UnansweredGroup = z
  .object({
    id: resourceId('unansweredQuestion').openapi({ description: "The group's first question's id" }),
    question: z.string().openapi({ description: "The group's first question, as asked" }),
    count: z.number().int().openapi({ description: 'Questions of the group in the window' }),
    firstAskedAt: UtcDateTime,
    lastAskedAt: UtcDateTime,
    byWeek: z.array(WeekCount),
    closest: z
      .object({ documentId: z.string(), documentName: z.string(), quote: z.string() })
      .nullable()
      .openapi({ description: 'The closest passage found when the latest question of the group was asked' }),
    answeredBy: z
      .object({ documentId: z.string(), documentName: z.string(), quote: z.string(), at: UtcDateTime })
      .nullable()
      .openapi({
        description:
          'The document that answers the group now: set when a document indexed after the group was asked answers ' +
          'its first question; null while open.',
      }),
    questions: z
      .array(
        z.object({
          id: resourceId('unansweredQuestion'),
          question: z.string(),
          askedAt: UtcDateTime,
          answered: z.boolean().openapi({ description: 'True for an answer at a low score (under 0.5)' }),
          score: z.number(),
          declinedBy: z.string().nullable(),
        })
      )
      .openapi({ description: 'The latest ten questions of the group, newest first' }),
  })
  .openapi('UnansweredGroup')

export const UnansweredReport = z
  .object({
    assistantId: z.string(),
    since: UtcDateTime,
    questions: z.number().int().openapi({ description: 'Questions kept in the window (at most the latest 1,000)' }),
    groups: z.number().int(),
    open: z.number().int().openapi({ description: 'Groups no document answers yet' }),
    nowAnswered: z.number().int().openapi({ description: 'Groups a document indexed since answers' }),
    pendingRechecks: z.number().int().openapi({
      description: 'Open groups still to be asked again after a new document (at most 10 are per report)',
    }),
    byWeek: z.array(WeekCount),
    data: z.array(UnansweredGroup),
  })
  .openapi('UnansweredReport')

const ReportQuery = z.object({
  weeks: z.coerce.number().int().min(1).max(52).optional().openapi({ description: 'Weeks back from now; default 12' }),
  limit: z.coerce.number().int().min(1).max(100).optional().openapi({ description: 'Groups listed; default 25' }),
})

export const unansweredReportRoute = protectedRoute('ai.read', {
  method: 'get',
  path: '/v1/assistants/{id}/unanswered',
  tags,
  summary: 'What parents asked and did not get',
  description:
    'Questions the assistant declined, or answered at a low score, grouped by meaning (near-duplicates together), most ' +
    'asked first, with counts by week and the closest passage each time: what a centre adds to its documents next. ' +
    'When a document was indexed after a group was asked, the report asks it again and names the document that now ' +
    'answers it (`answeredBy`). The questions are the tenant’s own and may name a child: kept 90 days ' +
    '(KNOWLEDGE_UNANSWERED_RETENTION_DAYS), deletable, deleted with the assistant.',
  request: { params: IdParam('assistant'), query: ReportQuery },
  responses: {
    200: { description: 'The report', content: { 'application/json': { schema: UnansweredReport } } },
    ...problemResponses(400, 404, ...COMMON_ERRORS),
  },
})

export const deleteUnansweredRoute = protectedRoute('ai', {
  method: 'delete',
  path: '/v1/assistants/{id}/unanswered/{questionId}',
  tags,
  summary: 'Delete a kept question',
  request: { params: z.object({ id: pathId('assistant'), questionId: pathId('unansweredQuestion', 'questionId') }) },
  responses: {
    204: { description: 'Deleted' },
    ...problemResponses(404, ...COMMON_ERRORS),
  },
})

export const deleteAllUnansweredRoute = protectedRoute('ai', {
  method: 'delete',
  path: '/v1/assistants/{id}/unanswered',
  tags,
  summary: 'Delete every kept question of an assistant',
  request: { params: IdParam('assistant') },
  responses: {
    204: { description: 'Deleted' },
    ...problemResponses(404, ...COMMON_ERRORS),
  },
})
