/**
 * @module The AI analytics figures as pure functions of their raw rows: knowledge usage and answer coverage from the
 * query log (`knowledge_queries`: outcome, citation count and latency of each query, never its text), and workflow
 * outcomes from Temporal visibility counts. Each figure has a definition (`AI_ANALYTICS_DEFINITIONS`, also in the
 * response) so a reader can recompute it. Unit-tested in test/unit/domain/ai/analytics/ai-analytics-rules.test.ts.
 */
import { localDateOf } from '../../assessments/due-day.ts'
import { addDays, mondayOf } from '../../../common/time/calendar.ts'

/** One logged knowledge query: what the analytics read of it. */
export interface QueryRow {
  assistantId: string
  answered: boolean
  citationCount: number
  latencyMs: number
  createdAt: Date
  /** A configured chat model's call for the query (null: the offline answerer answered alone). */
  chatLatencyMs?: number | null
  chatInputTokens?: number | null
  chatOutputTokens?: number | null
  chatFallback?: string | null
}

/** What the tenant's configured chat model cost in the range. */
export interface ChatUsageSummary {
  calls: number
  inputTokens: number
  outputTokens: number
  fallbacks: number
  latencyMs: { median: number | null; p95: number | null }
}

/** The chat model's calls of the range: tokens as the provider reported them, latency of each call. */
export function summarizeChat(rows: QueryRow[]): ChatUsageSummary {
  const calls = rows.filter((r) => r.chatLatencyMs !== null && r.chatLatencyMs !== undefined)
  const sum = (pick: (r: QueryRow) => number | null | undefined) => calls.reduce((n, r) => n + (pick(r) ?? 0), 0)
  const latencies = calls.map((r) => r.chatLatencyMs!)
  return {
    calls: calls.length,
    inputTokens: sum((r) => r.chatInputTokens),
    outputTokens: sum((r) => r.chatOutputTokens),
    fallbacks: calls.filter((r) => r.chatFallback).length,
    latencyMs: { median: percentile(latencies, 50), p95: percentile(latencies, 95) },
  }
}

export interface AssistantUsage {
  assistantId: string
  name: string
  queries: number
  answered: number
  abstained: number
}

export interface DayUsage {
  date: string
  queries: number
  answered: number
  abstained: number
}

export interface KnowledgeUsage {
  queries: number
  assistants: number
  assistantsActive: number
  byAssistant: AssistantUsage[]
  byDay: DayUsage[]
  chat: ChatUsageSummary
}

export interface AnswerCoverage {
  answered: number
  abstained: number
  answeredShare: number | null
  abstainedShare: number | null
  citations: number
  citationsPerAnswer: number | null
  latencyMs: { median: number | null; p95: number | null }
  /** The answer rate week by week (weeks starting on Monday, in `timeZone`, cut to the range). */
  byWeek: WeekCoverage[]
  /** The answered share of the range's second half minus its first half's; null when a half has no queries. */
  answeredShareChange: number | null
}

export interface WeekCoverage {
  weekStart: string
  queries: number
  answered: number
  answeredShare: number | null
}

/** The Monday of a calendar date's week (YYYY-MM-DD). */

/** Weekly answer rates and the change between the range's halves, from the per-day counts. */
function answerTrend(days: DayUsage[]): Pick<AnswerCoverage, 'byWeek' | 'answeredShareChange'> {
  const weeks = new Map<string, WeekCoverage>()
  for (const day of days) {
    const weekStart = mondayOf(day.date)
    const week = weeks.get(weekStart) ?? { weekStart, queries: 0, answered: 0, answeredShare: null }
    week.queries += day.queries
    week.answered += day.answered
    weeks.set(weekStart, week)
  }
  for (const week of weeks.values()) week.answeredShare = ratio(week.answered, week.queries)
  const half = (part: DayUsage[]) => {
    const queries = part.reduce((n, d) => n + d.queries, 0)
    return ratio(
      part.reduce((n, d) => n + d.answered, 0),
      queries
    )
  }
  const middle = Math.floor(days.length / 2)
  const [first, second] = [half(days.slice(0, middle)), half(days.slice(middle))]
  const change = first === null || second === null ? null : Math.round((second - first) * 10_000) / 10_000
  return { byWeek: [...weeks.values()], answeredShareChange: change }
}

/** A ratio to four decimals; null when there is nothing to divide by (as the other analytics do). */
export const ratio = (n: number, d: number): number | null => (d === 0 ? null : Math.round((n / d) * 10_000) / 10_000)

/** The nearest-rank percentile (p in 0..100) of a list; null when empty. */
export function percentile(values: number[], p: number): number | null {
  if (values.length === 0) return null
  const sorted = [...values].sort((a, b) => a - b)
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length))
  return sorted[rank - 1]!
}

/**
 * Usage per assistant and per day (every day of the range, in `timeZone`, zeros included) and the coverage figures.
 * @param assistants - the assistants in scope (tenant, or one location's), by id, with their names
 * @param days - the range's calendar days, `from` to `to` included
 */
export function summarizeQueries(
  rows: QueryRow[],
  assistants: Array<{ id: string; name: string }>,
  days: { from: string; to: string; timeZone: string }
): { usage: KnowledgeUsage; coverage: AnswerCoverage } {
  const perAssistant = new Map<string, AssistantUsage>(
    assistants.map((a) => [a.id, { assistantId: a.id, name: a.name, queries: 0, answered: 0, abstained: 0 }])
  )
  const perDay = new Map<string, DayUsage>()
  for (let d = days.from; d <= days.to; d = addDays(d, 1))
    perDay.set(d, { date: d, queries: 0, answered: 0, abstained: 0 })
  let answered = 0
  let citations = 0
  for (const r of rows) {
    const a = perAssistant.get(r.assistantId)
    const day = perDay.get(localDateOf(r.createdAt, days.timeZone))
    for (const bucket of [a, day]) {
      if (!bucket) continue
      bucket.queries += 1
      if (r.answered) bucket.answered += 1
      else bucket.abstained += 1
    }
    if (r.answered) {
      answered += 1
      citations += r.citationCount
    }
  }
  const byAssistant = [...perAssistant.values()].sort(
    (x, y) => y.queries - x.queries || (x.assistantId < y.assistantId ? -1 : 1)
  )
  const latencies = rows.map((r) => r.latencyMs)
  return {
    usage: {
      queries: rows.length,
      assistants: assistants.length,
      assistantsActive: byAssistant.filter((a) => a.queries > 0).length,
      byAssistant,
      byDay: [...perDay.values()],
      chat: summarizeChat(rows),
    },
    coverage: {
      answered,
      abstained: rows.length - answered,
      answeredShare: ratio(answered, rows.length),
      abstainedShare: ratio(rows.length - answered, rows.length),
      citations,
      citationsPerAnswer: ratio(citations, answered),
      latencyMs: { median: percentile(latencies, 50), p95: percentile(latencies, 95) },
      ...answerTrend([...perDay.values()]),
    },
  }
}

/** Temporal's execution statuses, as the API spells enumerations. */
export const EXECUTION_STATUSES = [
  'RUNNING',
  'COMPLETED',
  'FAILED',
  'CANCELED',
  'TERMINATED',
  'CONTINUED_AS_NEW',
  'TIMED_OUT',
] as const
export type ExecutionStatus = (typeof EXECUTION_STATUSES)[number]

/** Visibility's group value (`Running`, `ContinuedAsNew`, `TimedOut`...) as an ExecutionStatus; undefined if unknown. */
export function toExecutionStatus(value: unknown): ExecutionStatus | undefined {
  // The SDK decodes each group value with the legacy search-attribute converter, which wraps it in an array:
  // `groupValues` arrives as `[['Running']]`. Unwrap whatever the nesting.
  let raw = value
  while (Array.isArray(raw)) raw = raw[0]
  if (typeof raw !== 'string') return undefined
  const upper = raw.replace(/([a-z])([A-Z])/g, '$1_$2').toUpperCase()
  return (EXECUTION_STATUSES as readonly string[]).includes(upper) ? (upper as ExecutionStatus) : undefined
}

export type WorkflowCategory = 'CARE' | 'AGENT' | 'BOOKING' | 'PLATFORM'

export interface StatusCounts {
  total: number
  byStatus: Record<ExecutionStatus, number>
}

export const emptyStatusCounts = (): StatusCounts => ({
  total: 0,
  byStatus: Object.fromEntries(EXECUTION_STATUSES.map((s) => [s, 0])) as Record<ExecutionStatus, number>,
})

/** A visibility count result (`count` with `GROUP BY ExecutionStatus`) as status counts. */
export function toStatusCounts(result: {
  count: number
  groups: Array<{ count: number; groupValues: unknown[] }>
}): StatusCounts {
  const counts = emptyStatusCounts()
  counts.total = Number(result.count)
  for (const g of result.groups) {
    const status = toExecutionStatus(g.groupValues)
    if (status) counts.byStatus[status] += Number(g.count)
  }
  return counts
}

/**
 * Workflows of kinds outside the catalogue: the tenant's total minus the catalogued kinds, per status, so the
 * breakdown always adds up to the total (a new kind shows here until it is catalogued).
 */
export function otherKinds(total: StatusCounts, kinds: StatusCounts[]): StatusCounts {
  const other = emptyStatusCounts()
  other.total = Math.max(0, total.total - kinds.reduce((n, k) => n + k.total, 0))
  for (const s of EXECUTION_STATUSES)
    other.byStatus[s] = Math.max(0, total.byStatus[s] - kinds.reduce((n, k) => n + k.byStatus[s], 0))
  return other
}

/** What each figure means; returned with every response and published in the OpenAPI description. */
export const AI_ANALYTICS_DEFINITIONS = {
  'usage.queries':
    'Knowledge queries (POST /v1/knowledge/query) answered or abstained whose log entry was written in the range; failed requests are not logged.',
  'usage.assistants': 'Assistants in scope now (the tenant, or those scoped to `locationId`).',
  'usage.assistantsActive': 'Assistants in scope with at least one query in the range.',
  'usage.byDay': 'Queries per calendar day of the range in `timeZone`, every day listed, zeros included.',
  'knowledge.documents':
    'Knowledge documents of the assistants in scope now, by indexing status (PROCESSING, READY, FAILED).',
  'knowledge.indexedInRange': 'Documents whose current version finished indexing (indexedAt) in the range.',
  'knowledge.failedInRange': 'Documents now FAILED whose failure was recorded (updatedAt) in the range.',
  'knowledge.chunks':
    'Chunks of the current versions of the documents in scope now (the sum of their chunkCount): what retrieval searches.',
  'coverage.answeredShare':
    'answered / queries: the share of queries the knowledge answered with citations; null without queries.',
  'coverage.abstainedShare': 'abstained / queries: the share answered "not in the knowledge" instead of guessing.',
  'coverage.citationsPerAnswer': 'Citations of answered queries / answered queries (abstentions cite nothing).',
  'usage.chat':
    "The configured chat model's calls for knowledge queries of the range: their number, the input and output tokens its provider reported (0 when it reported none), the calls whose failure left the answer to the offline answerer (`fallbacks`), and the calls' median and 95th-percentile latency.",
  'coverage.byWeek':
    'Queries, answered queries and answered / queries per week of the range (weeks start on Monday in `timeZone`; the first and last may be partial).',
  'coverage.answeredShareChange':
    "The answered share of the range's later half of days minus its earlier half's (positive: answering more); null when either half has no queries.",
  'coverage.latencyMs':
    'Nearest-rank median and 95th percentile of the server-side time to answer, from the query log.',
  workflows:
    'Temporal workflow executions started in the range with the TenantId search attribute of the tenant, counted by visibility per WorkflowKind and execution status (GROUP BY ExecutionStatus). With `locationId`, only executions carrying that LocationId search attribute (bookings today). Visibility is eventually consistent: a run started a second ago may not be counted yet.',
  'workflows.otherKinds':
    'The tenant’s executions whose WorkflowKind is not in the catalogue (or missing): the total minus the catalogued kinds.',
} as const
