/**
 * @module Assistants and their knowledge: the lists, uploads with progress, questions, and the questions an assistant
 * could not answer. A document being indexed is followed by refetching until it is READY or FAILED.
 *
 * Uploads do not go through the SDK's fetch, which cannot report upload progress. Nor does this package make the
 * request itself: the APIs that can report it (a browser's XMLHttpRequest) are not in every runtime these hooks run in
 * (React Native, tests), so the app passes an {@link UploadTransport}; the hook builds the request (multipart body,
 * bearer token, Idempotency-Key) and reads the answer into the SDK's `ApiError` like any other call.
 */
import { skipToken, useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { ApiError, type FieldError, type RequestBody, type ResponseData } from '@therapy-care/sdk'
import { useTherapyCare } from './provider.ts'
import type { KnowledgeDocumentFilter } from './query-keys.ts'

/** The body of `POST /v1/assistants`. */
export type AssistantInput = RequestBody<'/v1/assistants', 'POST'>
/** The body of `POST /v1/knowledge/query`. */
export type KnowledgeQuestion = RequestBody<'/v1/knowledge/query', 'POST'>
/** What `POST /v1/knowledge/documents` answers: the documents, being indexed. */
export type KnowledgeUploadResult = ResponseData<'/v1/knowledge/documents', 'POST'>

/** The multipart request an {@link UploadTransport} sends, its path relative to the API's origin. */
export interface UploadRequest {
  method: 'POST'
  path: '/v1/knowledge/documents'
  headers: Record<string, string>
  body: FormData
  /** Call with the share of the body sent so far, 0 to 1. */
  onProgress: (fraction: number) => void
}

/** The answer an {@link UploadTransport} got, whatever its status; a request that got none rejects instead. */
export interface UploadResponse {
  status: number
  headers: Headers
  text: string
}

/** Sends an upload and reports its progress (in a browser, with XMLHttpRequest). */
export type UploadTransport = (request: UploadRequest) => Promise<UploadResponse>

/** What `upload` takes. */
export interface KnowledgeUploadInput {
  assistantId: string
  /** Files (a browser's `File` is one): each becomes a document. */
  files: ReadonlyArray<Blob & { readonly name: string }>
  /** The bearer token the request carries: the transport is outside the SDK's credentials. */
  accessToken: string
  onProgress?: (fraction: number) => void
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null
const text = (value: unknown) => (typeof value === 'string' ? value : undefined)

/** An upload's non-2xx answer as the SDK's `ApiError`, read as the SDK reads a problem document. */
function uploadError(response: UploadResponse): ApiError {
  let body: unknown = response.text
  try {
    body = response.text ? JSON.parse(response.text) : undefined
  } catch {
    // Not JSON (a proxy's page): the status still says what happened.
  }
  const problem = isRecord(body) ? body : {}
  const errors = Array.isArray(problem.errors)
    ? problem.errors.filter(
        (e): e is FieldError =>
          isRecord(e) && typeof e.path === 'string' && typeof e.code === 'string' && typeof e.message === 'string'
      )
    : undefined
  return new ApiError({
    status: response.status,
    code: text(problem.code) ?? `http_${response.status}`,
    title: text(problem.title) ?? `HTTP ${response.status}`,
    detail: text(problem.detail),
    errors,
    requestId: text(problem.requestId) ?? response.headers.get('x-request-id') ?? undefined,
    type: text(problem.type),
    instance: text(problem.instance),
    headers: response.headers,
    body,
  })
}

/** The tenant's assistants (the first page of 100); `enabled: false` for a caller whose scopes do not reach them. */
export function useAssistants(options: { enabled?: boolean } = {}) {
  const { client, keys } = useTherapyCare()
  return useQuery({
    queryKey: keys.assistants,
    queryFn: ({ signal }) => client.request('GET', '/v1/assistants', { query: { limit: 100 }, signal }),
    enabled: options.enabled ?? true,
  })
}

/**
 * Knowledge documents matching `filter` (the first page, 100 by default).
 * @param refetchInterval - milliseconds between refreshes while a document is being indexed (0: never)
 */
export function useKnowledgeDocuments(filter: KnowledgeDocumentFilter = {}, refetchInterval = 2000) {
  const { client, keys } = useTherapyCare()
  return useQuery({
    queryKey: keys.knowledgeDocumentList(filter),
    queryFn: ({ signal }) =>
      client.request('GET', '/v1/knowledge/documents', { query: { limit: 100, ...filter }, signal }),
    refetchInterval: (query) =>
      refetchInterval > 0 && query.state.data?.data.some((d) => d.status === 'PROCESSING') ? refetchInterval : false,
  })
}

/** An assistant's unanswered questions, grouped by meaning, most asked first; idle while `assistantId` is undefined. */
export function useUnansweredQuestions(assistantId: string | undefined) {
  const { client, keys } = useTherapyCare()
  return useQuery({
    queryKey: keys.unansweredQuestions(assistantId ?? null),
    queryFn: assistantId
      ? ({ signal }) => client.request('GET', '/v1/assistants/{id}/unanswered', { params: { id: assistantId }, signal })
      : skipToken,
  })
}

/**
 * The changes to knowledge: create an assistant, upload documents, delete one.
 * @param options.uploadTransport - sends uploads (required by `upload` only)
 */
export function useKnowledgeActions(options: { uploadTransport?: UploadTransport } = {}) {
  const { client, keys, newIdempotencyKey } = useTherapyCare()
  const queryClient = useQueryClient()
  // A new or removed document can answer a kept question: the report is fetched again with the lists.
  const documentsChanged = {
    onSuccess: () =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: keys.knowledgeDocuments }),
        queryClient.invalidateQueries({ queryKey: keys.unansweredReports }),
      ]),
  }
  const { uploadTransport } = options
  return {
    createAssistant: useMutation({
      mutationFn: (input: AssistantInput) =>
        client.request('POST', '/v1/assistants', { body: input, idempotencyKey: newIdempotencyKey() }),
      onSuccess: () => queryClient.invalidateQueries({ queryKey: keys.assistants }),
    }),
    upload: useMutation({
      mutationFn: async ({ assistantId, files, accessToken, onProgress }: KnowledgeUploadInput) => {
        if (!uploadTransport) throw new TypeError('useKnowledgeActions needs an uploadTransport to upload files.')
        const body = new FormData()
        body.append('assistantId', assistantId)
        for (const file of files) body.append('files', file, file.name)
        const response = await uploadTransport({
          method: 'POST',
          path: '/v1/knowledge/documents',
          headers: {
            Accept: 'application/json, application/problem+json',
            Authorization: `Bearer ${accessToken}`,
            'Idempotency-Key': newIdempotencyKey(),
          },
          body,
          onProgress: onProgress ?? (() => {}),
        })
        if (response.status < 200 || response.status > 299) throw uploadError(response)
        return JSON.parse(response.text) as KnowledgeUploadResult
      },
      ...documentsChanged,
    }),
    deleteDocument: useMutation({
      mutationFn: (id: string) =>
        client.request('DELETE', '/v1/knowledge/documents/{id}', {
          params: { id },
          idempotencyKey: newIdempotencyKey(),
        }),
      ...documentsChanged,
    }),
  }
}

/**
 * Asks an assistant's knowledge a question. Not a change of state, but a POST: a mutation, with the Idempotency-Key
 * the route takes. A declined question is kept for the assistant's report, which is fetched again.
 */
export function useAskKnowledge() {
  const { client, keys, newIdempotencyKey } = useTherapyCare()
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (question: KnowledgeQuestion) =>
      client.request('POST', '/v1/knowledge/query', { body: question, idempotencyKey: newIdempotencyKey() }),
    onSuccess: (answer) => queryClient.invalidateQueries({ queryKey: keys.unansweredQuestions(answer.assistantId) }),
  })
}
