/**
 * @module Which vector store knowledge lives in. `auto` (the default) uses pgvector when the database has the store's
 * table — the migration creates it only where the extension is available — and the plain-PostgreSQL store otherwise;
 * `pgvector` or `postgres` force one. The choice is made once per process, from inside a transaction (the embedded
 * database serves one connection at a time, so asking on another connection while a request holds it would wait for
 * ever). Here, at the edge, because the pgvector store is LangChain's integration (issue 79, item 3).
 */
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import type { KnowledgeStores, VectorStoreSetting } from '../../domain/ai/vector-store/knowledge-stores.ts'
import type { KnowledgeEmbeddings, VectorStoreKind } from '../../domain/ai/vector-store/knowledge-vector-store.ts'
import { PostgresVectorStore, type LoadedChunks } from '../../domain/ai/vector-store/postgres-vector-store.ts'
import { createVectorIndexCache, type VectorIndexCache } from '../../domain/ai/vector-store/vector-index-cache.ts'
import { PGVECTOR_SCHEMA, PGVECTOR_TABLE, TenantPGVectorStore } from './pgvector-store.ts'

interface Resolved {
  kind: VectorStoreKind
  /** Schema of the vector extension (pgvector only). */
  extensionSchema?: string
}

/** Whether the database has the pgvector store, and the schema of the extension. */
async function probePgvector(uow: UnitOfWork): Promise<{ present: boolean; extensionSchema?: string }> {
  const [row] = await uow.tx.$queryRaw<Array<{ present: boolean; schema: string | null }>>`
    SELECT to_regclass(${`${PGVECTOR_SCHEMA}.${PGVECTOR_TABLE}`}) IS NOT NULL AS present,
           (SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
             WHERE e.extname = 'vector') AS schema`
  return { present: Boolean(row?.present && row.schema), extensionSchema: row?.schema ?? undefined }
}

/**
 * Creates the store selector.
 * @param setting - AI_VECTOR_STORE
 * @param embeddings - the configured embedding model
 * @param cache - the stores' cache of loaded assistants (one per process)
 */
export function createKnowledgeStores(
  setting: VectorStoreSetting,
  embeddings: KnowledgeEmbeddings,
  cache: VectorIndexCache<LoadedChunks> = createVectorIndexCache<LoadedChunks>()
): KnowledgeStores {
  let resolved: Promise<Resolved> | undefined

  async function resolve(uow: UnitOfWork): Promise<Resolved> {
    if (setting === 'postgres') return { kind: 'postgres' }
    const probe = await probePgvector(uow)
    if (probe.present) return { kind: 'pgvector', extensionSchema: probe.extensionSchema }
    if (setting === 'pgvector') {
      throw new Error(
        `AI_VECTOR_STORE=pgvector but ${PGVECTOR_SCHEMA}.${PGVECTOR_TABLE} does not exist: install pgvector and run SELECT knowledge_enable_pgvector()`
      )
    }
    return { kind: 'postgres' }
  }

  async function current(uow: UnitOfWork): Promise<Resolved> {
    resolved ??= resolve(uow)
    try {
      return await resolved
    } catch (error) {
      // A failed probe (a rolled-back transaction, a misconfiguration) is asked again next time, not remembered.
      resolved = undefined
      throw error
    }
  }

  return {
    async kind(uow) {
      return (await current(uow)).kind
    },
    async open(uow, assistantId, model = embeddings) {
      const store = await current(uow)
      const scope = { tx: uow.tx, tenantId: uow.tenantId, assistantId, embeddingModel: model.modelId }
      return store.kind === 'pgvector'
        ? new TenantPGVectorStore(model, scope, store.extensionSchema!, cache)
        : new PostgresVectorStore(model, scope, cache)
    },
    async removeModelVectors(uow, assistantId, which) {
      const { tx, tenantId } = uow
      const store = await current(uow)
      // Either store's table: the plain one may keep rows from before pgvector was installed.
      const plain =
        'except' in which
          ? await tx.$executeRaw`DELETE FROM knowledge_chunks WHERE tenant_id = ${tenantId}
              AND assistant_id = ${assistantId} AND embedding_model <> ${which.except}`
          : await tx.$executeRaw`DELETE FROM knowledge_chunks WHERE tenant_id = ${tenantId}
              AND assistant_id = ${assistantId} AND embedding_model = ${which.model}
              AND (${which.documentId ?? null}::text IS NULL OR document_id = ${which.documentId ?? null})`
      if (store.kind !== 'pgvector') return plain
      const vectors =
        'except' in which
          ? await tx.$executeRaw`DELETE FROM ai_vectors.knowledge_vectors WHERE tenant_id = ${tenantId}
              AND metadata->>'assistantId' = ${assistantId} AND metadata->>'embeddingModel' <> ${which.except}`
          : await tx.$executeRaw`DELETE FROM ai_vectors.knowledge_vectors WHERE tenant_id = ${tenantId}
              AND metadata->>'assistantId' = ${assistantId} AND metadata->>'embeddingModel' = ${which.model}
              AND (${which.documentId ?? null}::text IS NULL OR document_id = ${which.documentId ?? null})`
      return plain + vectors
    },
  }
}
