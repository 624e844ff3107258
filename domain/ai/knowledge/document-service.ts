/**
 * @module Knowledge documents: uploaded (bytes stored, status PROCESSING, indexing workflow started through the
 * outbox in the same transaction), listed, read, replaced and deleted. Replacing a document removes its vectors at
 * once — a superseded policy must not answer questions while its new version is indexed — and indexes the new
 * version under a new workflow; deleting it removes its vectors with it.
 */
import type { KnowledgeDocument, Prisma } from '../../../generated/prisma/client.ts'
import type { UnitOfWork } from '../../../infra/unit-of-work.ts'
import {
  KNOWLEDGE_INDEXING_KIND,
  KNOWLEDGE_INDEXING_WORKFLOW,
  knowledgeIndexingWorkflowId,
  type KnowledgeIndexingInput,
} from '../../../common/knowledge/knowledge-indexing-contract.ts'
import { notFound } from '../../errors.ts'
import { newId } from '../../ids.ts'
import { keysetOrderBy, keysetWhere, parseList, toSortedPage, type SortParam } from '../../listing.ts'
import type { WorkflowOutbox } from '../../workflow-runs/workflow-outbox.ts'
import { getAssistantOfBody } from '../assistants/assistant-service.ts'
import { authorizeToolUse } from '../assistants/tool-access.ts'
import type { Principal } from '../../auth/principal.ts'
import type { KnowledgeStores } from '../vector-store/knowledge-stores.ts'
import type { AcceptedFile } from './accept-uploads.ts'
import { checkKnowledgeQuotas, type KnowledgeQuotas } from './knowledge-quotas.ts'

/** A document without its bytes: what every read returns. */
export type KnowledgeDocumentInfo = Omit<KnowledgeDocument, 'content'>

export const DOCUMENT_SORTS = ['createdAt', 'name'] as const
export const DOCUMENT_STATUSES = ['PROCESSING', 'READY', 'FAILED'] as const

export interface DocumentListQuery {
  limit: number
  cursor?: string
  sort: SortParam<(typeof DOCUMENT_SORTS)[number]>
  assistantId?: string
  status?: (typeof DOCUMENT_STATUSES)[number]
}

export interface KnowledgeServiceDeps {
  outbox: WorkflowOutbox
  stores: KnowledgeStores
  /** The tenant's knowledge quotas (knowledge-quotas.ts); undefined: none. */
  quotas?: KnowledgeQuotas
}

const withoutContent = { content: true } as const satisfies Prisma.KnowledgeDocumentOmit

/** Records the start of a version's indexing workflow, to happen once the transaction commits. */
async function startIndexing(uow: UnitOfWork, outbox: WorkflowOutbox, documentId: string, version: number) {
  const input: KnowledgeIndexingInput = { tenantId: uow.tenantId, documentId, version }
  await outbox.enqueue(uow, {
    workflowType: KNOWLEDGE_INDEXING_WORKFLOW,
    workflowId: knowledgeIndexingWorkflowId(documentId, version),
    args: [input],
    searchAttributes: { TenantId: uow.tenantId, WorkflowKind: KNOWLEDGE_INDEXING_KIND },
  })
}

/** The bytes of some files together. */
const bytesOf = (files: AcceptedFile[]) => files.reduce((sum, file) => sum + file.bytes.byteLength, 0)

/**
 * Stores uploaded files as documents of an assistant and starts indexing each.
 * @param principal - the caller: the assistant must have the knowledge tool, which the caller must be allowed
 * @throws AppError `validation_error` (`assistantId` not found), 403 when the assistant lacks the knowledge tool,
 *   409 `quota_exceeded` when the files would take the tenant beyond its bytes or the assistant beyond its documents
 */
export async function uploadDocuments(
  uow: UnitOfWork,
  deps: Pick<KnowledgeServiceDeps, 'outbox' | 'quotas'>,
  principal: Principal,
  assistantId: string,
  files: AcceptedFile[]
): Promise<KnowledgeDocumentInfo[]> {
  const assistant = await getAssistantOfBody(uow, assistantId)
  authorizeToolUse(assistant, 'knowledge', principal)
  await checkKnowledgeQuotas(uow, deps.quotas, {
    assistantId: assistant.id,
    documents: files.length,
    bytes: bytesOf(files),
  })
  const documents: KnowledgeDocumentInfo[] = []
  for (const file of files) {
    const document = await uow.tx.knowledgeDocument.create({
      data: {
        id: newId('knowledgeDocument'),
        tenantId: uow.tenantId,
        assistantId: assistant.id,
        name: file.name,
        mediaType: file.mediaType,
        sizeBytes: file.bytes.byteLength,
        sha256: file.sha256,
        content: new Uint8Array(file.bytes),
      },
      omit: withoutContent,
    })
    await startIndexing(uow, deps.outbox, document.id, document.version)
    documents.push(document)
  }
  return documents
}

/** One document of the unit's tenant, without its bytes. @throws AppError `not_found` */
export async function getDocument({ tx, tenantId }: UnitOfWork, id: string): Promise<KnowledgeDocumentInfo> {
  const document = await tx.knowledgeDocument.findFirst({ where: { id, tenantId }, omit: withoutContent })
  if (!document) throw notFound('knowledge document', id)
  return document
}

/** A page of the tenant's documents, optionally of one assistant and in one status. */
export async function listDocuments({ tx, tenantId }: UnitOfWork, query: DocumentListQuery) {
  const list = parseList(query)
  const filters: Prisma.KnowledgeDocumentWhereInput[] = [
    { tenantId },
    ...(query.assistantId ? [{ assistantId: query.assistantId }] : []),
    ...(query.status ? [{ status: query.status }] : []),
  ]
  const rows = await tx.knowledgeDocument.findMany({
    where: { AND: [...filters, keysetWhere(list) as Prisma.KnowledgeDocumentWhereInput] },
    orderBy: keysetOrderBy(list),
    take: list.limit + 1,
    omit: withoutContent,
  })
  return toSortedPage(rows, list)
}

/** Removes a document's vectors from the store in use and from the plain store's table (a no-op when unused). */
async function removeVectors(uow: UnitOfWork, stores: KnowledgeStores, assistantId: string, documentId: string) {
  const store = await stores.open(uow, assistantId)
  await store.delete({ filter: { documentId } })
  if (store.kind !== 'postgres')
    await uow.tx.knowledgeChunk.deleteMany({ where: { tenantId: uow.tenantId, documentId } })
}

/**
 * Replaces a document's file: its vectors are removed now, the version goes up, and the new version is indexed.
 * A workflow still indexing the old version finds it superseded and writes nothing.
 * @throws AppError `not_found`, 403 when the assistant no longer has the knowledge tool, 409 `quota_exceeded` when
 *   the new file would take the tenant beyond its bytes
 */
export async function replaceDocument(
  uow: UnitOfWork,
  deps: KnowledgeServiceDeps,
  principal: Principal,
  id: string,
  file: AcceptedFile
): Promise<KnowledgeDocumentInfo> {
  const current = await getDocument(uow, id)
  const assistant = await getAssistantOfBody(uow, current.assistantId)
  authorizeToolUse(assistant, 'knowledge', principal)
  await checkKnowledgeQuotas(uow, deps.quotas, {
    assistantId: assistant.id,
    documents: 0,
    bytes: bytesOf([file]),
    replacing: { id: current.id },
  })
  // Incrementing the version first locks the row: concurrent replacements and the indexer queue behind it.
  const document = await uow.tx.knowledgeDocument.update({
    where: { id: current.id },
    data: {
      version: { increment: 1 },
      name: file.name,
      mediaType: file.mediaType,
      sizeBytes: file.bytes.byteLength,
      sha256: file.sha256,
      content: new Uint8Array(file.bytes),
      status: 'PROCESSING',
      failureReason: null,
      pageCount: null,
      chunkCount: 0,
      embeddingModel: null,
      reembeddedModel: null,
      vectorStore: null,
      indexedAt: null,
    },
    omit: withoutContent,
  })
  await removeVectors(uow, deps.stores, document.assistantId, document.id)
  await startIndexing(uow, deps.outbox, document.id, document.version)
  return document
}

/** Deletes a document and its vectors. @throws AppError `not_found` */
export async function deleteDocument(
  uow: UnitOfWork,
  deps: Pick<KnowledgeServiceDeps, 'stores'>,
  id: string
): Promise<void> {
  const document = await getDocument(uow, id)
  await removeVectors(uow, deps.stores, document.assistantId, document.id)
  await uow.tx.knowledgeDocument.delete({ where: { id: document.id } })
}
