/**
 * @module The file types knowledge accepts, and how an upload's type is decided: by its declared content type,
 * else by its extension, then confirmed by its bytes (a PDF must start with `%PDF-`), so a renamed binary is refused
 * at upload rather than failing later in the indexing workflow.
 */

export const KNOWLEDGE_MEDIA_TYPES = ['application/pdf', 'text/markdown', 'text/plain'] as const
export type KnowledgeMediaType = (typeof KNOWLEDGE_MEDIA_TYPES)[number]

const BY_EXTENSION: Record<string, KnowledgeMediaType> = {
  pdf: 'application/pdf',
  md: 'text/markdown',
  markdown: 'text/markdown',
  txt: 'text/plain',
  text: 'text/plain',
}

const BY_CONTENT_TYPE: Record<string, KnowledgeMediaType> = {
  'application/pdf': 'application/pdf',
  'application/x-pdf': 'application/pdf',
  'text/markdown': 'text/markdown',
  'text/x-markdown': 'text/markdown',
  'text/plain': 'text/plain',
}

/** Content types that say nothing about the file, so the extension decides. */
const GENERIC = new Set(['', 'application/octet-stream', 'binary/octet-stream'])

/**
 * The knowledge type of an uploaded file, or undefined when it is not one we accept.
 * @param name - the file name the client sent
 * @param contentType - the part's Content-Type
 * @param head - the file's first bytes
 */
export function detectMediaType(name: string, contentType: string, head: Uint8Array): KnowledgeMediaType | undefined {
  const declared = contentType.split(';')[0]!.trim().toLowerCase()
  const extension = /\.([a-z0-9]+)$/i.exec(name)?.[1]?.toLowerCase() ?? ''
  let type: KnowledgeMediaType | undefined = GENERIC.has(declared) ? BY_EXTENSION[extension] : BY_CONTENT_TYPE[declared]
  // Browsers send text/plain for .md files they do not know; the extension is the better witness then.
  if (type === 'text/plain' && BY_EXTENSION[extension] === 'text/markdown') type = 'text/markdown'
  const looksLikePdf = Buffer.from(head.subarray(0, 1024)).includes('%PDF-')
  if (type === 'application/pdf') return looksLikePdf ? type : undefined
  // A PDF declared as text would index as gibberish.
  if (type && looksLikePdf) return undefined
  return type
}
