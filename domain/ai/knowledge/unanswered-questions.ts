/**
 * @module What parents asked and did not get (issue 77; docs/ai.md, "Unanswered questions"): a declined question, or
 * one answered at a low score, is kept with its text, its embedding and the closest passage shown at the time, in the
 * tenant's unit of the query itself. The text is PHI: kept `KNOWLEDGE_UNANSWERED_RETENTION_DAYS` and then deleted
 * (`purgeExpiredUnanswered`, the API's loop), deletable one by one or all at once, gone with its assistant.
 */
import type { Db } from '../../../infra/db.ts'
import type { Logger } from '../../../infra/logger.ts'
import { startBackgroundLoop } from '../../../infra/background-loop.ts'
import { runInUnitOfWork, type UnitOfWork } from '../../../infra/unit-of-work.ts'
import { notFound } from '../../errors.ts'
import { newId } from '../../ids.ts'
import type { AnswerContext, KnowledgeAnswer, RetrievedPassage } from '../answering/answer-types.ts'
import { relatedPassages, RELATED_SETTINGS } from '../answering/related-passages.ts'
import { DAY_MS } from '../../../common/time/calendar.ts'

/** An answer scoring under this is kept as well: answered, but barely (the answer threshold is 0.45). */
export const LOW_SCORE = 0.5

/** Whether a query's outcome belongs in the unanswered report. */
export const isUnanswered = (answer: Pick<KnowledgeAnswer, 'answered' | 'decision'>) =>
  !answer.answered || answer.decision.score < LOW_SCORE

/** A vector as the bytes of its float32 values (little-endian, as the platforms we run on). */
export const vectorBytes = (vector: ArrayLike<number>) => new Uint8Array(Float32Array.from(vector).buffer)
export const vectorOf = (bytes: Uint8Array) =>
  new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength))

/**
 * Keeps a query's question when the knowledge did not answer it, or barely did.
 * @param passages - what was retrieved: the closest span is kept as the report shows it
 */
export async function recordUnanswered(
  uow: UnitOfWork,
  input: {
    assistantId: string
    question: string
    answer: KnowledgeAnswer
    passages: RetrievedPassage[]
    context: AnswerContext
    embeddingModel: string
  }
): Promise<void> {
  const { answer, context } = input
  if (!isUnanswered(answer) || context.questionVector === undefined) return
  const [closest] = relatedPassages(input.passages, context, { ...RELATED_SETTINGS, floor: -Infinity, max: 1 })
  const top = closest ?? answer.citations[0]
  await uow.tx.unansweredQuestion.create({
    data: {
      id: newId('unansweredQuestion'),
      tenantId: uow.tenantId,
      assistantId: input.assistantId,
      question: input.question,
      embeddingModel: input.embeddingModel,
      questionVector: vectorBytes(context.questionVector),
      answered: answer.answered,
      score: answer.decision.score,
      declinedBy: answer.decision.declinedBy ?? null,
      closestDocumentId: top?.documentId ?? null,
      closestDocumentName: top?.documentName ?? null,
      closestQuote: top?.quote ?? null,
    },
  })
}

/**
 * Deletes one kept question, or every one of the assistant's (`questionId` omitted).
 * @throws AppError 404 `not_found` when the question is not the assistant's
 */
export async function deleteUnanswered(uow: UnitOfWork, assistantId: string, questionId?: string): Promise<number> {
  const { count } = await uow.tx.unansweredQuestion.deleteMany({
    where: { tenantId: uow.tenantId, assistantId, ...(questionId ? { id: questionId } : {}) },
  })
  if (questionId && count === 0) throw notFound('unanswered question', questionId)
  return count
}

/**
 * Deletes kept questions past their retention, tenant by tenant in each tenant's unit.
 * @returns how many were deleted
 */
export async function purgeExpiredUnanswered(db: Db, retentionDays: number, now = new Date()): Promise<number> {
  const cutoff = new Date(now.getTime() - retentionDays * DAY_MS)
  // The platform's own connection: tenant ids only, across tenants (as the re-embedding starts' sweep).
  const tenants = await db.$queryRaw<Array<{ tenantId: string }>>`
    SELECT DISTINCT tenant_id AS "tenantId" FROM unanswered_questions WHERE asked_at < ${cutoff} LIMIT 100`
  let deleted = 0
  for (const { tenantId } of tenants) {
    deleted += await runInUnitOfWork(db, tenantId, async (uow) => {
      const { count } = await uow.tx.unansweredQuestion.deleteMany({ where: { tenantId, askedAt: { lt: cutoff } } })
      return count
    })
  }
  return deleted
}

/** Runs the purge at start and every `intervalMs`. */
export function keepUnansweredRetention(deps: {
  db: Db
  retentionDays: number
  intervalMs: number
  logger: Logger
}): () => Promise<void> {
  return startBackgroundLoop({
    run: async () => {
      const deleted = await purgeExpiredUnanswered(deps.db, deps.retentionDays)
      if (deleted > 0) deps.logger.info({ deleted }, 'unanswered questions past their retention deleted')
    },
    intervalMs: deps.intervalMs,
    // Retention is counted in days: nothing is due the moment an API starts, and a rolling restart of N instances
    // would otherwise scan the table N times.
    runAtStart: false,
    onError: (error) => deps.logger.warn({ err: error }, 'unanswered questions not purged; the next sweep retries'),
  })
}
