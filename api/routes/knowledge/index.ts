/** @module /v1/knowledge: thin handlers over the knowledge services. */
import { OpenAPIHono, type z } from '@hono/zod-openapi'
import { createAiRuntime, type AiRuntime } from '../../../domain/ai/ai-runtime.ts'
import { acceptUploads, type UploadedFile } from '../../../domain/ai/knowledge/accept-uploads.ts'
import {
  deleteDocument,
  getDocument,
  listDocuments,
  replaceDocument,
  uploadDocuments,
  type KnowledgeDocumentInfo,
} from '../../../domain/ai/knowledge/document-service.ts'
import { queryKnowledge } from '../../../domain/ai/knowledge/query-knowledge.ts'
import { aiConfigOf } from '../../../infra/ai-config.ts'
import type { AppDeps, AppEnv } from '../../app-env.ts'
import { validationHook } from '../../openapi/validation-hook.ts'
import {
  deleteKnowledgeRoute,
  getKnowledgeRoute,
  listKnowledgeRoute,
  queryKnowledgeRoute,
  replaceKnowledgeRoute,
  uploadKnowledgeRoute,
  type KnowledgeDocument,
} from './knowledge.routes.ts'

type DocumentBody = z.infer<typeof KnowledgeDocument>

export const toKnowledgeDocument = (doc: KnowledgeDocumentInfo): DocumentBody => ({
  id: doc.id,
  assistantId: doc.assistantId,
  name: doc.name,
  mediaType: doc.mediaType as DocumentBody['mediaType'],
  sizeBytes: doc.sizeBytes,
  sha256: doc.sha256,
  version: doc.version,
  status: doc.status,
  failureReason: doc.failureReason,
  pageCount: doc.pageCount,
  chunkCount: doc.chunkCount,
  embeddingModel: doc.embeddingModel,
  vectorStore: doc.vectorStore as DocumentBody['vectorStore'],
  indexedAt: doc.indexedAt?.toISOString() ?? null,
  createdAt: doc.createdAt.toISOString(),
  updatedAt: doc.updatedAt.toISOString(),
})

const toUploaded = async (file: File): Promise<UploadedFile> => ({
  name: file.name,
  contentType: file.type,
  bytes: new Uint8Array(await file.arrayBuffer()),
})

/**
 * The knowledge routes.
 * @param runtime - the AI runtime; built from the configuration when not given (one per app)
 */
export function knowledgeRoutes(
  deps: Pick<AppDeps, 'config' | 'outbox'>,
  runtime: AiRuntime = createAiRuntime(aiConfigOf(deps.config))
) {
  const ai = aiConfigOf(deps.config)
  const limits = { maxFiles: ai.KNOWLEDGE_MAX_FILES, maxFileBytes: ai.KNOWLEDGE_MAX_FILE_BYTES }
  const services = { outbox: deps.outbox, stores: runtime.stores }
  return new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
    .openapi(uploadKnowledgeRoute, async (c) => {
      const form = c.req.valid('form')
      const files = acceptUploads(await Promise.all(form.files.map(toUploaded)), limits)
      const documents = await uploadDocuments(c.var.uow, services, c.var.principal, form.assistantId, files)
      return c.json({ data: documents.map(toKnowledgeDocument) }, 202)
    })
    .openapi(listKnowledgeRoute, async (c) => {
      const page = await listDocuments(c.var.uow, c.req.valid('query'))
      return c.json({ data: page.data.map(toKnowledgeDocument), nextCursor: page.nextCursor }, 200)
    })
    .openapi(getKnowledgeRoute, async (c) =>
      c.json(toKnowledgeDocument(await getDocument(c.var.uow, c.req.valid('param').id)), 200)
    )
    .openapi(replaceKnowledgeRoute, async (c) => {
      const [file] = acceptUploads([await toUploaded(c.req.valid('form').file)], { ...limits, maxFiles: 1 }, 'file')
      const document = await replaceDocument(c.var.uow, services, c.var.principal, c.req.valid('param').id, file!)
      return c.json(toKnowledgeDocument(document), 202)
    })
    .openapi(deleteKnowledgeRoute, async (c) => {
      await deleteDocument(c.var.uow, services, c.req.valid('param').id)
      return c.body(null, 204)
    })
    .openapi(queryKnowledgeRoute, async (c) =>
      c.json(await queryKnowledge(c.var.uow, runtime, c.var.principal, c.req.valid('json')), 200)
    )
}
