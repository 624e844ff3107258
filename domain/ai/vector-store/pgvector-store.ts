/**
 * @module The pgvector store: LangChain's PGVectorStore (@langchain/community) over ai_vectors.knowledge_vectors,
 * run inside the tenant's unit of work through a transaction-backed pool. This subclass only pins the scope:
 * every stored chunk is stamped with its assistant and embedding model, and every search and delete is filtered by
 * them (the tenant by row-level security, the table's tenant_id being filled from the transaction's tenant). The
 * search is exact (`<=>` cosine distance over the assistant's rows, found through the scope index): per-assistant
 * knowledge is thousands of chunks, where an approximate index would only lose recall under the filter.
 */
import type { DocumentInterface } from '@langchain/core/documents'
import { PGVectorStore } from '@langchain/community/vectorstores/pgvector'
import {
  filterDocumentIds,
  type KnowledgeEmbeddings,
  type KnowledgeFilter,
  type KnowledgeStoreScope,
  type VectorStoreKind,
} from './knowledge-vector-store.ts'
import { transactionPool } from './tx-pool.ts'

export const PGVECTOR_SCHEMA = 'ai_vectors'
export const PGVECTOR_TABLE = 'knowledge_vectors'

/** PGVectorStore's metadata filter, as far as this store uses it. */
type MetadataFilter = Record<string, string | { in: string[] }>

export class TenantPGVectorStore extends PGVectorStore {
  readonly kind: VectorStoreKind = 'pgvector'
  private readonly scope: KnowledgeStoreScope

  /**
   * @param extensionSchemaName - the schema the vector extension lives in, so its operators resolve whatever the
   *   search path
   */
  constructor(embeddings: KnowledgeEmbeddings, scope: KnowledgeStoreScope, extensionSchemaName: string) {
    super(embeddings, {
      pool: transactionPool(scope.tx),
      schemaName: PGVECTOR_SCHEMA,
      tableName: PGVECTOR_TABLE,
      extensionSchemaName,
      // The table, its tenant column and its row-level security come from the migration, not from LangChain.
      skipInitializationCheck: true,
      distanceStrategy: 'cosine',
      columns: { idColumnName: 'id', contentColumnName: 'text', metadataColumnName: 'metadata', vectorColumnName: 'embedding' },
    })
    this.scope = scope
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

  override async addVectors(vectors: number[][], documents: DocumentInterface[], options?: { ids?: string[] }): Promise<void> {
    const stamped = documents.map((doc) => ({
      ...doc,
      metadata: { ...doc.metadata, assistantId: this.scope.assistantId, embeddingModel: this.scope.embeddingModel },
    }))
    await super.addVectors(vectors, stamped, options)
  }

  /** The `k` chunks nearest to `query`, scored by cosine similarity (1 − cosine distance), like the fallback store. */
  override async similaritySearchVectorWithScore(query: number[], k: number, filter?: KnowledgeFilter): Promise<[DocumentInterface, number][]> {
    const results = await super.similaritySearchVectorWithScore(query, k, this.scopeFilter(filter))
    return results.map(([doc, distance]) => [doc, 1 - distance])
  }

  /** Deletes the chunks of one document (`{ filter: { documentId } }`), or all the assistant's (`{}`). */
  override async delete(params: { filter?: KnowledgeFilter } = {}): Promise<void> {
    const documentIds = filterDocumentIds(params.filter)
    // Whatever model embedded them: a deleted document leaves no vectors behind.
    await super.delete({ filter: { assistantId: this.scope.assistantId, ...(documentIds ? { documentId: { in: documentIds } } : {}) } })
  }
}
