/**
 * @module Indexing one version of a knowledge document, as the indexing activity runs it: load the bytes, parse,
 * chunk, embed (all outside any transaction: a provider's embeddings may take a while), then in one transaction
 * that holds the document's row lock: check the version is still current, replace the document's vectors and mark
 * it READY. Running it twice writes the same result, so the activity can be retried safely. A file that cannot be
 * parsed marks the document FAILED with the reason; that is an outcome, not an error to retry.
 */
import { Document } from '@langchain/core/documents'
import type { Db } from '../../../infra/db.ts'
import { runInUnitOfWork, type UnitOfWork } from '../../../infra/unit-of-work.ts'
import type {
  KnowledgeIndexingInput,
  KnowledgeIndexingOutcome,
} from '../../../common/knowledge/knowledge-indexing-contract.ts'
import { newId } from '../../ids.ts'
import { embedSpans } from '../answering/quotable-spans.ts'
import { encodeSpanVectors } from '../answering/span-vectors.ts'
import type { AiRuntime } from '../ai-runtime.ts'
import type { ChunkMetadata, KnowledgeEmbeddings } from '../vector-store/knowledge-vector-store.ts'
import { chunkDocument, type DocumentChunk } from './chunk-document.ts'
import { adoptModelIfUnserved, chooseQueryModel, lockAssistantModel, readAssistantModels } from './knowledge-models.ts'
import { KnowledgeParseError, KnowledgeReaderBusy } from './knowledge-errors.ts'
import type { ParseOptions } from './parsed-document.ts'
import { refuseBeyondChunkQuota } from './knowledge-quotas.ts'
import type { KnowledgeMediaType } from './media-types.ts'

/** Long enough to write thousands of chunks on the embedded database; far below the activity's timeout. */
const WRITE_TIMEOUT_MS = 120_000

/** The text a chunk is embedded as: its document's name and headings give it the context a bare paragraph lacks. */
export function embeddingText(
  documentName: string,
  chunk: Pick<DocumentChunk, 'headingPath' | 'content' | 'context'>
): string {
  const title = documentName.replace(/\.[a-z0-9]+$/i, '').replace(/[-_]+/g, ' ')
  return [title, ...chunk.headingPath, ...(chunk.context ? [chunk.context] : []), chunk.content].join('\n')
}

/** One document version's reading: asked for twice (a retried activity), it is read once. */
const parseKey = (input: Pick<KnowledgeIndexingInput, 'tenantId' | 'documentId' | 'version'>) =>
  `${input.tenantId}/${input.documentId}/v${input.version}`

/** How long a version turned away before its file was loaded waits (about one file's reading). */
const READER_BUSY_RETRY_MS = 5_000

type LockedVersion = { current: true; assistantId: string } | { current: false; outcome: KnowledgeIndexingOutcome }

/** A version parsed, chunked and embedded, ready to store. */
export interface EmbeddedVersion {
  chunks: DocumentChunk[]
  pageCount: number | null
  vectors: number[][]
  docs: Document[]
}

/**
 * Parses, chunks and embeds one version with `embeddings` (no transaction held: a provider may take a while).
 * @throws KnowledgeParseError when the file cannot be parsed or has no text
 * @throws KnowledgeReaderBusy when the file readers' queue is full
 */
export async function embedVersion(
  document: { name: string; mediaType: string; content: Uint8Array },
  input: Pick<KnowledgeIndexingInput, 'tenantId' | 'documentId' | 'version'>,
  embeddings: KnowledgeEmbeddings,
  runtime: Pick<AiRuntime, 'documents' | 'chunking'>,
  options: ParseOptions = {}
): Promise<EmbeddedVersion> {
  const parsed = await runtime.documents.parse(
    {
      tenantId: input.tenantId,
      key: parseKey(input),
      mediaType: document.mediaType as KnowledgeMediaType,
      bytes: document.content,
    },
    options
  )
  const { chunking } = runtime
  const chunks = await chunkDocument(parsed, chunking)
  const pageCount = parsed.pages.length > 0 ? parsed.pages.length : null
  if (chunks.length === 0) throw new KnowledgeParseError('The file has no text to index.')
  const vectors = await embeddings.embedDocuments(chunks.map((chunk) => embeddingText(document.name, chunk)))
  const spans = embeddings.embedsSpans ? await embedSpans(embeddings, chunks) : undefined
  const docs = chunks.map((chunk, i) => {
    const metadata: ChunkMetadata = {
      documentId: input.documentId,
      documentName: document.name,
      version: input.version,
      ordinal: chunk.ordinal,
      ...(chunk.page !== undefined ? { page: chunk.page } : {}),
      headingPath: chunk.headingPath,
      startOffset: chunk.startOffset,
      endOffset: chunk.endOffset,
      ...(spans && spans[i]!.length > 0 ? { spanVectors: encodeSpanVectors(spans[i]!) } : {}),
    }
    return new Document({ pageContent: chunk.content, metadata: { ...metadata } })
  })
  return { chunks, pageCount, vectors, docs }
}

/** Locks the document's row and says whether `version` is still its current version. */
async function lockVersion({ tx, tenantId }: UnitOfWork, documentId: string, version: number): Promise<LockedVersion> {
  const rows = await tx.$queryRaw<Array<{ assistant_id: string; version: number }>>`
    SELECT assistant_id, version FROM knowledge_documents
    WHERE id = ${documentId} AND tenant_id = ${tenantId} FOR UPDATE`
  const row = rows[0]
  if (!row) return { current: false, outcome: { status: 'GONE' } }
  if (row.version !== version) return { current: false, outcome: { status: 'SUPERSEDED' } }
  return { current: true, assistantId: row.assistant_id }
}

/** Marks a version FAILED (unless it was replaced or deleted meanwhile). */
export async function markDocumentFailed(
  db: Db,
  input: KnowledgeIndexingInput,
  reason: string
): Promise<KnowledgeIndexingOutcome> {
  return runInUnitOfWork(db, input.tenantId, async (uow) => {
    const locked = await lockVersion(uow, input.documentId, input.version)
    if (!locked.current) return locked.outcome
    await uow.tx.knowledgeDocument.update({
      where: { id: input.documentId },
      data: { status: 'FAILED', failureReason: reason.slice(0, 500), chunkCount: 0, indexedAt: null },
    })
    return { status: 'FAILED', reason }
  })
}

/**
 * Indexes one document version.
 * @param runtime - the embedding model and vector stores in use
 * @param options - `signal`: aborted when the activity is cancelled or timed out, which stops the file's reading
 */
export async function indexDocument(
  db: Db,
  runtime: AiRuntime,
  input: KnowledgeIndexingInput,
  options: ParseOptions = {}
): Promise<KnowledgeIndexingOutcome> {
  // Asked before the file is loaded: a busy reader queue turns hundreds of waiting files away without reading them.
  const key = parseKey(input)
  if (runtime.documents.accepts && !runtime.documents.accepts({ tenantId: input.tenantId, key }))
    return { status: 'DEFERRED', retryAfterMs: READER_BUSY_RETRY_MS }
  const read = await runInUnitOfWork(db, input.tenantId, async (uow) => {
    const document = await uow.tx.knowledgeDocument.findFirst({
      where: { id: input.documentId, tenantId: uow.tenantId },
      select: { name: true, mediaType: true, content: true, version: true, assistantId: true },
    })
    return document && { document, models: await readAssistantModels(uow, document.assistantId) }
  })
  if (!read) return { status: 'GONE' }
  const { document, models } = read
  if (document.version !== input.version) return { status: 'SUPERSEDED' }
  // The assistant's model, which its questions are searched with, so the document is found at once, also while a
  // re-embedding is under way (whose flip then embeds it with the new model too); the configured model when the
  // assistant has none yet, or when its model cannot run here.
  const { embeddings } = chooseQueryModel(models?.active ?? null, runtime.embeddings, runtime.embeddingsFor)

  let embedded: EmbeddedVersion
  try {
    embedded = await embedVersion(document, input, embeddings, runtime, options)
  } catch (error) {
    if (error instanceof KnowledgeParseError) return markDocumentFailed(db, input, error.message)
    if (error instanceof KnowledgeReaderBusy) return { status: 'DEFERRED', retryAfterMs: error.retryAfterMs }
    throw error
  }
  const { chunks, pageCount, vectors, docs } = embedded

  return runInUnitOfWork(
    db,
    input.tenantId,
    async (uow): Promise<KnowledgeIndexingOutcome> => {
      const locked = await lockVersion(uow, input.documentId, input.version)
      if (!locked.current) return locked.outcome
      const beyondQuota = await refuseBeyondChunkQuota(uow, runtime.knowledgeQuotas, input.documentId, chunks.length)
      if (beyondQuota) return beyondQuota
      // The assistant moved to another model while this one ran (a re-embedding's flip): thrown, so the activity's
      // retry embeds the document with the new one. The key-share lock waits for a flip under way.
      const active = await lockAssistantModel(uow, locked.assistantId)
      if (active !== null && active !== (models?.active ?? null) && active !== embeddings.modelId)
        throw new Error(`the assistant's knowledge moved to ${active} while this document was embedded; retrying`)
      const store = await runtime.stores.open(uow, locked.assistantId, embeddings)
      // A retry after a crash mid-way, or a re-index: the document's old vectors go first.
      await store.delete({ filter: { documentId: input.documentId } })
      await store.addVectors(vectors, docs, { ids: docs.map(() => newId('knowledgeChunk')) })
      await uow.tx.knowledgeDocument.update({
        where: { id: input.documentId },
        data: {
          status: 'READY',
          failureReason: null,
          chunkCount: chunks.length,
          pageCount,
          embeddingModel: embeddings.modelId,
          reembeddedModel: null,
          vectorStore: store.kind,
          indexedAt: new Date(),
        },
      })
      await adoptModelIfUnserved(uow, locked.assistantId, input.documentId, embeddings.modelId)
      return { status: 'READY', chunkCount: chunks.length }
    },
    { timeoutMs: WRITE_TIMEOUT_MS, maxWaitMs: 30_000 }
  )
}
