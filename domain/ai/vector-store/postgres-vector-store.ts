/**
 * @module The fallback vector store, for PostgreSQL without pgvector (CI's PostgreSQL 15, most managed servers
 * without the extension): a LangChain VectorStore over the knowledge_chunks table. Embeddings are stored as
 * float32 bytes; a search loads the assistant's chunks inside the tenant's transaction (tenant by row-level
 * security and by WHERE, assistant and model by WHERE) and ranks them by exact cosine in process (loaded-chunks.ts).
 * The loaded chunks are cached per process and revalidated on every search by the assistant's index version
 * (index-version.ts: stamped by triggers on every change, read in the same transaction), so a search never returns
 * a chunk that was deleted or misses a new one, and a search on an unchanged assistant costs one primary-key lookup
 * plus the in-process scan.
 */
import type { DocumentInterface } from '@langchain/core/documents'
import { VectorStore } from '@langchain/core/vectorstores'
import type { Prisma } from '../../../generated/prisma/client.ts'
import { newId } from '../../ids.ts'
import { decodeVectorInto, encodeVector } from './exact-vector-index.ts'
import { hybridSearchLoaded } from '../retrieval/hybrid-search.ts'
import type { QueryTerm } from '../retrieval/query-expansion.ts'
import { readIndexVersion } from './index-version.ts'
import {
  filterDocumentIds,
  type ChunkMetadata,
  type KnowledgeEmbeddings,
  type HybridResult,
  type KnowledgeFilter,
  type KnowledgeStoreScope,
  type VectorStoreKind,
} from './knowledge-vector-store.ts'
import { cachedChunks, loadChunks, searchChunks, type LoadedChunks } from './loaded-chunks.ts'
import type { VectorIndexCache } from './vector-index-cache.ts'

export type { LoadedChunks } from './loaded-chunks.ts'

export class PostgresVectorStore extends VectorStore {
  declare FilterType: KnowledgeFilter
  readonly kind: VectorStoreKind = 'postgres'
  private readonly scope: KnowledgeStoreScope
  private readonly cache: VectorIndexCache<LoadedChunks>

  constructor(embeddings: KnowledgeEmbeddings, scope: KnowledgeStoreScope, cache: VectorIndexCache<LoadedChunks>) {
    super(embeddings, {})
    this.scope = scope
    this.cache = cache
  }

  _vectorstoreType(): string {
    return 'postgres'
  }

  private get where() {
    const { tenantId, assistantId, embeddingModel } = this.scope
    return { tenantId, assistantId, embeddingModel }
  }

  async addDocuments(documents: DocumentInterface[], options?: { ids?: string[] }): Promise<string[]> {
    const vectors = await this.embeddings.embedDocuments(documents.map((d) => d.pageContent))
    return this.addVectors(vectors, documents, options)
  }

  /**
   * Stores chunks: each document's metadata must name its `documentId` (a document of the scope's assistant;
   * the foreign key and row-level security refuse anything else).
   */
  override async addVectors(
    vectors: number[][],
    documents: DocumentInterface[],
    options?: { ids?: string[] }
  ): Promise<string[]> {
    const ids = options?.ids ?? documents.map((d) => d.id ?? newId('knowledgeChunk'))
    if (ids.length !== documents.length || vectors.length !== documents.length) {
      throw new Error('addVectors needs one vector and one id per document')
    }
    const data = documents.map((doc, i): Prisma.KnowledgeChunkCreateManyInput => {
      const metadata = doc.metadata as ChunkMetadata
      return {
        id: ids[i]!,
        ...this.where,
        documentId: metadata.documentId,
        content: doc.pageContent,
        metadata: { ...metadata, assistantId: this.scope.assistantId, embeddingModel: this.scope.embeddingModel },
        embedding: encodeVector(vectors[i]!),
      }
    })
    // Batches keep each statement's parameters well under PostgreSQL's limit.
    for (let i = 0; i < data.length; i += 500)
      await this.scope.tx.knowledgeChunk.createMany({ data: data.slice(i, i + 500) })
    return ids
  }

  /** The assistant's current chunks: the cached ones when its index version has not changed since they were loaded. */
  private async load(): Promise<LoadedChunks> {
    const { tx, tenantId, assistantId, embeddingModel } = this.scope
    const version = await readIndexVersion(tx, tenantId, assistantId, embeddingModel)
    return cachedChunks(this.cache, `postgres:${tenantId}/${assistantId}/${embeddingModel}`, version, async () => {
      const rows = await tx.knowledgeChunk.findMany({
        where: this.where,
        select: { id: true, documentId: true, embedding: true, content: true, metadata: true },
        orderBy: { id: 'asc' },
      })
      return loadChunks(
        rows.map((row) => ({
          id: row.id,
          documentId: row.documentId,
          content: row.content,
          metadata: row.metadata as Record<string, unknown>,
          dimensions: row.embedding.byteLength / 4,
          fill: (target, offset) => decodeVectorInto(row.embedding, target, offset),
        }))
      )
    })
  }

  /** The `k` chunks nearest to `query` (cosine similarity, higher is closer), of the scope's assistant only. */
  override async similaritySearchVectorWithScore(
    query: number[],
    k: number,
    filter?: KnowledgeFilter
  ): Promise<[DocumentInterface, number][]> {
    return searchChunks(await this.load(), query, k, filterDocumentIds(filter))
  }

  /** The vector and BM25 rankings of the assistant's chunks, fused. */
  async hybridSearch(vector: number[], query: QueryTerm[], k: number, filter?: KnowledgeFilter): Promise<HybridResult> {
    const loaded = await this.load()
    return hybridSearchLoaded(loaded, vector, query, k, {
      embeddingModel: this.scope.embeddingModel,
      documentIds: filterDocumentIds(filter),
    })
  }

  /** Deletes the chunks of one document (`{ filter: { documentId } }`), or all the assistant's (`{}`). */
  override async delete(params: { filter?: KnowledgeFilter } = {}): Promise<void> {
    const documentIds = filterDocumentIds(params.filter)
    await this.scope.tx.knowledgeChunk.deleteMany({
      where: {
        tenantId: this.scope.tenantId,
        assistantId: this.scope.assistantId,
        ...(documentIds ? { documentId: { in: documentIds } } : {}),
      },
    })
  }
}
