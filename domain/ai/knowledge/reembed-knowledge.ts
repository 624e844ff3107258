/**
 * @module Re-embedding an assistant's knowledge with another model (docs/ai.md, "Changing the embedding model"), as
 * the re-embedding workflow's activities run it: list the indexed documents without vectors of the target model,
 * embed each again beside its old vectors (no transaction held while the model runs), and flip the assistant to the
 * target in one transaction that removes the other models' vectors. Each step is idempotent: a document is marked
 * with the target model in the transaction that stores its vectors, so a retry finds it done, and the flip of an
 * assistant already on the target does nothing.
 */
import type { Db } from '../../../infra/db.ts'
import { runInUnitOfWork, type UnitOfWork } from '../../../infra/unit-of-work.ts'
import type {
  DocumentReembedOutcome,
  KnowledgeReembedInput,
  ReembedCompletion,
  ReembedListing,
} from '../../../common/knowledge/knowledge-reembed-contract.ts'
import { newId } from '../../ids.ts'
import type { AiRuntime } from '../ai-runtime.ts'
import { embedVersion, markDocumentFailed, type EmbeddedVersion } from './index-document.ts'
import { KnowledgeParseError } from './knowledge-errors.ts'
import { readAssistantModels } from './knowledge-models.ts'

/** Long enough to write thousands of chunks, or to remove an assistant's old vectors, on the embedded database. */
const WRITE_TIMEOUT_MS = 120_000

/** The assistant's indexed documents that lack vectors of `toModel`, oldest first. */
async function documentsWithout({ tx, tenantId }: UnitOfWork, assistantId: string, toModel: string) {
  const rows = await tx.$queryRaw<Array<{ id: string }>>`
    SELECT id FROM knowledge_documents
    WHERE tenant_id = ${tenantId} AND assistant_id = ${assistantId} AND status = 'READY'
      AND embedding_model IS DISTINCT FROM ${toModel} AND reembedded_model IS DISTINCT FROM ${toModel}
    ORDER BY created_at, id`
  return rows.map((row) => row.id)
}

/**
 * What is left to embed, or why nothing is (the assistant is on the target already, another target was recorded
 * since, or it was deleted).
 */
export async function listDocumentsToReembed(db: Db, input: KnowledgeReembedInput): Promise<ReembedListing> {
  return runInUnitOfWork(db, input.tenantId, async (uow): Promise<ReembedListing> => {
    const models = await readAssistantModels(uow, input.assistantId)
    if (!models) return { status: 'GONE' }
    if (models.active === input.toModel) return { status: 'CURRENT' }
    if (models.reembedTo !== input.toModel) return { status: 'SUPERSEDED' }
    const documentIds = await documentsWithout(uow, input.assistantId, input.toModel)
    const [counted] = await uow.tx.$queryRaw<Array<{ n: number }>>`
      SELECT count(*)::int AS n FROM knowledge_documents
      WHERE tenant_id = ${uow.tenantId} AND assistant_id = ${input.assistantId} AND status = 'READY'`
    return { status: 'LISTED', documentIds, alreadyDone: (counted?.n ?? 0) - documentIds.length }
  })
}

interface LockedDocument {
  version: number
  status: string
  embedding_model: string | null
  reembedded_model: string | null
}

/** Locks a document's row and reads what decides whether it needs the target's vectors. */
async function lockDocument({ tx, tenantId }: UnitOfWork, documentId: string) {
  const [row] = await tx.$queryRaw<LockedDocument[]>`
    SELECT version, status::text AS status, embedding_model, reembedded_model FROM knowledge_documents
    WHERE id = ${documentId} AND tenant_id = ${tenantId} FOR UPDATE`
  return row
}

const hasModel = (row: Pick<LockedDocument, 'embedding_model' | 'reembedded_model'>, model: string) =>
  row.embedding_model === model || row.reembedded_model === model

/**
 * Embeds one document's current version with the target model, beside its old vectors.
 * @throws Error when this process cannot run the target model (retried: another worker may)
 */
export async function reembedDocument(
  db: Db,
  runtime: AiRuntime,
  input: KnowledgeReembedInput & { documentId: string }
): Promise<DocumentReembedOutcome> {
  const embeddings = runtime.embeddingsFor(input.toModel)
  if (!embeddings) throw new Error(`this worker cannot run the embedding model ${input.toModel} (docs/ai.md)`)
  const document = await runInUnitOfWork(db, input.tenantId, ({ tx, tenantId }) =>
    tx.knowledgeDocument.findFirst({
      where: { id: input.documentId, tenantId },
      select: {
        name: true,
        mediaType: true,
        content: true,
        version: true,
        status: true,
        embeddingModel: true,
        reembeddedModel: true,
      },
    })
  )
  // Replaced meanwhile (its indexing workflow embeds the new version), failed, or deleted: nothing to embed.
  if (!document || document.status !== 'READY') return 'SKIPPED'
  if (hasModel({ embedding_model: document.embeddingModel, reembedded_model: document.reembeddedModel }, input.toModel))
    return 'ALREADY'

  const target = { documentId: input.documentId, version: document.version }
  let embedded: EmbeddedVersion
  try {
    embedded = await embedVersion(document, { tenantId: input.tenantId, ...target }, embeddings, runtime)
  } catch (error) {
    // Indexed once, unparseable now (a parser changed): as indexing would, the document is marked FAILED.
    if (!(error instanceof KnowledgeParseError)) throw error
    await markDocumentFailed(db, { tenantId: input.tenantId, ...target }, error.message)
    return 'SKIPPED'
  }

  return runInUnitOfWork(
    db,
    input.tenantId,
    async (uow): Promise<DocumentReembedOutcome> => {
      const row = await lockDocument(uow, input.documentId)
      if (!row || row.version !== document.version || row.status !== 'READY') return 'SKIPPED'
      if (hasModel(row, input.toModel)) return 'ALREADY'
      // Nothing of the target's should be there (indexing replaces every model's vectors); removed all the same.
      await runtime.stores.removeModelVectors(uow, input.assistantId, {
        model: input.toModel,
        documentId: input.documentId,
      })
      const store = await runtime.stores.open(uow, input.assistantId, embeddings)
      const { vectors, docs } = embedded
      await store.addVectors(vectors, docs, { ids: docs.map(() => newId('knowledgeChunk')) })
      await uow.tx.knowledgeDocument.update({
        where: { id: input.documentId },
        data: { reembeddedModel: input.toModel },
      })
      return 'EMBEDDED'
    },
    { timeoutMs: WRITE_TIMEOUT_MS, maxWaitMs: 30_000 }
  )
}

/**
 * Flips the assistant to the target model once every indexed document has its vectors, and removes the other
 * models' vectors, in one transaction: a query sees either the old model's complete knowledge or the new one's.
 */
export async function completeReembed(
  db: Db,
  runtime: AiRuntime,
  input: KnowledgeReembedInput
): Promise<ReembedCompletion> {
  return runInUnitOfWork(
    db,
    input.tenantId,
    async (uow): Promise<ReembedCompletion> => {
      const { tx, tenantId } = uow
      // The assistant's row first: a second flip (a retried activity) waits for this one and finds it done.
      const [locked] = await tx.$queryRaw<Array<{ active: string | null; reembed_to: string | null }>>`
        SELECT knowledge_embedding_model AS active, knowledge_reembed_model AS reembed_to FROM assistants
        WHERE id = ${input.assistantId} AND tenant_id = ${tenantId} FOR UPDATE`
      if (!locked) return { status: 'GONE' }
      if (locked.active !== input.toModel && locked.reembed_to !== input.toModel) return { status: 'SUPERSEDED' }
      const missing = await documentsWithout(uow, input.assistantId, input.toModel)
      if (missing.length > 0) return { status: 'PENDING', documentIds: missing }
      await tx.$executeRaw`
        UPDATE assistants SET knowledge_embedding_model = ${input.toModel}, knowledge_reembed_model = NULL
        WHERE id = ${input.assistantId} AND tenant_id = ${tenantId}`
      await tx.$executeRaw`
        UPDATE knowledge_documents SET embedding_model = ${input.toModel}, reembedded_model = NULL
        WHERE tenant_id = ${tenantId} AND assistant_id = ${input.assistantId} AND reembedded_model = ${input.toModel}`
      const removedVectors = await runtime.stores.removeModelVectors(uow, input.assistantId, { except: input.toModel })
      const [counted] = await tx.$queryRaw<Array<{ n: number }>>`
        SELECT count(*)::int AS n FROM knowledge_documents
        WHERE tenant_id = ${tenantId} AND assistant_id = ${input.assistantId} AND status = 'READY'`
      return { status: 'FLIPPED', documents: counted?.n ?? 0, removedVectors }
    },
    { timeoutMs: WRITE_TIMEOUT_MS, maxWaitMs: 30_000 }
  )
}
