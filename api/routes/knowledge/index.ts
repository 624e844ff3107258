/** @module /v1/knowledge: thin handlers over the knowledge services. */
import { OpenAPIHono, type z } from '@hono/zod-openapi'
import { acceptUploads, fromJsonDocument, type UploadedFile } from '../../../domain/ai/knowledge/accept-uploads.ts'
import {
  deleteDocument,
  getDocument,
  listDocuments,
  replaceDocument,
  uploadDocuments,
  type KnowledgeDocumentInfo,
} from '../../../domain/ai/knowledge/document-service.ts'
import { queryKnowledge } from '../../../domain/ai/knowledge/query-knowledge.ts'
import { validationError } from '../../../domain/errors.ts'
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
 * Which of the two bodies an upload or replacement came as. The media-type gate has already refused any other
 * Content-Type; with none at all there is no body, which the routes do not mark `required` (zod-openapi would then
 * run the JSON and the form validator on every request), so it is refused here.
 */
function bodyKind(contentType: string | undefined): 'json' | 'form' {
  if (contentType && /^multipart\/form-data|^application\/x-www-form-urlencoded/i.test(contentType)) return 'form'
  if (contentType && /^application\/([a-z.-]+\+)?json/i.test(contentType)) return 'json'
  throw validationError([
    { path: '(body)', code: 'required', message: 'Send the document as multipart/form-data or application/json.' },
  ])
}

/**
 * The knowledge routes.
 * @param deps - `ai` is the app's AI runtime (api/compose-services.ts)
 */
export function knowledgeRoutes(deps: Pick<AppDeps, 'config' | 'outbox' | 'ai'>) {
  const runtime = deps.ai
  const ai = aiConfigOf(deps.config)
  const limits = { maxFiles: ai.KNOWLEDGE_MAX_FILES, maxFileBytes: ai.KNOWLEDGE_MAX_FILE_BYTES }
  const services = { outbox: deps.outbox, stores: runtime.stores, quotas: runtime.knowledgeQuotas }
  return new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
    .openapi(uploadKnowledgeRoute, async (c) => {
      const input = bodyKind(c.req.header('content-type')) === 'json' ? c.req.valid('json') : c.req.valid('form')
      const uploaded = 'files' in input ? await Promise.all(input.files.map(toUploaded)) : [fromJsonDocument(input)]
      const files = acceptUploads(uploaded, limits, 'files' in input ? 'files' : 'content')
      const documents = await uploadDocuments(c.var.uow, services, c.var.principal, input.assistantId, files)
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
      const input = bodyKind(c.req.header('content-type')) === 'json' ? c.req.valid('json') : c.req.valid('form')
      const uploaded = 'file' in input ? await toUploaded(input.file) : fromJsonDocument(input)
      const [file] = acceptUploads([uploaded], { ...limits, maxFiles: 1 }, 'file' in input ? 'file' : 'content')
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
