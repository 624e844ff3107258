/**
 * @module A tenant's knowledge quotas (docs/rate-limits.md, "Quotas"): the bytes of every file it stores and the
 * documents of one assistant, checked at upload and replacement before anything is stored (409 `quota_exceeded`);
 * the chunks of all its documents, checked by the indexer once a version is chunked, in the transaction that would
 * store them (the version ends FAILED with a reason naming the quota). Each check runs under a transaction-scoped
 * advisory lock of the tenant, so two uploads (or two documents' writes) of one tenant cannot both pass on the same
 * count; other tenants never wait on it.
 */
import type { KnowledgeIndexingOutcome } from '../../../common/knowledge/knowledge-indexing-contract.ts'
import type { AiConfig } from '../../../infra/ai-config.ts'
import type { UnitOfWork } from '../../../infra/unit-of-work.ts'
import { quotaExceeded } from '../../errors.ts'

/** The configured limits. */
export interface KnowledgeQuotas {
  bytesPerTenant: number
  chunksPerTenant: number
  documentsPerAssistant: number
}

/** The quotas of a parsed configuration. */
export const knowledgeQuotasOf = (
  config: Pick<
    AiConfig,
    'KNOWLEDGE_BYTES_PER_TENANT' | 'KNOWLEDGE_CHUNKS_PER_TENANT' | 'KNOWLEDGE_DOCUMENTS_PER_ASSISTANT'
  >
): KnowledgeQuotas => ({
  bytesPerTenant: config.KNOWLEDGE_BYTES_PER_TENANT,
  chunksPerTenant: config.KNOWLEDGE_CHUNKS_PER_TENANT,
  documentsPerAssistant: config.KNOWLEDGE_DOCUMENTS_PER_ASSISTANT,
})

/** Distinct keys: the indexer takes its lock while holding a document's row, which a replacement locks after this one. */
const lockTenant = ({ tx, tenantId }: UnitOfWork, what: 'uploads' | 'chunks') =>
  tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`knowledge-${what}:${tenantId}`}))`

/** What an upload or a replacement adds. */
export interface KnowledgeAddition {
  /** The assistant the new documents go to (a replacement adds none). */
  assistantId: string
  documents: number
  bytes: number
  /** A replaced document: its bytes are given back. */
  replacing?: { id: string }
}

/**
 * Refuses an upload or a replacement that would take the tenant beyond its stored bytes or the assistant beyond its
 * documents. Call it in the transaction that stores the files.
 * @param quotas - undefined: none (a runtime built by hand)
 * @throws AppError 409 `quota_exceeded` naming the quota and its limit
 */
export async function checkKnowledgeQuotas(
  uow: UnitOfWork,
  quotas: KnowledgeQuotas | undefined,
  addition: KnowledgeAddition
): Promise<void> {
  if (!quotas) return
  await lockTenant(uow, 'uploads')
  const [held] = await uow.tx.$queryRaw<Array<{ bytes: bigint; documents: bigint }>>`
    SELECT coalesce(sum(size_bytes) FILTER (WHERE id <> ${addition.replacing?.id ?? ''}), 0)::bigint AS bytes,
      count(*) FILTER (WHERE assistant_id = ${addition.assistantId}) AS documents
    FROM knowledge_documents WHERE tenant_id = ${uow.tenantId}`
  const bytes = Number(held!.bytes) + addition.bytes
  if (bytes > quotas.bytesPerTenant) {
    throw quotaExceeded(
      `The tenant's knowledge would hold ${bytes} bytes, beyond its quota of ${quotas.bytesPerTenant} bytes ` +
        `(KNOWLEDGE_BYTES_PER_TENANT); it holds ${Number(held!.bytes)}. Delete documents no assistant needs.`
    )
  }
  const documents = Number(held!.documents) + addition.documents
  if (addition.documents > 0 && documents > quotas.documentsPerAssistant) {
    throw quotaExceeded(
      `Assistant ${addition.assistantId} would have ${documents} documents, beyond the quota of ` +
        `${quotas.documentsPerAssistant} documents per assistant (KNOWLEDGE_DOCUMENTS_PER_ASSISTANT).`
    )
  }
}

/**
 * The outcome of a version whose chunks would take the tenant beyond its chunk quota: the version is marked FAILED
 * with the reason, in the caller's transaction, which holds the document's row. Undefined when it fits.
 * @param quotas - undefined: none
 * @param chunkCount - the version's chunks
 */
export async function refuseBeyondChunkQuota(
  uow: UnitOfWork,
  quotas: KnowledgeQuotas | undefined,
  documentId: string,
  chunkCount: number
): Promise<KnowledgeIndexingOutcome | undefined> {
  if (!quotas) return undefined
  await lockTenant(uow, 'chunks')
  // The document's own count is its previous version's (0 once replaced): this version replaces it.
  const [held] = await uow.tx.$queryRaw<Array<{ chunks: bigint }>>`
    SELECT coalesce(sum(chunk_count), 0)::bigint AS chunks FROM knowledge_documents
    WHERE tenant_id = ${uow.tenantId} AND id <> ${documentId}`
  const chunks = Number(held!.chunks) + chunkCount
  if (chunks <= quotas.chunksPerTenant) return undefined
  const reason =
    `Not indexed: its ${chunkCount} chunks would take the tenant's knowledge to ${chunks} chunks, beyond its quota ` +
    `of ${quotas.chunksPerTenant} (KNOWLEDGE_CHUNKS_PER_TENANT). Delete documents no assistant needs, then replace ` +
    'this one to index it again.'
  await uow.tx.knowledgeDocument.update({
    where: { id: documentId },
    data: { status: 'FAILED', failureReason: reason, chunkCount: 0, indexedAt: null },
  })
  return { status: 'FAILED', reason }
}
