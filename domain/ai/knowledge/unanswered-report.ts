/**
 * @module The unanswered-questions report of an assistant (`GET /v1/assistants/{id}/unanswered`, issue 77): the kept
 * questions of a window grouped by meaning (unanswered-groups.ts), most asked first, each with its weekly counts and
 * the closest passage. When a document was indexed after a group was last asked, the report asks its first question
 * again against the knowledge as it is now; an answer names the document that answers it (`answeredBy`), kept with
 * the group's rows. At most `RECHECKS_PER_REPORT` groups are asked again per report, so a report's cost is bounded;
 * the rest are asked at the next (`pendingRechecks` says how many).
 */
import type { UnitOfWork } from '../../../infra/unit-of-work.ts'
import type { AiRuntime } from '../ai-runtime.ts'
import { getAssistant } from '../assistants/assistant-service.ts'
import { callModel, retrievePassages } from './query-knowledge.ts'
import {
  countByWeek,
  describeGroup,
  groupByMeaning,
  REPORT_MAX_QUESTIONS,
  type UnansweredGroup,
  type UnansweredRow,
} from './unanswered-groups.ts'
import { isUnanswered, vectorOf } from './unanswered-questions.ts'
import { DAY_MS } from '../../../common/time/calendar.ts'

/** Groups asked again per report at most. */
export const RECHECKS_PER_REPORT = 10

export interface UnansweredReportQuery {
  /** Weeks back from now (1..52); default 12. */
  weeks?: number
  /** Groups listed (1..100); default 25. */
  limit?: number
}

const WEEK_MS = 7 * DAY_MS

async function recheck(uow: UnitOfWork, runtime: AiRuntime, assistantId: string, group: UnansweredGroup, now: Date) {
  const { passages, context } = await retrievePassages(uow, runtime, assistantId, group.question)
  const answer = await callModel(uow, runtime.answerer, () =>
    runtime.answerer.answer(group.question, passages, context)
  )
  const cited = !isUnanswered(answer) ? answer.citations[0] : undefined
  const resolved = cited
    ? {
        resolvedDocumentId: cited.documentId,
        resolvedDocumentName: cited.documentName,
        resolvedQuote: cited.quote,
        resolvedAt: now,
      }
    : {}
  await uow.tx.unansweredQuestion.updateMany({
    where: { tenantId: uow.tenantId, id: { in: group.rows.map((r) => r.id) } },
    data: { checkedAt: now, ...resolved },
  })
  for (const row of group.rows) Object.assign(row, { checkedAt: now }, resolved)
}

/**
 * The report of an assistant of the unit's tenant.
 * @throws AppError 404 when the assistant is not the tenant's
 */
export async function unansweredReport(
  uow: UnitOfWork,
  runtime: AiRuntime,
  assistantId: string,
  query: UnansweredReportQuery = {},
  now = new Date()
) {
  const assistant = await getAssistant(uow, assistantId)
  const weeks = query.weeks ?? 12
  const since = new Date(now.getTime() - weeks * WEEK_MS)
  const kept = await uow.tx.unansweredQuestion.findMany({
    where: { tenantId: uow.tenantId, assistantId: assistant.id, askedAt: { gte: since } },
    orderBy: [{ askedAt: 'desc' }, { id: 'desc' }],
    take: REPORT_MAX_QUESTIONS,
  })
  const rows: UnansweredRow[] = kept.reverse().map(({ questionVector, ...row }) => ({
    ...row,
    vector: vectorOf(questionVector),
  }))
  const groups = groupByMeaning(rows)
  const open = (g: UnansweredGroup) => g.rows.every((r) => r.resolvedAt === null)
  groups.sort((a, b) => b.rows.length - a.rows.length)

  const latest = await uow.tx.knowledgeDocument.aggregate({
    where: { tenantId: uow.tenantId, assistantId: assistant.id, status: 'READY' },
    _max: { indexedAt: true },
  })
  const indexedAt = latest._max.indexedAt
  const stale = (g: UnansweredGroup) =>
    indexedAt !== null && open(g) && g.rows.some((r) => r.checkedAt.getTime() < indexedAt.getTime())
  const due = groups.filter(stale)
  for (const group of due.slice(0, RECHECKS_PER_REPORT)) await recheck(uow, runtime, assistant.id, group, now)
  // Open groups first (most asked first); those a document now answers after them.
  groups.sort((a, b) => Number(open(b)) - Number(open(a)))

  return {
    assistantId: assistant.id,
    since: since.toISOString(),
    questions: rows.length,
    groups: groups.length,
    open: groups.filter(open).length,
    nowAnswered: groups.filter((g) => !open(g)).length,
    pendingRechecks: Math.max(0, due.length - RECHECKS_PER_REPORT),
    byWeek: countByWeek(rows),
    data: groups.slice(0, query.limit ?? 25).map(describeGroup),
  }
}
