/**
 * @module The AI analytics report: knowledge usage and answer coverage read from the query log and the knowledge
 * tables inside the request's unit of work (row-level security confines them to the tenant), workflow outcomes from
 * Temporal visibility filtered by the tenant's TenantId search attribute. Figures are computed by the pure functions
 * of ./ai-analytics-rules.ts and returned with their definitions.
 */
import type { Client } from '@temporalio/client'
import type { UnitOfWork } from '../../../infra/unit-of-work.ts'
import { resolveRange, type AnalyticsRange } from '../../analytics/analytics-range.ts'
import { notFound } from '../../errors.ts'
import {
  AI_ANALYTICS_DEFINITIONS,
  summarizeQueries,
  type AnswerCoverage,
  type KnowledgeUsage,
} from './ai-analytics-rules.ts'
import { workflowOutcomes, type WorkflowOutcomes } from './workflow-outcomes.ts'
import { createAnalyticsWorkflowCalls } from './analytics-workflow-calls.ts'

export interface AiAnalyticsQuery {
  from: string
  to: string
  /** Default: the location's zone with `locationId`, else UTC. */
  timeZone?: string
  locationId?: string
}

export interface KnowledgeFigures {
  documents: { total: number; byStatus: { PROCESSING: number; READY: number; FAILED: number } }
  indexedInRange: number
  failedInRange: number
  chunks: number
}

export interface AiAnalytics {
  range: Pick<AnalyticsRange, 'from' | 'to' | 'timeZone'> & { startsAt: string; endsAt: string }
  locationId: string | null
  usage: KnowledgeUsage
  knowledge: KnowledgeFigures
  coverage: AnswerCoverage
  workflows: WorkflowOutcomes
  definitions: typeof AI_ANALYTICS_DEFINITIONS
}

/**
 * The report for a range of calendar days.
 * @throws AppError `validation_error` for a bad range or zone, `not_found` for a location not the tenant's,
 *   `dependency_unavailable` when Temporal does not answer
 */
export async function aiAnalytics(uow: UnitOfWork, temporal: Client, query: AiAnalyticsQuery): Promise<AiAnalytics> {
  const { tx, tenantId } = uow
  let zone = query.timeZone
  if (query.locationId) {
    const location = await tx.location.findFirst({
      where: { id: query.locationId, tenantId },
      select: { timeZone: true },
    })
    if (!location) throw notFound('location', query.locationId)
    zone ??= location.timeZone
  }
  const range = resolveRange(query.from, query.to, zone ?? 'UTC')
  const inRange = { gte: range.start, lt: range.end }
  // A location's analytics cover the assistants scoped to it; tenant-wide assistants belong to no one location.
  const assistantWhere = { tenantId, ...(query.locationId ? { locationId: query.locationId } : {}) }
  const assistants = await tx.assistant.findMany({
    where: assistantWhere,
    select: { id: true, name: true },
    orderBy: { id: 'asc' },
  })
  const assistantIds = assistants.map((a) => a.id)
  const scoped = { tenantId, assistantId: { in: assistantIds } }

  const rows = await tx.knowledgeQuery.findMany({
    where: { ...scoped, createdAt: inRange },
    select: {
      assistantId: true,
      answered: true,
      citationCount: true,
      latencyMs: true,
      createdAt: true,
      chatLatencyMs: true,
      chatInputTokens: true,
      chatOutputTokens: true,
      chatFallback: true,
    },
  })
  const byStatus = await tx.knowledgeDocument.groupBy({ by: ['status'], where: scoped, _count: { _all: true } })
  const statusCounts = { PROCESSING: 0, READY: 0, FAILED: 0 }
  for (const s of byStatus) statusCounts[s.status] = s._count._all
  // One transaction runs one statement at a time: sequential awaits say so.
  const indexedInRange = await tx.knowledgeDocument.count({ where: { ...scoped, indexedAt: inRange } })
  const failedInRange = await tx.knowledgeDocument.count({ where: { ...scoped, status: 'FAILED', updatedAt: inRange } })
  // From the documents, not a chunk table: the pgvector store and the plain store keep their vectors in different tables.
  const chunks =
    (await tx.knowledgeDocument.aggregate({ where: scoped, _sum: { chunkCount: true } }))._sum.chunkCount ?? 0
  const { usage, coverage } = summarizeQueries(rows, assistants, range)
  // The database's figures are read; Temporal's are asked holding no transaction.
  const workflows = await uow.release(() =>
    workflowOutcomes(createAnalyticsWorkflowCalls({ temporal }), tenantId, range, query.locationId)
  )

  return {
    range: {
      from: range.from,
      to: range.to,
      timeZone: range.timeZone,
      startsAt: range.start.toISOString(),
      endsAt: range.end.toISOString(),
    },
    locationId: query.locationId ?? null,
    usage,
    knowledge: {
      documents: { total: statusCounts.PROCESSING + statusCounts.READY + statusCounts.FAILED, byStatus: statusCounts },
      indexedInRange,
      failedInRange,
      chunks,
    },
    coverage,
    workflows,
    definitions: AI_ANALYTICS_DEFINITIONS,
  }
}
