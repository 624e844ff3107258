/**
 * @module The pgvector store: LangChain's PGVectorStore (@langchain/community) over ai_vectors.knowledge_vectors,
 * run inside the tenant's unit of work through a transaction-backed pool. This subclass only pins the scope:
 * every stored chunk is stamped with its assistant and embedding model, and every search and delete is filtered by
 * them (the tenant by row-level security and by WHERE, the table's tenant_id being filled from the transaction's
 * tenant). The search is exact. An assistant's vectors that fit the process's cache budget are loaded once (inside
 * the tenant's transaction) and searched in process, revalidated on every search by the assistant's index version
 * (one primary-key lookup, index-version.ts): in the embedded PGlite, pgvector's scan of 5,000 × 768 floats is
 * WebAssembly without SIMD, ~45 ms of CPU per query, against ~1 ms in process. A larger assistant is searched by
 * pgvector (`<=>` cosine distance over the assistant's rows, found through the scope index). No approximate (HNSW)
 * index: on these embeddings it kept a third to a half of the exact top 5 (docs/ai.md).
 */
import type { DocumentInterface } from '@langchain/core/documents'
import { PGVectorStore } from '@langchain/community/vectorstores/pgvector'
import {
  filterDocumentIds,
  type KnowledgeEmbeddings,
  type HybridResult,
  type KnowledgeFilter,
  type KnowledgeStoreScope,
} from '../../domain/ai/vector-store/knowledge-vector-store.ts'
import { hybridSearchLoaded } from '../../domain/ai/retrieval/hybrid-search.ts'
import type { QueryTerm } from '../../domain/ai/retrieval/query-expansion.ts'
import { readIndexVersion } from '../../domain/ai/vector-store/index-version.ts'
import {
  cachedChunks,
  loadChunks,
  searchChunks,
  type LoadedChunks,
} from '../../domain/ai/vector-store/loaded-chunks.ts'
import { transactionPool } from './tx-pool.ts'
import type { VectorIndexCache } from '../../domain/ai/vector-store/vector-index-cache.ts'

export const PGVECTOR_SCHEMA = 'ai_vectors'
export const PGVECTOR_TABLE = 'knowledge_vectors'

/** PGVectorStore's metadata filter, as far as this store uses it. */
type MetadataFilter = Record<string, string | { in: string[] }>

export class TenantPGVectorStore extends PGVectorStore {
  readonly kind = 'pgvector' as const
  private readonly scope: KnowledgeStoreScope
  private readonly cache: VectorIndexCache<LoadedChunks>
  private readonly extensionSchema: string

  /**
   * @param extensionSchemaName - the schema the vector extension lives in, so its operators resolve whatever the
   *   search path
   * @param cache - the process's cache of loaded assistants (shared with the plain store, keys apart)
   */
  constructor(
    embeddings: KnowledgeEmbeddings,
    scope: KnowledgeStoreScope,
    extensionSchemaName: string,
    cache: VectorIndexCache<LoadedChunks>
  ) {
    super(embeddings, {
      pool: transactionPool(scope.tx),
      schemaName: PGVECTOR_SCHEMA,
      tableName: PGVECTOR_TABLE,
      extensionSchemaName,
      // The table, its tenant column and its row-level security come from the migration, not from LangChain.
      skipInitializationCheck: true,
      distanceStrategy: 'cosine',
      columns: {
        idColumnName: 'id',
        contentColumnName: 'text',
        metadataColumnName: 'metadata',
        vectorColumnName: 'embedding',
      },
    })
    this.scope = scope
    this.cache = cache
    this.extensionSchema = extensionSchemaName
  }

  /** The filter every query carries: the scope's assistant and model (the tenant is row-level security's). */
  private scopeFilter(filter?: KnowledgeFilter): MetadataFilter {
    const documentIds = filterDocumentIds(filter)
    return {
      ...(documentIds ? { documentId: { in: documentIds } } : {}),
      assistantId: this.scope.assistantId,
      embeddingModel: this.scope.embeddingModel,
    }
  }

  override async addVectors(
    vectors: number[][],
    documents: DocumentInterface[],
    options?: { ids?: string[] }
  ): Promise<void> {
    const stamped = documents.map((doc) => ({
      ...doc,
      metadata: { ...doc.metadata, assistantId: this.scope.assistantId, embeddingModel: this.scope.embeddingModel },
    }))
    await super.addVectors(vectors, stamped, options)
  }

  /** The assistant's chunks loaded in process, unless they exceed the cache's budget. */
  private async loaded(dimensions: number): Promise<LoadedChunks | undefined> {
    const { tx, tenantId, assistantId, embeddingModel } = this.scope
    const version = await readIndexVersion(tx, tenantId, assistantId, embeddingModel)
    const key = `pgvector:${tenantId}/${assistantId}/${embeddingModel}`
    return (
      this.cache.get(key, version) ??
      ((await this.fitsCache(dimensions))
        ? await cachedChunks(this.cache, key, version, () => this.loadAll())
        : undefined)
    )
  }

  /**
   * The vector and BM25 rankings fused. An assistant too large for the cache is searched by pgvector alone (its
   * chunks' term statistics would have to be loaded too; such an assistant is beyond what docs/ai.md sizes for).
   */
  async hybridSearch(vector: number[], query: QueryTerm[], k: number, filter?: KnowledgeFilter): Promise<HybridResult> {
    const loaded = await this.loaded(vector.length)
    if (!loaded) {
      const hits = await this.similaritySearchVectorWithScore(vector, k, filter)
      return { hits: hits.map(([document, score]) => ({ document, score, lexicalCoverage: 0 })), query }
    }
    return hybridSearchLoaded(loaded, vector, query, k, {
      embeddingModel: this.scope.embeddingModel,
      documentIds: filterDocumentIds(filter),
    })
  }

  /** The `k` chunks nearest to `query`, scored by cosine similarity (1 − cosine distance), like the fallback store. */
  override async similaritySearchVectorWithScore(
    query: number[],
    k: number,
    filter?: KnowledgeFilter
  ): Promise<[DocumentInterface, number][]> {
    const loaded = await this.loaded(query.length)
    if (loaded) return searchChunks(loaded, query, k, filterDocumentIds(filter))
    const results = await super.similaritySearchVectorWithScore(query, k, this.scopeFilter(filter))
    return results.map(([doc, distance]) => [doc, 1 - distance])
  }

  /** Whether the assistant's vectors (of `dimensions` numbers) and texts fit the cache, judged by their count. */
  private async fitsCache(dimensions: number): Promise<boolean> {
    const { tx, tenantId, assistantId, embeddingModel } = this.scope
    const [row] = await tx.$queryRaw<Array<{ n: number }>>`
      SELECT count(*)::int AS n FROM ai_vectors.knowledge_vectors
      WHERE tenant_id = ${tenantId} AND metadata->>'assistantId' = ${assistantId} AND metadata->>'embeddingModel' = ${embeddingModel}`
    // About 2 KB of text and metadata per chunk besides its vector.
    return (row?.n ?? 0) * (dimensions * 4 + 2048) <= this.cache.maxBytes
  }

  /** Every vector of the scope, loaded for the in-process search. */
  private async loadAll(): Promise<LoadedChunks> {
    const { tx, tenantId, assistantId, embeddingModel } = this.scope
    // vector_send: pgvector's binary form (int16 dimensions, int16 unused, big-endian float4s), quicker to load than
    // its text form (a process's first query over 5,000 chunks of 768 in PGlite: 1.7 s against 2.7 s in consecutive
    // `npm run eval` runs at a load average of ~6).
    const rows = await tx.$queryRawUnsafe<
      Array<{ id: string; document_id: string; text: string; metadata: Record<string, unknown>; embedding: Uint8Array }>
    >(
      `SELECT id, document_id, text, metadata, "${this.extensionSchema}".vector_send(embedding) AS embedding FROM ai_vectors.knowledge_vectors
       WHERE tenant_id = $1 AND metadata->>'assistantId' = $2 AND metadata->>'embeddingModel' = $3
       ORDER BY id`,
      tenantId,
      assistantId,
      embeddingModel
    )
    return loadChunks(
      rows.map((row) => {
        const view = new DataView(row.embedding.buffer, row.embedding.byteOffset, row.embedding.byteLength)
        const dimensions = view.getInt16(0, false)
        return {
          id: row.id,
          documentId: row.document_id,
          content: row.text,
          metadata: row.metadata,
          dimensions,
          fill: (target: Float32Array, offset: number) => {
            for (let i = 0; i < dimensions; i++) target[offset + i] = view.getFloat32(4 + 4 * i, false)
          },
        }
      })
    )
  }

  /** Deletes the chunks of one document (`{ filter: { documentId } }`), or all the assistant's (`{}`). */
  override async delete(params: { filter?: KnowledgeFilter } = {}): Promise<void> {
    const documentIds = filterDocumentIds(params.filter)
    // Whatever model embedded them: a deleted document leaves no vectors behind.
    await super.delete({
      filter: { assistantId: this.scope.assistantId, ...(documentIds ? { documentId: { in: documentIds } } : {}) },
    })
  }
}
