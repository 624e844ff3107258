/**
 * @module Multipart requests for the knowledge tests (the shared HTTP client sends JSON only), and helpers to wait for
 * a document's indexing workflow and ask a question.
 */
import type { AnswerDecision } from '../../domain/ai/answering/answer-types.ts'
import { readFile } from 'node:fs/promises'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import type { HttpResponse } from './http.ts'
import { eventually, type Platform } from './platform.ts'

const CORPUS = fileURLToPath(new URL('../../eval/corpus/', import.meta.url))

export interface FilePart {
  name: string
  type: string
  bytes: Uint8Array
}

/** A file of the evaluation corpus, typed by its extension. */
export async function corpusFile(name: string): Promise<FilePart> {
  const types: Record<string, string> = { '.pdf': 'application/pdf', '.md': 'text/markdown', '.txt': 'text/plain' }
  return {
    name,
    type: types[path.extname(name)] ?? 'application/octet-stream',
    bytes: new Uint8Array(await readFile(path.join(CORPUS, name))),
  }
}

export const textFile = (name: string, text: string, type = 'text/markdown'): FilePart => ({
  name,
  type,
  bytes: new TextEncoder().encode(text),
})

export interface FormOptions {
  token: string
  fields?: Record<string, string>
  files: FilePart[]
  fileField?: string
  headers?: Record<string, string>
}

/**
 * Encodes a multipart body once, so it can be sent twice byte for byte (a new FormData gets a new boundary, and an
 * idempotent retry must repeat the same request).
 */
export async function encodeForm(options: Pick<FormOptions, 'fields' | 'files' | 'fileField'>) {
  const form = new FormData()
  for (const [key, value] of Object.entries(options.fields ?? {})) form.append(key, value)
  for (const file of options.files)
    form.append(options.fileField ?? 'files', new Blob([file.bytes], { type: file.type }), file.name)
  const request = new Request('http://localhost/', { method: 'POST', body: form })
  return { body: new Uint8Array(await request.arrayBuffer()), contentType: request.headers.get('content-type')! }
}

/** Sends a multipart form: `fields` as text parts, each file under `fileField`. */
export async function sendForm(
  platform: Platform,
  method: 'POST' | 'PUT',
  url: string,
  options: FormOptions
): Promise<HttpResponse> {
  return sendEncoded(platform, method, url, options.token, await encodeForm(options), options.headers)
}

/** Sends an encoded multipart body. */
export async function sendEncoded(
  platform: Platform,
  method: 'POST' | 'PUT',
  url: string,
  token: string,
  encoded: { body: Uint8Array; contentType: string },
  headers: Record<string, string> = {}
): Promise<HttpResponse> {
  const response = await fetch(`${platform.api.url}${url}`, {
    method,
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': encoded.contentType, ...headers },
    body: encoded.body,
  })
  const text = await response.text()
  let body: unknown = text
  try {
    body = text ? JSON.parse(text) : undefined
  } catch {
    // not JSON: keep the text
  }
  return { status: response.status, headers: response.headers, body }
}

/** Uploads files to an assistant; expects 202 and returns the documents. */
export async function upload(platform: Platform, token: string, assistantId: string, files: FilePart[]) {
  const response = await sendForm(platform, 'POST', '/v1/knowledge/documents', {
    token,
    fields: { assistantId },
    files,
  })
  if (response.status !== 202) throw new Error(`upload answered ${response.status}: ${JSON.stringify(response.body)}`)
  return response.body.data as Array<{ id: string; name: string; status: string; version: number }>
}

/** Waits until a document leaves PROCESSING (at `version`, when given) and returns it. */
export function settled(platform: Platform, token: string, documentId: string, version = 1, timeoutMs = 60_000) {
  return eventually(async () => {
    const response = await platform.http.get(`/v1/knowledge/documents/${documentId}`, { token })
    const doc = response.body
    return doc?.version === version && doc.status !== 'PROCESSING' ? doc : undefined
  }, timeoutMs)
}

/** Asks a question; expects 200. */
export async function ask(platform: Platform, token: string, assistantId: string, question: string) {
  const response = await platform.http.post('/v1/knowledge/query', { token, body: { assistantId, question } })
  if (response.status !== 200) throw new Error(`query answered ${response.status}: ${JSON.stringify(response.body)}`)
  return response.body as {
    answered: boolean
    answer: string
    citations: Array<{
      documentId: string
      documentName: string
      page?: number
      headingPath: string[]
      quote: string
      score: number
      startOffset: number
      endOffset: number
    }>
    decision: AnswerDecision
    models: { vectorStore: string; embeddings: string; answerer: string }
  }
}
