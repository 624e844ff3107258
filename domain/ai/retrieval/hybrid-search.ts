/**
 * @module Hybrid retrieval over an assistant's loaded chunks: the vector ranking (exact cosine) and the BM25 ranking
 * of the expanded question, fused by reciprocal rank. Each hit keeps its cosine (the score the API has always
 * reported) and carries the share of the question its chunk covers lexically, expansions counted, which the
 * answerer calibrates its decision on.
 */
import { Document, type DocumentInterface } from '@langchain/core/documents'
import { SENTENCE_MODEL_ID } from '../embeddings/sentence-model.ts'
import type { LoadedChunks } from '../vector-store/loaded-chunks.ts'
import type { Bm25Index } from './bm25-index.ts'
import type { QueryTerm } from './query-expansion.ts'
import { reciprocalRankFusion } from './rank-fusion.ts'

/** Candidates each ranker contributes to the fusion. */
export const FUSION_DEPTH = 50

/**
 * The vector ranking's weight in the fusion (the word ranking's is 1), swept on the tuning set only
 * (eval/tune-fusion.ts, docs/benchmarks.md). The offline lexical embeddings see the same words BM25 does, without
 * the expansions, so they mostly add noise: recall@5 was 0.636 at weight 0, 0.602 at 0.3 and 0.534 at 1; 0.3 keeps
 * what only they have (character n-grams meet a misspelt word). The sentence model has learnt meaning BM25 lacks and
 * leads, BM25 only breaking its near-ties: recall@5 0.636 at 0, 0.784 at 1, 0.807 at 1.5, 0.830 at 4, 0.818 at 8,
 * 0.841 at 20 (with the most answers and declines) and 0.830 at 1,000. A provider's embeddings weigh as much as the
 * words.
 */
export const vectorWeightFor = (embeddingModel: string) =>
  embeddingModel.startsWith('local-lexical') ? 0.3 : embeddingModel === SENTENCE_MODEL_ID ? 20 : 1

export interface HybridHit {
  document: DocumentInterface
  /** Cosine similarity of the chunk to the question's vector. */
  score: number
  /** Share of the question's idf-weighted words the chunk has in some form (0..1). */
  lexicalCoverage: number
}

/**
 * The `k` best chunks for a question.
 * @param vector - the question's embedding
 * @param query - the question's expanded terms
 * @param options - `documentIds`: only chunks of these documents; `vectorWeight`: the vector ranking's weight
 */
export function hybridSearchChunks(
  loaded: LoadedChunks,
  vector: number[],
  query: QueryTerm[],
  k: number,
  options: { documentIds?: string[]; vectorWeight?: number } = {}
): HybridHit[] {
  const { documentIds, vectorWeight = 1 } = options
  const { index, lexical } = loaded
  if (index.size === 0) return []
  let norm = 0
  for (const v of vector) norm += v * v
  const unit = norm > 0 && Math.abs(norm - 1) > 1e-6 ? vector.map((v) => v / Math.sqrt(norm)) : vector
  const allowedDocs = documentIds ? new Set(documentIds) : undefined
  const depth = Math.max(FUSION_DEPTH, k)
  const byVector = index.search(unit, depth, allowedDocs)
  const rowOf = new Map<string, number>()
  for (let row = 0; row < index.size; row++) rowOf.set(index.idAt(row), row)
  const byWords = lexical.search(
    query,
    depth,
    allowedDocs ? (row) => allowedDocs.has(index.documentIdAt(row)) : undefined
  )
  const coverage = new Map(byWords.map((hit) => [index.idAt(hit.position), hit.coverage]))
  const cosine = new Map(byVector.map((hit) => [hit.id, hit.score]))
  const fused = reciprocalRankFusion(
    [byVector.map((hit) => hit.id), byWords.map((hit) => index.idAt(hit.position))],
    [vectorWeight, 1]
  )
  return fused.slice(0, k).map(({ id }) => {
    const chunk = loaded.chunks.get(id)!
    return {
      // A copy: callers may change the metadata of what they get without touching the cache.
      document: new Document({ id, pageContent: chunk.content, metadata: structuredClone(chunk.metadata) }),
      score: cosine.get(id) ?? index.dot(rowOf.get(id)!, unit),
      lexicalCoverage: coverage.get(id) ?? 0,
    }
  })
}

/**
 * The question's words weighted by how rare each is in the assistant's knowledge (its idf; a word the knowledge
 * never uses in any form weighs the most), for the answerer.
 */
export const weightedQuery = (lexical: Bm25Index, query: QueryTerm[]): QueryTerm[] =>
  query.map((term) => ({
    ...term,
    weight: term.weight * lexical.idfOfTerm(term),
  }))

/**
 * A store's answer to a hybrid search over its loaded chunks: the fused hits, the vector ranking weighed for the
 * embedding model ({@link vectorWeightFor}), and the question weighted by the knowledge's term statistics.
 */
export function hybridSearchLoaded(
  loaded: LoadedChunks,
  vector: number[],
  query: QueryTerm[],
  k: number,
  options: { embeddingModel: string; documentIds?: string[]; vectorWeight?: number }
): { hits: HybridHit[]; query: QueryTerm[] } {
  return {
    hits: hybridSearchChunks(loaded, vector, query, k, {
      documentIds: options.documentIds,
      // An explicit weight only from the evaluation's sweep on the tuning set (eval/tune-fusion.ts).
      vectorWeight: options.vectorWeight ?? vectorWeightFor(options.embeddingModel),
    }),
    query: weightedQuery(loaded.lexical, query),
  }
}
