/**
 * Parsing and chunking: structure (Markdown headings, inferred headings, PDF pages), failures with reasons, and
 * chunks that are verbatim slices of the text with their page and heading path; tables chunked by row.
 */
import { describe, expect, it } from 'vitest'
import { chunkDocument } from '../../../../../domain/ai/knowledge/chunk-document.ts'
import { KnowledgeParseError } from '../../../../../domain/ai/knowledge/knowledge-errors.ts'
import { readDocument as parseDocument } from '../../../../../adapters/document-parsing/read-document.ts'
import { renderPdf } from '../../../../../eval/pdf-writer.ts'

const utf8 = (text: string) => new TextEncoder().encode(text)

describe('parseDocument', () => {
  it('reads Markdown headings (ATX and setext) into heading paths, ignoring code fences', async () => {
    const text = '# Guide\n\nIntro.\n\n## Parking\n\nFree parking.\n\n```\n# not a heading\n```\n\nFees\n----\n\n$10.\n'
    const doc = await parseDocument('text/markdown', utf8(text))
    expect(doc.pages).toEqual([])
    expect(doc.sections.map((s) => s.headingPath)).toEqual([['Guide'], ['Guide', 'Parking'], ['Guide', 'Fees']])
    expect(doc.text.slice(doc.sections[1]!.start, doc.sections[1]!.end)).toContain('# not a heading')
  })

  it('infers headings of plain text: a title, then numbered sections nesting by their dots', async () => {
    const doc = await parseDocument(
      'text/plain',
      utf8('Staff Handbook\nWelcome to the team.\n1. Hours\nWe open at 8.\n1.1 Weekends\nClosed on Sundays.\n')
    )
    expect(doc.sections.map((s) => s.headingPath)).toEqual([
      ['Staff Handbook'],
      ['Staff Handbook', '1. Hours'],
      ['Staff Handbook', '1. Hours', '1.1 Weekends'],
    ])
  })

  it('reads a PDF page by page', async () => {
    const pdf = renderPdf({
      title: 'Policy',
      pages: [
        [
          { kind: 'title', text: 'Policy' },
          { kind: 'paragraph', text: 'Page one text.' },
        ],
        [
          { kind: 'heading', text: '2. Later' },
          { kind: 'paragraph', text: 'Page two text.' },
        ],
      ],
    })
    const doc = await parseDocument('application/pdf', pdf)
    expect(doc.pages.map((p) => p.page)).toEqual([1, 2])
    expect(doc.text.slice(doc.pages[1]!.start, doc.pages[1]!.end)).toContain('Page two text.')
    expect(doc.sections.at(-1)!.headingPath).toEqual(['Policy', '2. Later'])
  })

  it('fails with a reason for corrupt PDFs, text that is not UTF-8, and empty files', async () => {
    await expect(parseDocument('application/pdf', utf8('%PDF-1.4\ngarbage'))).rejects.toThrow(KnowledgeParseError)
    await expect(parseDocument('application/pdf', utf8('%PDF-1.4\ngarbage'))).rejects.toThrow(/PDF/)
    await expect(parseDocument('text/plain', new Uint8Array([0x66, 0xff, 0xfe]))).rejects.toThrow(
      'The file is not UTF-8 text.'
    )
    await expect(parseDocument('text/markdown', utf8('  \n\n'))).rejects.toThrow('The file has no text to index.')
  })
})

describe('chunkDocument', () => {
  it('makes chunks that are verbatim slices, never crossing a section, with their heading path', async () => {
    const paragraph = 'Sessions start on time. '.repeat(60)
    const text = `# Policy\n\n## Attendance\n\n${paragraph}\n\n## Fees\n\nA session costs $120.\n`
    const doc = await parseDocument('text/markdown', utf8(text))
    const chunks = await chunkDocument(doc, { chunkSize: 300, chunkOverlap: 50 })
    expect(chunks.length).toBeGreaterThan(4)
    for (const chunk of chunks) {
      expect(doc.text.slice(chunk.startOffset, chunk.endOffset)).toBe(chunk.content)
      expect(chunk.content.length).toBeLessThanOrEqual(300)
    }
    expect(chunks.map((c) => c.ordinal)).toEqual(chunks.map((_, i) => i))
    expect(chunks.at(-1)).toMatchObject({ content: 'A session costs $120.', headingPath: ['Policy', 'Fees'] })
    expect(chunks.filter((c) => c.headingPath.at(-1) === 'Attendance').every((c) => !c.content.includes('$120'))).toBe(
      true
    )
  })

  it('keeps PDF chunks on one page', async () => {
    const long = 'The centre follows the local school district for closures. '
    const pdf = renderPdf({
      title: 'P',
      pages: [[{ kind: 'paragraph', text: long.repeat(8) }], [{ kind: 'paragraph', text: long.repeat(8) }]],
    })
    const doc = await parseDocument('application/pdf', pdf)
    const chunks = await chunkDocument(doc, { chunkSize: 200, chunkOverlap: 40 })
    for (const chunk of chunks) {
      const page = doc.pages.find((p) => p.page === chunk.page)!
      expect(chunk.startOffset).toBeGreaterThanOrEqual(page.start)
      expect(chunk.endOffset).toBeLessThanOrEqual(page.end)
    }
    expect(new Set(chunks.map((c) => c.page))).toEqual(new Set([1, 2]))
  })

  it('chunks a Markdown table by row, with the header row as context', async () => {
    const text =
      '## Groups\n\nWeekly groups:\n\n| Day | Programme |\n|---|---|\n| Monday | Social Detectives |\n| Tuesday | Little Talkers |\n\nAll groups run in term time.\n'
    const doc = await parseDocument('text/markdown', utf8(text))
    const chunks = await chunkDocument(doc)
    expect(chunks.map((c) => c.content)).toEqual([
      'Weekly groups:',
      '| Monday | Social Detectives |',
      '| Tuesday | Little Talkers |',
      'All groups run in term time.',
    ])
    expect(chunks[1]!.context).toBe('| Day | Programme |')
    for (const chunk of chunks) expect(doc.text.slice(chunk.startOffset, chunk.endOffset)).toBe(chunk.content)
  })
})
