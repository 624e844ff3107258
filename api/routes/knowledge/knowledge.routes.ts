/** @module Route table of /v1/knowledge: uploads (multipart or JSON), documents and queries. */
import { z } from '@hono/zod-openapi'
import { DOCUMENT_SORTS, DOCUMENT_STATUSES } from '../../../domain/ai/knowledge/document-service.ts'
import { KNOWLEDGE_MEDIA_TYPES } from '../../../domain/ai/knowledge/media-types.ts'
import { CHAT_FALLBACKS, DECLINE_RULES } from '../../../domain/ai/answering/answer-types.ts'
import { VECTOR_STORE_KINDS } from '../../../domain/ai/vector-store/knowledge-vector-store.ts'
import { listQuerySchema } from '../../../domain/listing.ts'
import { COMMON_ERRORS, problemResponses, protectedRoute } from '../../openapi/routes.ts'
import { IdParam, UtcDateTime, pageOf } from '../../openapi/schemas.ts'
import { resourceId } from '../../../domain/id-schema.ts'

/** A file part of a multipart body (documented as binary; the handler checks type and size itself). */
const FilePart = z
  .custom<File>((value) => value instanceof File, { message: 'Must be a file part' })
  .openapi({ type: 'string', format: 'binary' })

/** One `files` part arrives as a File, several as an array: both become an array. */
const FileList = z
  .preprocess((value) => (value === undefined || Array.isArray(value) ? value : [value]), z.array(FilePart))
  .openapi({
    type: 'array',
    items: { type: 'string', format: 'binary' },
    description: 'PDF, Markdown or plain-text files',
  })

export const KnowledgeUpload = z
  .object({
    assistantId: resourceId('assistant'),
    files: FileList,
  })
  .openapi('KnowledgeUpload')

export const KnowledgeReplace = z.object({ file: FilePart }).openapi('KnowledgeReplace')

/** One document in a JSON body: what a file part carries (name, type, bytes), with the bytes as text or base64. */
/** Exactly one of `text` and `content`, as `fromJsonDocument` requires (`text_or_content` otherwise). */
const TEXT_OR_CONTENT = { oneOf: [{ required: ['text'] }, { required: ['content'] }] }

const JsonDocumentFields = {
  name: z.string().min(1).max(255).openapi({ example: 'attendance-policy.md', description: 'The file name' }),
  mediaType: z
    .enum(KNOWLEDGE_MEDIA_TYPES)
    .optional()
    .openapi({
      description:
        'The type of the document. Default: `text/plain` for `text` (`text/markdown` when the name ends in .md), ' +
        'else decided by the name’s extension, as for a multipart part without a type.',
    }),
  text: z
    .string()
    .optional()
    .openapi({ description: 'The document as text (Markdown or plain). Exactly one of text and content.' }),
  content: z.string().optional().openapi({
    description: 'The document’s bytes in base64 (RFC 4648), e.g. a PDF. Exactly one of text and content.',
  }),
}

export const KnowledgeJsonUpload = z
  .strictObject({ assistantId: KnowledgeUpload.shape.assistantId, ...JsonDocumentFields })
  .openapi('KnowledgeJsonUpload', TEXT_OR_CONTENT)

export const KnowledgeJsonReplace = z.strictObject(JsonDocumentFields).openapi('KnowledgeJsonReplace', TEXT_OR_CONTENT)

export const KnowledgeDocument = z
  .object({
    id: resourceId('knowledgeDocument'),
    assistantId: z.string(),
    name: z.string().openapi({ example: 'attendance-policy.pdf' }),
    mediaType: z.enum(KNOWLEDGE_MEDIA_TYPES),
    sizeBytes: z.number().int(),
    sha256: z.string(),
    version: z.number().int().openapi({ description: 'Starts at 1; each replacement adds one.' }),
    status: z
      .enum(DOCUMENT_STATUSES)
      .openapi({ description: 'PROCESSING while the indexing workflow runs, then READY or FAILED.' }),
    failureReason: z.string().nullable().openapi({ description: 'Why indexing failed (FAILED only).' }),
    pageCount: z.number().int().nullable(),
    chunkCount: z.number().int(),
    embeddingModel: z.string().nullable(),
    vectorStore: z.enum(VECTOR_STORE_KINDS).nullable(),
    indexedAt: UtcDateTime.nullable(),
    createdAt: UtcDateTime,
    updatedAt: UtcDateTime,
  })
  .openapi('KnowledgeDocument')

export const KnowledgeQuery = z
  .strictObject({
    assistantId: resourceId('assistant'),
    question: z
      .string()
      .trim()
      .min(1)
      .max(2000)
      .openapi({ example: 'How much notice do we need to give to cancel a session?' }),
    topK: z.number().int().min(1).max(20).optional().openapi({ description: 'Chunks to retrieve; default 12.' }),
  })
  .openapi('KnowledgeQuery')

export const Citation = z
  .object({
    documentId: z.string(),
    documentName: z.string(),
    page: z.number().int().optional().openapi({ description: 'PDF page (1-based)' }),
    headingPath: z.array(z.string()).openapi({ description: 'Headings above the passage, outermost first' }),
    startOffset: z.number().int().openapi({ description: "Offset of the quote in the document's extracted text" }),
    endOffset: z.number().int(),
    quote: z.string().openapi({ description: 'The passage, verbatim' }),
    score: z.number().openapi({ description: 'Retrieval score (cosine similarity) of the passage' }),
  })
  .openapi('Citation')

export const RelatedPassage = Citation.omit({ score: true })
  .extend({
    quote: z
      .string()
      .openapi({ description: 'A short verbatim quote of the passage: the closest sentence and its neighbours' }),
    score: z
      .number()
      .openapi({ description: "The quote's similarity to the question, on the scale of `decision.score`" }),
  })
  .openapi('RelatedPassage', {
    description:
      'A passage close to a declined question, offered as "this may help" and never as an answer: the knowledge ' +
      'was not found to contain the answer, and this passage may still point the reader to it.',
  })

export const AnswerDecision = z
  .object({
    method: z.enum(['semantic', 'lexical', 'chat']).openapi({
      description:
        "`semantic`: the quotes were chosen by the sentence model's similarity of each sentence to the question; " +
        "`lexical`: by the question's words, because the knowledge has no sentence vectors (it was embedded with the " +
        'lexical model, or before sentence vectors were stored: re-embed it to answer by meaning); `chat`: the ' +
        'configured chat model answered from the chosen quotes.',
    }),
    score: z.number().openapi({
      description:
        "The best sentence's score: the mixed cosine similarity of the question to the sentence and its passage " +
        "(semantic, chat), or the share of the question's words it covers (lexical).",
    }),
    threshold: z.number().openapi({ description: 'The score an answer needs.' }),
    answerKind: z
      .string()
      .optional()
      .openapi({
        description:
          'The kind of answer the question asks for: amount, time, duration, quantity, age, place, person, phone, ' +
          'email, yes-no or open. A quote must carry it (an amount for "how much", a time or date for "when").',
      }),
    verbatim: z
      .boolean()
      .optional()
      .openapi({
        description:
          'Present (true) when the question repeats a sentence, list item or table row of the knowledge word for word ' +
          '(case, spacing and punctuation aside): that sentence is the answer, and no decline rule applies to it.',
      }),
    chatFallback: z
      .enum(CHAT_FALLBACKS)
      .optional()
      .openapi({
        description:
          'Present when a chat model is configured and failed for this question, so the offline answerer answered it ' +
          'instead (and `method` is its): `chat_model_timeout` when the model did not answer within ' +
          'AI_CHAT_TIMEOUT_MS (30 s), `chat_model_error` for any other failure (a 5xx, a refused connection).',
      }),
    declinedBy: z
      .enum(DECLINE_RULES)
      .optional()
      .openapi({
        description:
          'Absent on an answer. `no_passages`: nothing retrieved; `below_threshold`: no sentence is close enough to ' +
          'the question; `word_not_in_knowledge`: retired in 2.4.0 (it declined more answers than unanswerable ' +
          'questions), no longer given; `answer_kind_missing`: the closest sentences do not carry what is asked ' +
          '(no amount for "how much"); `named_day_missing`: the question names a day ("Easter Monday", "Christmas ' +
          'Eve") or a season that the quote neither names nor dates; `name_missing`: the quote does not name the ' +
          'programme or person the question names; `chat_model_declined`: the chat model found no answer in ' +
          'the quotes; `no_citation`: the chat model answered without citing a quote. A centre improves its documents ' +
          'by what this names.',
      }),
  })
  .openapi('AnswerDecision')

export const KnowledgeAnswer = z
  .object({
    assistantId: z.string(),
    answered: z
      .boolean()
      .openapi({ description: 'False when the knowledge does not contain the answer; nothing is cited then.' }),
    answer: z.string().openapi({ description: 'The answer; each claim ends with [n], the number of its citation.' }),
    citations: z.array(Citation),
    related: z
      .array(RelatedPassage)
      .max(3)
      .openapi({
        description:
          'Empty on an answer. On a decline, up to three passages closest to the question, each with its document and a ' +
          'short quote, labelled in `answer` as not an answer ("This may help, though it is not an answer: see …"). ' +
          'None when the question is off-topic for every document: a passage must score at least 0.44, a floor set ' +
          "above every off-topic question of the evaluation's tuning split. Knowledge without sentence vectors (the " +
          'lexical embeddings) offers none.',
      }),
    decision: AnswerDecision.openapi({ description: 'How the answer was chosen, or which rule declined it.' }),
    models: z.object({ embeddings: z.string(), answerer: z.string(), vectorStore: z.enum(VECTOR_STORE_KINDS) }),
  })
  .openapi('KnowledgeAnswer')

const ListDocumentsQuery = listQuerySchema(DOCUMENT_SORTS, '-createdAt').extend({
  assistantId: z
    .string()
    .max(64)
    .optional()
    .openapi({ param: { name: 'assistantId', in: 'query' } }),
  status: z
    .enum(DOCUMENT_STATUSES)
    .optional()
    .openapi({ param: { name: 'status', in: 'query' } }),
})

const DocumentId = IdParam('knowledgeDocument')
const tags = ['Knowledge']

export const uploadKnowledgeRoute = protectedRoute('ai', {
  method: 'post',
  path: '/v1/knowledge/documents',
  tags,
  summary: 'Upload knowledge',
  description:
    'Either multipart/form-data with `assistantId` and one or more `files` (PDF, Markdown, plain text), or ' +
    'application/json with `assistantId`, a file `name` and the document as `text` or base64 `content` (one document ' +
    'per request; `mediaType` optional). Each file becomes a ' +
    'document in status PROCESSING, indexed by a workflow (READY, or FAILED with a reason). Limits: ' +
    'KNOWLEDGE_MAX_FILES files, KNOWLEDGE_MAX_FILE_BYTES per file (413), KNOWLEDGE_UPLOAD_LIMIT_BYTES per request (413); ' +
    'other types are 415. The assistant must have the `knowledge` tool. Quotas (docs/rate-limits.md, "Quotas"): ' +
    'the files may not take the tenant beyond KNOWLEDGE_BYTES_PER_TENANT stored bytes, nor the assistant beyond ' +
    'KNOWLEDGE_DOCUMENTS_PER_ASSISTANT documents (409 `quota_exceeded`, nothing stored); a document whose chunks ' +
    'would take the tenant beyond KNOWLEDGE_CHUNKS_PER_TENANT ends FAILED with a reason naming that quota.',
  // Not `required` in the zod-openapi sense: that would run both validators on every body. The handler refuses an
  // empty body itself (400), and the media-type gate refuses any other Content-Type (415).
  request: {
    body: {
      content: {
        'multipart/form-data': { schema: KnowledgeUpload },
        'application/json': { schema: KnowledgeJsonUpload },
      },
    },
  },
  responses: {
    202: {
      description: 'The documents, being indexed',
      content: {
        'application/json': { schema: z.object({ data: z.array(KnowledgeDocument) }).openapi('KnowledgeUploadResult') },
      },
    },
    ...problemResponses(400, 409, 413, 415, 422, ...COMMON_ERRORS),
  },
})

export const listKnowledgeRoute = protectedRoute('ai.read', {
  method: 'get',
  path: '/v1/knowledge/documents',
  tags,
  summary: 'List knowledge documents',
  request: { query: ListDocumentsQuery },
  responses: {
    200: {
      description: 'A page of documents',
      content: { 'application/json': { schema: pageOf(KnowledgeDocument, 'KnowledgeDocumentPage') } },
    },
    ...problemResponses(400, ...COMMON_ERRORS),
  },
})

export const getKnowledgeRoute = protectedRoute('ai.read', {
  method: 'get',
  path: '/v1/knowledge/documents/{id}',
  tags,
  summary: 'Retrieve a knowledge document (its status)',
  request: { params: DocumentId },
  responses: {
    200: { description: 'The document', content: { 'application/json': { schema: KnowledgeDocument } } },
    ...problemResponses(404, ...COMMON_ERRORS),
  },
})

export const replaceKnowledgeRoute = protectedRoute('ai', {
  method: 'put',
  path: '/v1/knowledge/documents/{id}',
  tags,
  summary: 'Replace a knowledge document',
  description:
    'Either multipart/form-data with one `file`, or application/json with a file `name` and the document as `text` ' +
    'or base64 `content` (`mediaType` optional). The old version’s vectors are removed at once and the new version ' +
    'is indexed (version + 1, status PROCESSING). A file that would take the tenant beyond KNOWLEDGE_BYTES_PER_TENANT ' +
    'stored bytes (the old version’s bytes given back) is 409 `quota_exceeded`, and the document is left as it was.',
  request: {
    params: DocumentId,
    body: {
      content: {
        'multipart/form-data': { schema: KnowledgeReplace },
        'application/json': { schema: KnowledgeJsonReplace },
      },
    },
  },
  responses: {
    202: {
      description: 'The document, being re-indexed',
      content: { 'application/json': { schema: KnowledgeDocument } },
    },
    ...problemResponses(400, 404, 409, 413, 415, 422, ...COMMON_ERRORS),
  },
})

export const deleteKnowledgeRoute = protectedRoute('ai', {
  method: 'delete',
  path: '/v1/knowledge/documents/{id}',
  tags,
  summary: 'Delete a knowledge document and its vectors',
  request: { params: DocumentId },
  responses: {
    204: { description: 'Deleted' },
    ...problemResponses(404, 409, 422, ...COMMON_ERRORS),
  },
})

export const queryKnowledgeRoute = protectedRoute('ai.read', {
  method: 'post',
  path: '/v1/knowledge/query',
  tags,
  summary: 'Query knowledge',
  description:
    "Answers a question from the assistant's knowledge with cited context: each citation names the document, its " +
    'position (page, headings, offsets) and the quoted passage. When the knowledge does not contain the answer, ' +
    '`answered` is false and the answer says so; `related` may then offer up to three passages close to the ' +
    "question, labelled as not an answer. Declined questions are kept for the assistant's unanswered-questions " +
    'report (`GET /v1/assistants/{id}/unanswered`).',
  request: { body: { required: true, content: { 'application/json': { schema: KnowledgeQuery } } } },
  responses: {
    200: { description: 'The answer', content: { 'application/json': { schema: KnowledgeAnswer } } },
    ...problemResponses(400, 409, 413, 415, 422, ...COMMON_ERRORS),
  },
})
