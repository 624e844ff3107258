/**
 * Reading untrusted knowledge files (issue 54): the reader is linear on the line that froze the worker (a Markdown
 * heading followed by 300,000 spaces), refuses a PDF whose compressed streams would inflate past the budget before
 * expanding them, and stops at its character budget; the sandbox stops a file at its deadline in a thread of its own,
 * reads the next file in a fresh thread, keeps the event loop free while it reads, and takes waiting files tenant by
 * tenant.
 */
import { deflateSync } from 'node:zlib'
import { afterEach, describe, expect, it } from 'vitest'
import { DEFAULT_READ_LIMITS, readDocument } from '../../../adapters/document-parsing/read-document.ts'
import { SandboxedDocumentParser, type SandboxLimits } from '../../../adapters/document-parsing/sandboxed-parser.ts'
import { KnowledgeParseError } from '../../../domain/ai/knowledge/knowledge-errors.ts'
import { renderPdf } from '../../../eval/pdf-writer.ts'

const utf8 = (text: string) => new TextEncoder().encode(text)

/** The line of the security review: `# a`, 300,000 spaces, `b` (cubic in the old heading pattern: hours). */
const PATHOLOGICAL_MARKDOWN = `# a${' '.repeat(300_000)}b\n\nThe body under it.\n`

/** A PDF-shaped file whose one Flate stream inflates to `inflatedBytes` of zeros. */
function inflationBomb(inflatedBytes: number): Uint8Array {
  const stream = deflateSync(Buffer.alloc(inflatedBytes), { level: 9 })
  const head = Buffer.from(`%PDF-1.4\n1 0 obj\n<< /Length ${stream.length} /Filter /FlateDecode >>\nstream\n`)
  return Buffer.concat([head, stream, Buffer.from('\nendstream\nendobj\n%%EOF\n')])
}

describe('readDocument on hostile files', () => {
  it('reads the pathological heading line in linear time, its title collapsed', async () => {
    const started = performance.now()
    const doc = await readDocument('text/markdown', utf8(PATHOLOGICAL_MARKDOWN))
    // Generous for a slow machine: the old pattern needed minutes at 8,000 spaces.
    expect(performance.now() - started).toBeLessThan(2000)
    expect(doc.sections).toHaveLength(1)
    expect(doc.sections[0]!.headingPath).toEqual(['a b'])
  })

  it('reads trailing blanks of a PDF line without a backtracking pattern', async () => {
    const pdf = renderPdf({
      title: 'Policy',
      pages: [[{ kind: 'paragraph', text: `Fees apply.${' '.repeat(50_000)}` }]],
    })
    const doc = await readDocument('application/pdf', pdf)
    expect(doc.text).toBe('Fees apply.')
  })

  it('refuses a compressed-stream bomb before pdf.js expands it', async () => {
    const limits = { ...DEFAULT_READ_LIMITS, maxInflatedBytes: 4 * 1024 * 1024 }
    const read = readDocument('application/pdf', inflationBomb(16 * 1024 * 1024), limits)
    await expect(read).rejects.toThrow(KnowledgeParseError)
    await expect(read).rejects.toThrow(/expands to more than 4 MB/)
  })

  it('refuses text past its character budget, with the counts in the reason', async () => {
    const limits = { ...DEFAULT_READ_LIMITS, maxTextChars: 1000 }
    await expect(readDocument('text/plain', utf8('x'.repeat(1001)), limits)).rejects.toThrow(
      'The file has 1,001 characters of text; at most 1,000 are indexed.'
    )
    const pdf = renderPdf({
      title: 'Long',
      pages: [0, 1, 2].map(() => [{ kind: 'paragraph' as const, text: 'Sessions start on time. '.repeat(20) }]),
    })
    await expect(readDocument('application/pdf', pdf, limits)).rejects.toThrow(/more than 1,000 characters .* page 3/)
  })
})

describe('SandboxedDocumentParser', () => {
  let parser: SandboxedDocumentParser | undefined
  const sandbox = (limits: Partial<SandboxLimits> = {}) =>
    (parser = new SandboxedDocumentParser({
      ...DEFAULT_READ_LIMITS,
      timeoutMs: 30_000,
      maxHeapMb: 128,
      threads: 1,
      ...limits,
    }))
  afterEach(async () => {
    await parser?.close()
  })

  it('reads a file in a thread while the event loop stays free', async () => {
    const reader = sandbox()
    let worstLag = 0
    let last = performance.now()
    const ticker = setInterval(() => {
      const now = performance.now()
      worstLag = Math.max(worstLag, now - last - 10)
      last = now
    }, 10)
    // A megabyte of Markdown: a hundred milliseconds and more of parsing, all of it off this thread.
    const big = '# Heading\n\nA paragraph of policy text.\n\n'.repeat(25_000)
    const doc = await reader.parse({ tenantId: 'tnt_a', mediaType: 'text/markdown', bytes: utf8(big) })
    clearInterval(ticker)
    expect(doc.sections).toHaveLength(25_000)
    // A thread's start posts a few messages here; nothing near the parse's own time.
    expect(worstLag).toBeLessThan(250)
  }, 30_000)

  it('stops a file at its deadline with a reason, and reads the next file in a fresh thread', async () => {
    const reader = sandbox({ timeoutMs: 50 })
    const slow = '# Heading\n\nA paragraph of policy text.\n\n'.repeat(150_000)
    const late = reader.parse({ tenantId: 'tnt_a', mediaType: 'text/markdown', bytes: utf8(slow) })
    await expect(late).rejects.toThrow(KnowledgeParseError)
    await expect(late).rejects.toThrow(/took longer than [0-9.]+ s; it is not indexed/)
    parser = sandbox()
    const doc = await parser.parse({ tenantId: 'tnt_a', mediaType: 'text/markdown', bytes: utf8('# Fine\n\nText.') })
    expect(doc.sections[0]!.headingPath).toEqual(['Fine'])
  }, 30_000)

  it('takes waiting files tenant by tenant', async () => {
    const reader = sandbox()
    const finished: string[] = []
    const file = (tenantId: string, name: string) =>
      reader
        .parse({ tenantId, mediaType: 'text/markdown', bytes: utf8(`# ${name}\n\nText.`) })
        .then(() => finished.push(name))
    await Promise.all([file('tnt_a', 'a1'), file('tnt_a', 'a2'), file('tnt_a', 'a3'), file('tnt_b', 'b1')])
    // b1 came while a1 was read and a2 already waited: it waits for a2 (a's turn), not for a3 as well.
    expect(finished).toEqual(['a1', 'a2', 'b1', 'a3'])
  }, 30_000)
})
