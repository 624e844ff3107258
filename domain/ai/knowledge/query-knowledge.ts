/**
 * @module Asking an assistant's knowledge: embed the question and expand its words (WordNet and the care-domain
 * layer), retrieve that assistant's chunks only (in the tenant's transaction) by the vector and BM25 rankings fused,
 * and let the answerer compose a cited answer, or say the knowledge does not contain one, offering the passages close
 * to it (related-passages.ts). Each query's outcome (never its text) is recorded for usage and coverage analytics; a
 * declined or low-scoring question's text is kept for the assistant's unanswered report (unanswered-questions.ts).
 */
import type { UnitOfWork } from '../../../infra/unit-of-work.ts'
import type { Principal } from '../../auth/principal.ts'
import { newId } from '../../ids.ts'
import type { AiRuntime } from '../ai-runtime.ts'
import type { AnswerContext, KnowledgeAnswer, RetrievedPassage } from '../answering/answer-types.ts'
import { relatedPassages, withRelatedLead, type RelatedPassage } from '../answering/related-passages.ts'
import { decodeSpanVectors } from '../answering/span-vectors.ts'
import type { HybridHit } from '../retrieval/hybrid-search.ts'
import { expandQuery } from '../retrieval/query-expansion.ts'
import { getAssistantOfBody } from '../assistants/assistant-service.ts'
import { authorizeToolUse } from '../assistants/tool-access.ts'
import { chooseQueryModel, readAssistantModels } from './knowledge-models.ts'
import { recordUnanswered } from './unanswered-questions.ts'
import type { ChunkMetadata, VectorStoreKind } from '../vector-store/knowledge-vector-store.ts'

/**
 * Chunks retrieved per question: enough for the answerer to choose from, few enough to stay fast. 12 rather than 8: the
 * answering passage is among the first 12 for 0.93 of the evaluation's tuning questions, the first 8 for 0.89.
 */
export const DEFAULT_TOP_K = 12

export interface KnowledgeQueryInput {
  assistantId: string
  question: string
  /** Chunks to retrieve (1..20). */
  topK?: number
}

export interface KnowledgeQueryResult extends KnowledgeAnswer {
  assistantId: string
  /** On a decline, the passages closest to the question, offered as not an answer (related-passages.ts); else empty. */
  related: RelatedPassage[]
  models: { embeddings: string; answerer: string; vectorStore: VectorStoreKind }
}

/** A retrieved chunk as a passage the answerer can quote. */
export function toPassage({ document: doc, score, lexicalCoverage }: HybridHit): RetrievedPassage {
  // Read back from the store's JSON, unchecked: a page may come back as null and a heading path may be missing.
  const meta = doc.metadata as Omit<ChunkMetadata, 'page' | 'headingPath'> & {
    page?: number | null
    headingPath?: string[]
  }
  const spans = decodeSpanVectors(meta.spanVectors)
  return {
    chunkId: doc.id ?? '',
    documentId: meta.documentId,
    documentName: meta.documentName,
    ...(meta.page !== undefined && meta.page !== null ? { page: meta.page } : {}),
    headingPath: meta.headingPath ?? [],
    startOffset: meta.startOffset,
    endOffset: meta.endOffset,
    content: doc.pageContent,
    score,
    lexicalCoverage,
    ...(spans ? { spans } : {}),
  }
}

/**
 * Calls a model: a provider's (over the network) holding no transaction, an in-process one as it is.
 * @param model - the embeddings or the answerer
 */
export function callModel<T>(uow: UnitOfWork, model: { inProcess?: boolean }, call: () => Promise<T>): Promise<T> {
  return model.inProcess ? call() : uow.release(call)
}

/**
 * Retrieves an assistant's passages for a question, best first, searched with the model the assistant's vectors were
 * made with (knowledge-models.ts): during a re-embedding, the previous model's vectors answer until the flip.
 * @param assistantId - an assistant of the unit's tenant (the store is bound to it)
 */
export async function retrievePassages(
  uow: UnitOfWork,
  runtime: AiRuntime,
  assistantId: string,
  question: string,
  k = DEFAULT_TOP_K
) {
  const models = await readAssistantModels(uow, assistantId)
  const { embeddings, fallback } = chooseQueryModel(models?.active ?? null, runtime.embeddings, runtime.embeddingsFor)
  const store = await runtime.stores.open(uow, assistantId, embeddings)
  const vector = await callModel(uow, embeddings, () => embeddings.embedQuery(question))
  const { hits, query } = await store.hybridSearch(vector, await expandQuery(question), k)
  const context: AnswerContext = { query, questionVector: vector }
  return { passages: hits.map(toPassage), context, kind: store.kind, embeddingModel: embeddings.modelId, fallback }
}

/**
 * Answers a question from an assistant's knowledge.
 * @param principal - the caller: the assistant must have the knowledge tool and the caller its scope
 * @throws AppError `validation_error` (`assistantId` not found), 403 when the knowledge tool is not allowed
 */
export async function queryKnowledge(
  uow: UnitOfWork,
  runtime: AiRuntime,
  principal: Principal,
  input: KnowledgeQueryInput
): Promise<KnowledgeQueryResult> {
  const started = performance.now()
  const assistant = await getAssistantOfBody(uow, input.assistantId)
  authorizeToolUse(assistant, 'knowledge', principal)
  const { passages, context, kind, embeddingModel } = await retrievePassages(
    uow,
    runtime,
    assistant.id,
    input.question,
    input.topK ?? DEFAULT_TOP_K
  )
  const answer = await callModel(uow, runtime.answerer, () =>
    runtime.answerer.answer(input.question, passages, context)
  )
  await uow.tx.knowledgeQuery.create({
    data: {
      id: newId('knowledgeQuery'),
      tenantId: uow.tenantId,
      assistantId: assistant.id,
      answered: answer.answered,
      topScore: passages[0]?.score ?? 0,
      citationCount: answer.citations.length,
      latencyMs: Math.round(performance.now() - started),
      chatLatencyMs: answer.chatUsage?.latencyMs ?? null,
      chatInputTokens: answer.chatUsage?.inputTokens ?? null,
      chatOutputTokens: answer.chatUsage?.outputTokens ?? null,
      chatFallback: answer.decision.chatFallback ?? null,
    },
  })
  const question = input.question
  await recordUnanswered(uow, { assistantId: assistant.id, question, answer, passages, context, embeddingModel })
  const related = answer.answered ? [] : relatedPassages(passages, context)
  // `models.embeddings` names the model the question was searched with: the configured one, not the knowledge's,
  // when the knowledge's cannot run in this process (retrievePassages' `fallback`).
  const { chatUsage: _metered, ...answered } = answer
  return {
    assistantId: assistant.id,
    ...answered,
    answer: withRelatedLead(answer.answer, related),
    related,
    models: { embeddings: embeddingModel, answerer: runtime.answerer.id, vectorStore: kind },
  }
}
