/**
 * @module What both knowledge vector stores share: the scope every store instance is bound to (one tenant's unit of
 * work, one assistant, one embedding model), the filter they accept, and how a stored chunk's metadata looks. A
 * store is built per unit of work, so every query it makes runs in the tenant's transaction under row-level
 * security, and its tenant and assistant filter is fixed at construction: no caller-supplied filter can widen it.
 */
import type { EmbeddingsInterface } from '@langchain/core/embeddings'
import type { VectorStore } from '@langchain/core/vectorstores'
import type { Tx } from '../../../infra/db.ts'
import type { HybridHit } from '../retrieval/hybrid-search.ts'
import type { QueryTerm } from '../retrieval/query-expansion.ts'

export const VECTOR_STORE_KINDS = ['pgvector', 'postgres'] as const
export type VectorStoreKind = (typeof VECTOR_STORE_KINDS)[number]

/** What a store instance may see and write. */
export interface KnowledgeStoreScope {
  /** The tenant's unit-of-work transaction. */
  tx: Tx
  tenantId: string
  assistantId: string
  /** Vectors of other models are never compared with this one's (they have other dimensions and meaning). */
  embeddingModel: string
}

/** Narrows a search (never widens it): only chunks of these documents. */
export interface KnowledgeFilter {
  documentId?: string | { in: string[] }
}

/** The metadata every stored chunk carries (documents to add must provide the first group). */
export interface ChunkMetadata {
  documentId: string
  documentName: string
  version: number
  ordinal: number
  page?: number
  headingPath: string[]
  startOffset: number
  endOffset: number
  /**
   * The chunk's quotable spans and their vectors (span-vectors.ts), for answering by meaning; absent for the lexical
   * model and for chunks indexed before spans were stored.
   */
  spanVectors?: string
  /** Stamped by the store. */
  assistantId?: string
  embeddingModel?: string
}

/** Embeddings that name their model, so stored vectors can be matched to the model that made them. */
export interface KnowledgeEmbeddings extends EmbeddingsInterface {
  readonly modelId: string
  /** Computed in process: no provider is called, so a unit of work need not release its transaction around it. */
  readonly inProcess?: boolean
  /**
   * Whether a chunk's sentences are embedded too, for the answerer to choose its quote by meaning (quotable-spans.ts):
   * models that have learnt meaning. The lexical model's sentence vectors would only repeat its words.
   */
  readonly embedsSpans?: boolean
}

/** What a hybrid search found, and the question's words weighted by this knowledge's term statistics. */
export interface HybridResult {
  hits: HybridHit[]
  /** The query weighted by idf; without statistics (a store searched in the database), as given. */
  query: QueryTerm[]
}

/** A store bound to a scope. `delete` takes `{ filter: { documentId } }` or `{}` for the whole assistant. */
export type KnowledgeVectorStore = VectorStore & {
  readonly kind: VectorStoreKind
  /** Vector and BM25 rankings fused (retrieval/hybrid-search.ts), of the scope's assistant only. */
  hybridSearch(vector: number[], query: QueryTerm[], k: number, filter?: KnowledgeFilter): Promise<HybridResult>
}

/** The document ids a filter names, or undefined for all. */
export const filterDocumentIds = (filter?: KnowledgeFilter): string[] | undefined =>
  filter?.documentId === undefined
    ? undefined
    : typeof filter.documentId === 'string'
      ? [filter.documentId]
      : filter.documentId.in
