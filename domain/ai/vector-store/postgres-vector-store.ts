/**
 * @module The fallback vector store, for PostgreSQL without pgvector (CI's PostgreSQL 15, most managed servers
 * without the extension): a LangChain VectorStore over the knowledge_chunks table. Embeddings are stored as
 * float32 bytes; a search loads the assistant's chunks inside the tenant's transaction (tenant by row-level
 * security and by WHERE, assistant and model by WHERE) and ranks them by exact cosine in process. The loaded chunks
 * are cached per process and revalidated on every search by a fingerprint of the rows (count and a sum of id
 * hashes), read in the same transaction, so a search never returns a chunk that was deleted or misses a new one,
 * and a search on an unchanged assistant costs one aggregate query over its chunk ids plus the in-process scan.
 */
import { Document, type DocumentInterface } from '@langchain/core/documents'
import { VectorStore } from '@langchain/core/vectorstores'
import type { Prisma } from '../../../generated/prisma/client.ts'
import { newId } from '../../ids.ts'
import { decodeVectorInto, encodeVector, ExactVectorIndex } from './exact-vector-index.ts'
import {
  filterDocumentIds,
  type ChunkMetadata,
  type KnowledgeEmbeddings,
  type KnowledgeFilter,
  type KnowledgeStoreScope,
  type VectorStoreKind,
} from './knowledge-vector-store.ts'
import type { VectorIndexCache } from './vector-index-cache.ts'

/** An assistant's chunks as loaded: the index, and each chunk's text and metadata by id. */
export interface LoadedChunks {
  index: ExactVectorIndex
  chunks: Map<string, { content: string; metadata: Record<string, unknown> }>
  /** Vectors plus (roughly) text, for the cache's budget. */
  bytes: number
}

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
  override async addVectors(vectors: number[][], documents: DocumentInterface[], options?: { ids?: string[] }): Promise<string[]> {
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
    for (let i = 0; i < data.length; i += 500) await this.scope.tx.knowledgeChunk.createMany({ data: data.slice(i, i + 500) })
    return ids
  }

  /** The assistant's current chunks: the cached ones when the rows have not changed since they were loaded. */
  private async load(): Promise<LoadedChunks> {
    const { tx, tenantId, assistantId, embeddingModel } = this.scope
    const [stamp] = await tx.$queryRaw<Array<{ n: number; h: string }>>`
      SELECT count(*)::int AS n, coalesce(sum(hashtext(id)::bigint), 0)::text AS h
      FROM knowledge_chunks
      WHERE tenant_id = ${tenantId} AND assistant_id = ${assistantId} AND embedding_model = ${embeddingModel}`
    const fingerprint = `${stamp?.n ?? 0}:${stamp?.h ?? 0}`
    const key = `${tenantId}/${assistantId}/${embeddingModel}`
    const cached = this.cache.get(key, fingerprint)
    if (cached) return cached

    const rows = await tx.knowledgeChunk.findMany({
      where: this.where,
      select: { id: true, documentId: true, embedding: true, content: true, metadata: true },
      orderBy: { id: 'asc' },
    })
    const dimensions = rows[0] ? rows[0].embedding.byteLength / 4 : 0
    const matrix = new Float32Array(rows.length * dimensions)
    for (const [i, row] of rows.entries()) {
      if (row.embedding.byteLength !== dimensions * 4) throw new Error(`chunk ${row.id} has a vector of another size`)
      decodeVectorInto(row.embedding, matrix, i * dimensions)
    }
    const index = new ExactVectorIndex(dimensions, rows.map((r) => r.id), rows.map((r) => r.documentId), matrix)
    const chunks = new Map(rows.map((r) => [r.id, { content: r.content, metadata: r.metadata as Record<string, unknown> }]))
    const textBytes = rows.reduce((sum, r) => sum + 2 * r.content.length + 512, 0)
    const loaded = { index, chunks, bytes: index.bytes + textBytes }
    this.cache.set(key, fingerprint, loaded)
    return loaded
  }

  /** The `k` chunks nearest to `query` (cosine similarity, higher is closer), of the scope's assistant only. */
  override async similaritySearchVectorWithScore(query: number[], k: number, filter?: KnowledgeFilter): Promise<[DocumentInterface, number][]> {
    const { index, chunks } = await this.load()
    if (index.size === 0) return []
    const documentIds = filterDocumentIds(filter)
    const hits = index.search(query, k, documentIds ? new Set(documentIds) : undefined)
    return hits.map(({ id, score }): [DocumentInterface, number] => {
      const chunk = chunks.get(id)!
      // A copy: callers may change the metadata of what they get without touching the cache.
      return [new Document({ id, pageContent: chunk.content, metadata: structuredClone(chunk.metadata) }), score]
    })
  }

  /** Deletes the chunks of one document (`{ filter: { documentId } }`), or all the assistant's (`{}`). */
  override async delete(params: { filter?: KnowledgeFilter } = {}): Promise<void> {
    const documentIds = filterDocumentIds(params.filter)
    await this.scope.tx.knowledgeChunk.deleteMany({
      where: { tenantId: this.scope.tenantId, assistantId: this.scope.assistantId, ...(documentIds ? { documentId: { in: documentIds } } : {}) },
    })
  }
}
