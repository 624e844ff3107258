/** @module Route table of /v1/ai: assessment recall (spec row 12). */
import { z } from '@hono/zod-openapi'
import { COMMON_ERRORS, problemResponses, protectedRoute, protectedRouteAllOf } from '../../openapi/routes.ts'
import { IdParam } from '../../openapi/schemas.ts'

export const RecallRequestBody = z
  .strictObject({
    horizonDays: z
      .number()
      .int()
      .min(0)
      .max(365)
      .default(14)
      .openapi({ description: 'Recall what is due by today + this many days (UTC calendar day)' }),
    defaultCadenceDays: z.number().int().min(1).max(3650).optional().openapi({
      description:
        'Cadence for completed assessments recorded without one; without it only assessments with a cadence are recalled',
    }),
    locationId: z.string().max(64).optional(),
    childId: z.string().max(64).optional(),
  })
  .openapi('AssessmentRecallRequest')

export const Recall = z
  .object({
    assessmentId: z.string().openapi({ description: 'The re-assessment' }),
    previousAssessmentId: z.string().openapi({ description: 'The completed assessment it re-assesses' }),
    childId: z.string(),
    instrument: z.string(),
    dueDate: z.string().openapi({ format: 'date' }),
    status: z.string(),
    overdue: z.boolean(),
    started: z.boolean().openapi({ description: 'This request created it (false: it was already in recall)' }),
  })
  .openapi('AssessmentRecall')

export const RecallResult = z
  .object({
    asOf: z.string().openapi({ format: 'date' }),
    horizonDays: z.number().int(),
    startedCount: z.number().int(),
    recalls: z.array(Recall),
  })
  .openapi('AssessmentRecallResult')

export const assessmentRecallRoute = protectedRoute('assessments', {
  method: 'post',
  path: '/v1/ai/assessment-recall',
  tags: ['AI'],
  summary: 'Recall the children due or overdue for re-assessment',
  description:
    'Creates the re-assessment of each latest completed assessment whose completion + cadence falls by today + ' +
    '`horizonDays` and that has none yet (its reminder workflow starts after commit), then lists every re-assessment ' +
    'in recall due by then. Naturally idempotent: repeating the request creates nothing and answers the same recalls ' +
    '(with `started: false`). Needs `assessments` because it creates assessments.',
  request: { body: { required: true, content: { 'application/json': { schema: RecallRequestBody } } } },
  responses: {
    200: { description: 'The recalls', content: { 'application/json': { schema: RecallResult } } },
    ...problemResponses(400, 404, 413, 415, 422, ...COMMON_ERRORS),
  },
})

const GoalProgressSchema = z.object({
  goalId: z.string(),
  dataPoints: z.number().int(),
  firstAccuracy: z.number().nullable(),
  lastAccuracy: z.number().nullable(),
  trendChange: z.number().nullable(),
  firstCueing: z.string().nullable(),
  lastCueing: z.string().nullable(),
  trend: z.enum(['MASTERED', 'IMPROVING', 'STALLED', 'DECLINING', 'INSUFFICIENT_DATA']),
})

export const ChildInsights = z
  .object({
    childId: z.string(),
    generatedAt: z.string().openapi({ format: 'date-time' }),
    policy: z.object({
      windowSessions: z.number().int(),
      minImprovementPoints: z.number(),
      declinePoints: z.number(),
      masteryPercent: z.number(),
      masteryCount: z.number().int(),
      masteryOf: z.number().int(),
    }),
    goals: z.array(
      z.object({
        goalId: z.string(),
        description: z.string(),
        status: z.string(),
        progress: GoalProgressSchema,
        explanation: z.string().openapi({ description: 'The rule behind the trend, with the figures' }),
        dataPoints: z.array(
          z.object({
            at: z.string(),
            sessionId: z.string(),
            noteId: z.string(),
            accuracyPercent: z.number().nullable(),
            cueingLevel: z.string().nullable(),
          })
        ),
      })
    ),
    assessments: z.array(
      z.object({
        instrument: z.string(),
        subtest: z.string(),
        measure: z.enum(['standardScore', 'scaledScore', 'percentile', 'rawScore']),
        change: z.number().nullable(),
        points: z.array(z.object({ at: z.string(), assessmentId: z.string(), value: z.number() })),
      })
    ),
  })
  .openapi('ChildInsights')

// Goal scores from SOAP notes and assessment scores: the scopes their own routes need, beside the AI's.
export const childInsightsRoute = protectedRouteAllOf(
  ['ai.read', 'children.read', 'sessions.read', 'assessments.read'],
  {
    method: 'get',
    path: '/v1/ai/children/{id}/insights',
    tags: ['AI'],
    summary: "A child's progress insights",
    description:
      'Goal attainment over time from signed SOAP notes (accuracy and cueing per goal, with the notes behind every ' +
      'point and the trend rule that applies) and assessment scores over time per instrument and subtest.',
    request: { params: IdParam('child') },
    responses: {
      200: { description: 'The insights', content: { 'application/json': { schema: ChildInsights } } },
      ...problemResponses(404, ...COMMON_ERRORS),
    },
  }
)
