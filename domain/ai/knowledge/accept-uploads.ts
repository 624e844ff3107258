/**
 * @module The upload limits and file checks of knowledge uploads, in the order a client can act on them: too many
 * files (400), a file too large (413), a type we do not read (415), an empty file (400). Every check runs before
 * anything is stored, so a refused upload stores nothing.
 */
import { createHash } from 'node:crypto'
import { payloadTooLarge, unsupportedMediaType, validationError, type FieldError } from '../../errors.ts'
import { detectMediaType, type KnowledgeMediaType } from './media-types.ts'

/** A file as the route received it. */
export interface UploadedFile {
  name: string
  contentType: string
  bytes: Uint8Array
}

/** A file that passed the checks. */
export interface AcceptedFile {
  name: string
  mediaType: KnowledgeMediaType
  bytes: Uint8Array
  sha256: string
}

export interface UploadLimits {
  maxFiles: number
  maxFileBytes: number
}

/** The name to keep: the last path segment (browsers and curl may send a path), printable, at most 255 characters. */
export function cleanFileName(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? ''
  // eslint-disable-next-line no-control-regex -- removing control characters is the point
  const printable = base.replace(/[\u0000-\u001f\u007f]/g, '').trim()
  return (printable || 'untitled').slice(0, 255)
}

const fileTooLarge = (name: string, size: number, limit: number) =>
  payloadTooLarge(limit, `The file "${name}" is ${size} bytes; each knowledge file may be at most ${limit} bytes.`)

/**
 * Checks the files of an upload (or the one file of a replacement).
 * @param field - the form field, for error paths (`files`, `file`)
 * @throws AppError 400 `validation_error`, 413 `payload_too_large`, 415 `unsupported_media_type`
 */
export function acceptUploads(files: UploadedFile[], limits: UploadLimits, field = 'files'): AcceptedFile[] {
  if (files.length === 0)
    throw validationError([{ path: field, code: 'required', message: 'Attach at least one file.' }])
  if (files.length > limits.maxFiles) {
    throw validationError([
      {
        path: field,
        code: 'too_many',
        message: `At most ${limits.maxFiles} files per upload; this one has ${files.length}.`,
      },
    ])
  }
  const empty: FieldError[] = []
  const accepted = files.map((file, index): AcceptedFile | undefined => {
    const name = cleanFileName(file.name)
    if (file.bytes.byteLength > limits.maxFileBytes)
      throw fileTooLarge(name, file.bytes.byteLength, limits.maxFileBytes)
    if (file.bytes.byteLength === 0) {
      empty.push({
        path: files.length > 1 || field === 'files' ? `${field}.${index}` : field,
        code: 'empty',
        message: `The file "${name}" is empty.`,
      })
      return undefined
    }
    const mediaType = detectMediaType(name, file.contentType, file.bytes)
    if (!mediaType) {
      throw unsupportedMediaType(
        `The file "${name}" (${file.contentType || 'no content type'}) is not a PDF, Markdown or plain-text file. ` +
          'Accepted: application/pdf (.pdf), text/markdown (.md), text/plain (.txt).'
      )
    }
    return { name, mediaType, bytes: file.bytes, sha256: createHash('sha256').update(file.bytes).digest('hex') }
  })
  if (empty.length > 0) throw validationError(empty)
  return accepted as AcceptedFile[]
}

/** A document sent as JSON rather than as a multipart file part: its text, or its bytes in base64. */
export interface JsonDocument {
  name: string
  mediaType?: string
  text?: string
  content?: string
}

/**
 * Turns a JSON document into the file an upload would have carried, so JSON and multipart bodies pass the same checks
 * (size, type, emptiness) in {@link acceptUploads}. Text without a declared type is plain text, which a `.md` name
 * upgrades to Markdown; base64 content without one is typed by its name, as a multipart part without a type would be.
 * @throws AppError 400 `validation_error` when neither or both of `text` and `content` are given, or `content` is
 *   not base64
 */
export function fromJsonDocument(document: JsonDocument, path = ''): UploadedFile {
  const at = (field: string) => (path ? `${path}.${field}` : field)
  if ((document.text === undefined) === (document.content === undefined)) {
    throw validationError([
      { path: at('text'), code: 'text_or_content', message: 'Send exactly one of `text` and `content` (base64).' },
    ])
  }
  if (document.text !== undefined) {
    return { name: document.name, contentType: document.mediaType ?? 'text/plain', bytes: Buffer.from(document.text) }
  }
  const content = document.content!.replace(/\s+/g, '')
  if (!/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(content)) {
    throw validationError([{ path: at('content'), code: 'invalid_base64', message: 'Must be base64 (RFC 4648).' }])
  }
  return {
    name: document.name,
    contentType: document.mediaType ?? '',
    bytes: new Uint8Array(Buffer.from(content, 'base64')),
  }
}
