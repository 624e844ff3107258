/** @module Route table of the AI analytics API: knowledge usage, answer coverage and workflow outcomes, each defined. */
import { z } from '@hono/zod-openapi'
import { AI_ANALYTICS_DEFINITIONS, EXECUTION_STATUSES } from '../../../domain/ai/analytics/ai-analytics-rules.ts'
import { MAX_RANGE_DAYS } from '../../../domain/analytics/analytics-range.ts'
import { COMMON_ERRORS, problemResponses, protectedRoute } from '../../openapi/routes.ts'
import { CALENDAR_DATE } from '../../../domain/time.ts'

const q = (name: string, description: string, example?: string) => ({
  param: { name, in: 'query' as const },
  description,
  ...(example ? { example } : {}),
})
const CalendarDate = z.string().regex(CALENDAR_DATE, 'A calendar date, YYYY-MM-DD')
const Ratio = z.number().nullable().openapi({ description: 'A ratio to four decimals; null when the denominator is 0' })
const Count = z.number().int()
const Usage = z.object({ queries: Count, answered: Count, abstained: Count })

const StatusCounts = z.object({
  total: Count,
  byStatus: z.object(
    Object.fromEntries(EXECUTION_STATUSES.map((s) => [s, Count])) as Record<
      (typeof EXECUTION_STATUSES)[number],
      typeof Count
    >
  ),
})

export const AiAnalytics = z
  .object({
    range: z.object({
      from: z.string(),
      to: z.string(),
      timeZone: z.string(),
      startsAt: z.string().openapi({ format: 'date-time', description: 'Local midnight starting `from` (UTC)' }),
      endsAt: z.string().openapi({ format: 'date-time', description: 'Local midnight after `to` (UTC, exclusive)' }),
    }),
    locationId: z.string().nullable(),
    usage: z.object({
      queries: Count,
      assistants: Count,
      assistantsActive: Count,
      byAssistant: z.array(Usage.extend({ assistantId: z.string(), name: z.string() })),
      byDay: z.array(Usage.extend({ date: z.string().openapi({ format: 'date' }) })),
      chat: z.object({
        calls: Count,
        inputTokens: Count,
        outputTokens: Count,
        fallbacks: Count,
        latencyMs: z.object({ median: z.number().nullable(), p95: z.number().nullable() }),
      }),
    }),
    knowledge: z.object({
      documents: z.object({ total: Count, byStatus: z.object({ PROCESSING: Count, READY: Count, FAILED: Count }) }),
      indexedInRange: Count,
      failedInRange: Count,
      chunks: Count,
    }),
    coverage: z.object({
      answered: Count,
      abstained: Count,
      answeredShare: Ratio,
      abstainedShare: Ratio,
      citations: Count,
      citationsPerAnswer: Ratio,
      latencyMs: z.object({ median: z.number().nullable(), p95: z.number().nullable() }),
      byWeek: z.array(
        z.object({
          weekStart: z.string().openapi({ format: 'date' }),
          queries: Count,
          answered: Count,
          answeredShare: Ratio,
        })
      ),
      answeredShareChange: z.number().nullable().openapi({
        description: "The answer rate's trend: the later half of the range's answered share minus the earlier half's",
      }),
    }),
    workflows: z.object({
      total: StatusCounts,
      byKind: z.array(
        StatusCounts.extend({ kind: z.string(), category: z.enum(['CARE', 'AGENT', 'BOOKING', 'PLATFORM']) })
      ),
      otherKinds: StatusCounts,
    }),
    definitions: z
      .record(z.string(), z.string())
      .openapi({ description: 'What each figure means, by its path in this response' }),
  })
  .openapi('AiAnalytics')

const AiAnalyticsQuery = z.object({
  from: CalendarDate.openapi(q('from', 'First day, included', '2026-11-01')),
  to: CalendarDate.openapi(q('to', `Last day, included (at most ${MAX_RANGE_DAYS} days after from)`, '2026-11-30')),
  timeZone: z
    .string()
    .max(64)
    .optional()
    .openapi(q('timeZone', "The zone of the days; default the location's with locationId, else UTC")),
  locationId: z
    .string()
    .max(64)
    .optional()
    .openapi(q('locationId', "Only this location's assistants (and workflows carrying its LocationId)")),
})

const definitionList = Object.entries(AI_ANALYTICS_DEFINITIONS)
  .map(([k, v]) => `- \`${k}\`: ${v}`)
  .join('\n')

export const aiAnalyticsRoute = protectedRoute('ai.read', {
  method: 'get',
  path: '/v1/ai/analytics',
  tags: ['AI'],
  summary: 'AI usage, answer coverage and workflow outcomes',
  description:
    'Knowledge usage per assistant and per day, the knowledge indexed, the share of questions answered with citations ' +
    'versus abstained, and the outcomes of the tenant’s Temporal workflows (agent runs, care workflows and the ' +
    'others) by kind and status, for calendar days `from`..`to`. Never reads a question’s text (it is not stored). ' +
    `Definitions:\n${definitionList}`,
  request: { query: AiAnalyticsQuery },
  responses: {
    200: { description: 'The figures and their definitions', content: { 'application/json': { schema: AiAnalytics } } },
    ...problemResponses(400, 404, 503, ...COMMON_ERRORS),
  },
})
