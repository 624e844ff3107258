/**
 * @module Which embedding model an assistant's knowledge is searched with (docs/ai.md, "Changing the embedding
 * model"). Every vector carries its model id, and an assistant records the model its queries use
 * (`assistants.knowledge_embedding_model`): the model all its indexed documents have vectors of. A change of the
 * configured model does not change it; the re-embedding workflow embeds every document again under the new model
 * beside the old vectors, then flips it in one transaction. Until then questions are embedded with the old model,
 * which this process must be able to run (the lexical model always, the sentence model when its files are present).
 *
 * The columns are written with SQL, not Prisma's update: an assistant's `updatedAt` is its API resource's, and a
 * re-embedding does not change the resource.
 */
import type { UnitOfWork } from '../../../infra/unit-of-work.ts'
import type { KnowledgeEmbeddings } from '../vector-store/knowledge-vector-store.ts'

/** An assistant's models: the one its queries use (null before anything was indexed) and a re-embedding's target. */
export interface AssistantModels {
  active: string | null
  reembedTo: string | null
}

/** The assistant's models, or undefined when it is not the unit tenant's. */
export async function readAssistantModels(
  { tx, tenantId }: UnitOfWork,
  assistantId: string
): Promise<AssistantModels | undefined> {
  const [row] = await tx.$queryRaw<Array<{ active: string | null; reembed_to: string | null }>>`
    SELECT knowledge_embedding_model AS active, knowledge_reembed_model AS reembed_to FROM assistants
    WHERE id = ${assistantId} AND tenant_id = ${tenantId}`
  return row && { active: row.active, reembedTo: row.reembed_to }
}

/**
 * The assistant's model, read under a key-share lock: a flip (which holds the row for update) under way is waited
 * for, while edits of the assistant (which do not touch its key) are not.
 */
export async function lockAssistantModel({ tx, tenantId }: UnitOfWork, assistantId: string): Promise<string | null> {
  const [row] = await tx.$queryRaw<Array<{ active: string | null }>>`
    SELECT knowledge_embedding_model AS active FROM assistants
    WHERE id = ${assistantId} AND tenant_id = ${tenantId} FOR KEY SHARE`
  return row?.active ?? null
}

/**
 * Makes `model` the assistant's model when it has none, or when no other document of it is indexed (nothing would be
 * found under the old model anyway): called by the indexing transaction that just stored a document's vectors.
 */
export async function adoptModelIfUnserved(
  { tx, tenantId }: UnitOfWork,
  assistantId: string,
  documentId: string,
  model: string
): Promise<void> {
  await tx.$executeRaw`
    UPDATE assistants SET knowledge_embedding_model = ${model}
    WHERE id = ${assistantId} AND tenant_id = ${tenantId}
      AND knowledge_embedding_model IS DISTINCT FROM ${model}
      AND (knowledge_embedding_model IS NULL OR NOT EXISTS (
        SELECT 1 FROM knowledge_documents d WHERE d.assistant_id = ${assistantId} AND d.tenant_id = ${tenantId}
          AND d.status = 'READY' AND d.id <> ${documentId}))`
}

/** The embeddings a question is embedded with, and why they are not the assistant's model's, when they are not. */
export interface QueryModel {
  embeddings: KnowledgeEmbeddings
  /** Set when the assistant's model cannot run in this process and the configured model answers instead. */
  fallback?: string
}

/**
 * Chooses the embeddings for an assistant's question: its vectors' model when this process can run it, else the
 * configured model (which finds only what was already embedded with it: documents re-embedded or indexed since).
 * @param active - the assistant's model (null: nothing indexed yet, so the configured model)
 * @param configured - the process's embeddings
 * @param embeddingsFor - the models this process can run (AiRuntime.embeddingsFor)
 */
export function chooseQueryModel(
  active: string | null,
  configured: KnowledgeEmbeddings,
  embeddingsFor: (modelId: string) => KnowledgeEmbeddings | undefined
): QueryModel {
  if (active === null || active === configured.modelId) return { embeddings: configured }
  const embeddings = embeddingsFor(active)
  if (embeddings) return { embeddings }
  return {
    embeddings: configured,
    fallback: `the knowledge's model ${active} cannot run in this process; searched with ${configured.modelId}`,
  }
}
