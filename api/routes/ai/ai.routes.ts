/** @module Route table of /v1/ai: assessment recall (spec row 12). */
import { z } from '@hono/zod-openapi'
import { COMMON_ERRORS, problemResponses, protectedRoute } from '../../openapi/routes.ts'

export const RecallRequestBody = z
  .strictObject({
    horizonDays: z.number().int().min(0).max(365).default(14).openapi({ description: 'Recall what is due by today + this many days (UTC calendar day)' }),
    defaultCadenceDays: z.number().int().min(1).max(3650).optional().openapi({
      description: 'Cadence for completed assessments recorded without one; without it only assessments with a cadence are recalled',
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
