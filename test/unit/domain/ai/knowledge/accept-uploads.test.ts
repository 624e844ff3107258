/** Upload checks: type detection by content type, extension and bytes; limits with their status codes. */
import { describe, expect, it } from 'vitest'
import { acceptUploads, cleanFileName } from '../../../../../domain/ai/knowledge/accept-uploads.ts'
import { detectMediaType } from '../../../../../domain/ai/knowledge/media-types.ts'
import { AppError } from '../../../../../domain/errors.ts'

const utf8 = (text: string) => new TextEncoder().encode(text)
const pdfBytes = utf8('%PDF-1.4\n...')
const limits = { maxFiles: 2, maxFileBytes: 100 }

const errorOf = (fn: () => unknown): AppError => {
  try {
    fn()
  } catch (error) {
    if (error instanceof AppError) return error
    throw error
  }
  throw new Error('expected an AppError')
}

describe('detectMediaType', () => {
  it('trusts a specific content type, else the extension, and checks PDFs by their bytes', () => {
    expect(detectMediaType('policy.pdf', 'application/pdf', pdfBytes)).toBe('application/pdf')
    expect(detectMediaType('policy.pdf', 'application/octet-stream', pdfBytes)).toBe('application/pdf')
    expect(detectMediaType('renamed.pdf', 'application/pdf', utf8('hello'))).toBeUndefined()
    expect(detectMediaType('schedule.md', 'text/plain', utf8('# A'))).toBe('text/markdown')
    expect(detectMediaType('notes.txt', '', utf8('hello'))).toBe('text/plain')
    expect(detectMediaType('disguised.txt', 'text/plain', pdfBytes)).toBeUndefined()
    expect(detectMediaType('photo.png', 'image/png', new Uint8Array([0x89]))).toBeUndefined()
    expect(detectMediaType('archive.zip', 'application/octet-stream', new Uint8Array([0x50]))).toBeUndefined()
  })
})

describe('acceptUploads', () => {
  it('accepts files with their type and hash', () => {
    const [file] = acceptUploads([{ name: 'C:\\docs\\a.md', contentType: 'text/markdown', bytes: utf8('# A') }], limits)
    expect(file).toMatchObject({ name: 'a.md', mediaType: 'text/markdown' })
    expect(file!.sha256).toMatch(/^[0-9a-f]{64}$/)
  })

  it('answers 400 for no files or too many, 413 for a large file, 415 for a foreign type, 400 for empty files', () => {
    expect(errorOf(() => acceptUploads([], limits))).toMatchObject({
      status: 400,
      errors: [{ path: 'files', code: 'required' }],
    })
    const three = Array.from({ length: 3 }, () => ({ name: 'a.txt', contentType: 'text/plain', bytes: utf8('a') }))
    expect(errorOf(() => acceptUploads(three, limits))).toMatchObject({
      status: 400,
      errors: [{ path: 'files', code: 'too_many' }],
    })
    const big = errorOf(() =>
      acceptUploads([{ name: 'big.txt', contentType: 'text/plain', bytes: new Uint8Array(101) }], limits)
    )
    expect(big).toMatchObject({ status: 413, code: 'payload_too_large' })
    expect(big.message).toContain('big.txt')
    expect(
      errorOf(() => acceptUploads([{ name: 'x.png', contentType: 'image/png', bytes: utf8('x') }], limits))
    ).toMatchObject({ status: 415, code: 'unsupported_media_type' })
    expect(
      errorOf(() => acceptUploads([{ name: 'e.md', contentType: 'text/markdown', bytes: new Uint8Array() }], limits))
    ).toMatchObject({
      status: 400,
      errors: [{ path: 'files.0', code: 'empty' }],
    })
  })

  it('keeps file names printable and short', () => {
    expect(cleanFileName('../../etc/passwd')).toBe('passwd')
    expect(cleanFileName('a\u0000b.md')).toBe('ab.md')
    expect(cleanFileName('')).toBe('untitled')
    expect(cleanFileName(`${'x'.repeat(300)}.md`)).toHaveLength(255)
  })
})
