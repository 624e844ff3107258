/** @module Route table of the recommendation API: a child's next actions, each explained, with the call that does it. */
import { z } from '@hono/zod-openapi'
import { RECOMMENDATION_RULES } from '../../../domain/ai/recommendations/recommendation-facts.ts'
import { RECOMMENDATION_KINDS } from '../../../domain/ai/recommendations/recommendation-types.ts'
import { COMMON_ERRORS, problemResponses, protectedRouteAllOf } from '../../openapi/routes.ts'
import { IdParam, UtcDateTime } from '../../openapi/schemas.ts'

const KINDS = RECOMMENDATION_KINDS as unknown as readonly [string, ...string[]]
const PRIORITIES = ['HIGH', 'MEDIUM', 'LOW'] as const

const Fact = z.object({
  name: z.string(),
  value: z.union([z.string(), z.number(), z.boolean()]).nullable(),
  source: z.string().optional().openapi({ description: 'The `/v1` path of the record the value was read from' }),
})

export const Recommendation = z
  .object({
    id: z
      .string()
      .openapi({ description: 'Stable: the rule and the record it is about', example: 'SIGN_NOTE:ses_019a...' }),
    kind: z.enum(KINDS).openapi({ description: 'The rule that raised it (docs/agents.md, "Recommendations")' }),
    priority: z.enum(PRIORITIES),
    title: z.string().openapi({ description: 'What to do, in one sentence' }),
    explanation: z.object({
      rule: z.string().openapi({ description: 'The rule, the same sentence for every recommendation of this kind' }),
      reason: z.string().openapi({ description: 'Why it applies to this child, in terms of the record' }),
      facts: z.array(Fact).openapi({ description: 'The facts the rule used, each with the record it comes from' }),
    }),
    links: z.record(z.string(), z.string()).openapi({ description: '`/v1` paths of the records behind it' }),
    suggestedCall: z
      .object({
        method: z.enum(['GET', 'POST', 'PATCH']),
        path: z.string(),
        scope: z.string().openapi({ description: 'The scope the call needs' }),
        body: z
          .record(z.string(), z.unknown())
          .optional()
          .openapi({ description: 'A starting body; `<...>` marks what the caller fills in' }),
        description: z.string(),
      })
      .openapi({
        description: 'The API call that carries the recommendation out; nothing is done until someone makes it',
      }),
    dueAt: z
      .string()
      .nullable()
      .openapi({ description: 'A UTC instant or a calendar date; null when there is no deadline' }),
  })
  .openapi('Recommendation')

const counts = <T extends readonly [string, ...string[]]>(keys: T) =>
  z.object(Object.fromEntries(keys.map((k) => [k, z.number().int()])) as { [K in T[number]]: z.ZodNumber })

export const ChildRecommendations = z
  .object({
    childId: z.string(),
    generatedAt: UtcDateTime,
    today: z.string().openapi({ format: 'date', description: "The child's centre calendar day the date rules used" }),
    defaultCadenceDays: z
      .number()
      .int()
      .openapi({ description: 'The re-assessment cadence used for completions recorded without one' }),
    summary: z.object({ total: z.number().int(), byPriority: counts(PRIORITIES), byKind: counts(KINDS) }),
    data: z.array(Recommendation),
  })
  .openapi('ChildRecommendations')

// Facts from notes, assessments and the early-intervention record, with their values: their own routes' scopes too.
export const childRecommendationsRoute = protectedRouteAllOf(
  ['ai.read', 'children.read', 'sessions.read', 'assessments.read'],
  {
    method: 'get',
    path: '/v1/ai/children/{id}/recommendations',
    tags: ['AI'],
    summary: "A child's recommended next actions",
    description:
      'Rule-based and deterministic next actions for a child from its record: sign late SOAP notes, complete overdue ' +
      'assessments, schedule re-assessments due by cadence, meet early-intervention deadlines, review goals whose ' +
      'progress is stalled or declining, book the next session when goals are active and nothing is booked, and offer ' +
      'therapists of a needed discipline no appointment has delivered. Each carries its rule, the facts it used (with ' +
      'their records) and the API call that carries it out. Most urgent first; nothing is changed by reading them.',
    request: {
      params: IdParam('child'),
      query: z.object({
        defaultCadenceDays: z.coerce
          .number()
          .int()
          .min(1)
          .max(3650)
          .optional()
          .openapi({
            param: { name: 'defaultCadenceDays', in: 'query' },
            description: `Re-assessment cadence for completed assessments recorded without one (default ${RECOMMENDATION_RULES.defaultCadenceDays})`,
          }),
      }),
    },
    responses: {
      200: { description: 'The recommendations', content: { 'application/json': { schema: ChildRecommendations } } },
      ...problemResponses(400, 404, ...COMMON_ERRORS),
    },
  }
)
