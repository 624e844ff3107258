/** @module Route table of /v1/agents: the care-coordinator briefing's schemas and OpenAPI definition. */
import { z } from '@hono/zod-openapi'
import { COMMON_ERRORS, problemResponses, protectedRouteAllOf } from '../../openapi/routes.ts'
import { UtcDateTime } from '../../openapi/schemas.ts'

const KINDS = [
  'UNSIGNED_NOTE',
  'OVERDUE_ASSESSMENT',
  'ASSESSMENT_DUE_SOON',
  'EI_DEADLINE',
  'NO_UPCOMING_SESSION',
] as const
const PRIORITIES = ['HIGH', 'MEDIUM', 'LOW'] as const

export const BriefingItem = z
  .object({
    id: z
      .string()
      .openapi({ description: 'Stable: the rule and the record it is about', example: 'UNSIGNED_NOTE:ses_019a...' }),
    kind: z.enum(KINDS).openapi({ description: 'The rule that raised the item (docs/agents.md)' }),
    priority: z.enum(PRIORITIES),
    reason: z.string().openapi({ description: 'Why the item needs attention, in terms of the record' }),
    dueAt: z.string().openapi({
      description: 'When it is or was due: a UTC instant (notes) or a calendar date (assessments, deadlines)',
    }),
    childId: z.string(),
    links: z.record(z.string(), z.string()).openapi({ description: '`/v1` paths of the records behind the item' }),
  })
  .openapi('BriefingItem')

const counts = <T extends readonly [string, ...string[]]>(keys: T) =>
  z.object(Object.fromEntries(keys.map((k) => [k, z.number().int()])) as { [K in T[number]]: z.ZodNumber })

export const Briefing = z
  .object({
    generatedAt: UtcDateTime,
    scope: z.object({ kind: z.enum(['TENANT', 'LOCATION', 'CHILD']), id: z.string() }),
    summary: z.object({ total: z.number().int(), byPriority: counts(PRIORITIES), byKind: counts(KINDS) }),
    items: z.array(BriefingItem),
  })
  .openapi('CareCoordinatorBriefing')

const BriefingQuery = z.object({
  locationId: z
    .string()
    .max(64)
    .optional()
    .openapi({ param: { name: 'locationId', in: 'query' }, description: 'Only this location' }),
  childId: z
    .string()
    .max(64)
    .optional()
    .openapi({ param: { name: 'childId', in: 'query' }, description: 'Only this child' }),
})

// Which children need attention and why (unsigned notes, overdue assessments, EI deadlines): their routes' scopes too.
export const careCoordinatorRoute = protectedRouteAllOf(
  ['ai.read', 'children.read', 'sessions.read', 'assessments.read'],
  {
    method: 'get',
    path: '/v1/agents/care-coordinator',
    tags: ['Agents'],
    summary: "The care-coordinator agent's briefing",
    description:
      'What needs attention now for the tenant, a location or a child: unsigned SOAP notes past their location’s ' +
      '`noteDueHours`, overdue and soon-due assessments, early-intervention deadlines, and children with no appointment ' +
      'ahead. Rule-based and deterministic; each item carries its rule, reason, due date, priority and links. Most ' +
      'urgent first.',
    request: { query: BriefingQuery },
    responses: {
      200: { description: 'The briefing', content: { 'application/json': { schema: Briefing } } },
      ...problemResponses(400, 404, ...COMMON_ERRORS),
    },
  }
)
