/**
 * @module Parsed documents to chunks that keep their source position: the page (PDFs), the heading path and the
 * character offsets of the chunk in the document text. LangChain's RecursiveCharacterTextSplitter does the splitting
 * (paragraphs, then lines, then sentences, then words); a chunk never crosses a section or a page, so its position
 * is one heading path and one page, and every chunk is a verbatim slice of the document text. Tables (Markdown
 * pipe tables, as schedules are written) are chunked by row, each row with its header row as context: a row is a
 * record ("Monday, 4 pm, Social Detectives"), and a whole timetable in one chunk would match every question a little
 * and none well.
 */
import { RecursiveCharacterTextSplitter } from '@langchain/textsplitters'
import type { ParsedDocument, TextSpan } from './parsed-document.ts'

export interface ChunkPosition {
  /** 1-based page, for PDFs. */
  page?: number
  /** "Attendance policy > Late cancellations"; empty before the first heading. */
  headingPath: string[]
  /** Offsets of the chunk in the document text: text.slice(startOffset, endOffset) is the chunk. */
  startOffset: number
  endOffset: number
}

export interface DocumentChunk extends ChunkPosition {
  /** Position in the document, from 0. */
  ordinal: number
  content: string
  /** Text that gives the chunk its meaning without being part of it: a table row's header row. */
  context?: string
}

export interface ChunkingOptions {
  /** Longest chunk, in characters. */
  chunkSize?: number
  /** Characters repeated between neighbouring chunks, so a sentence cut at a boundary is whole in one of them. */
  chunkOverlap?: number
}

export const DEFAULT_CHUNKING = { chunkSize: 700, chunkOverlap: 120 } as const

/** The spans where sections and pages overlap: the units a chunk may not cross. */
function units(doc: ParsedDocument): Array<TextSpan & { page?: number; headingPath: string[] }> {
  const sections = doc.sections.length > 0 ? doc.sections : [{ start: 0, end: doc.text.length, headingPath: [] }]
  if (doc.pages.length === 0) return sections
  return sections.flatMap((section) =>
    doc.pages
      .map((page) => ({
        start: Math.max(section.start, page.start),
        end: Math.min(section.end, page.end),
        page: page.page,
        headingPath: section.headingPath,
      }))
      .filter((unit) => unit.end > unit.start)
  )
}

const TABLE_ROW = /^[ \t]*\|.*\|[ \t]*$/
// The blanks after the optional pipe belong to it: two adjacent runs of blanks would backtrack on a long blank line.
const TABLE_RULE = /^[ \t]*(?:\|[ \t]*)?:?-{2,}/

interface Segment {
  start: number
  end: number
  /** Header row, for a table's data rows. */
  header?: string
  /** A table row is a chunk as it is; text is split. */
  kind: 'text' | 'row'
}

/** Splits a unit's text into table rows (with their header) and the text around tables. */
function segmentsOf(text: string): Segment[] {
  const segments: Segment[] = []
  const lines = text.split('\n')
  let offset = 0
  let textStart = 0
  let header: string | undefined
  for (const [i, line] of lines.entries()) {
    const lineStart = offset
    offset += line.length + 1
    if (!TABLE_ROW.test(line)) {
      header = undefined
      continue
    }
    if (lineStart > textStart) segments.push({ kind: 'text', start: textStart, end: lineStart })
    textStart = Math.min(offset, text.length)
    if (header === undefined) {
      // The first row of a table is its header when a rule line follows it.
      if (TABLE_RULE.test(lines[i + 1] ?? '')) {
        header = line.trim()
        continue
      }
      header = ''
    }
    if (TABLE_RULE.test(line)) continue
    segments.push({ kind: 'row', start: lineStart, end: lineStart + line.length, header: header || undefined })
  }
  if (text.length > textStart) segments.push({ kind: 'text', start: textStart, end: text.length })
  return segments
}

/** Leading punctuation the splitter leaves when it cuts at ". " (the separator starts the next piece). */
const LEADING_JUNK = /^[\s.;,:]+/

/**
 * Splits a parsed document into positioned chunks.
 * @returns chunks in document order, none empty
 */
export async function chunkDocument(doc: ParsedDocument, options: ChunkingOptions = {}): Promise<DocumentChunk[]> {
  const splitter = new RecursiveCharacterTextSplitter({
    chunkSize: options.chunkSize ?? DEFAULT_CHUNKING.chunkSize,
    chunkOverlap: options.chunkOverlap ?? DEFAULT_CHUNKING.chunkOverlap,
    separators: ['\n\n', '\n', '. ', '; ', ', ', ' ', ''],
    keepSeparator: true,
  })
  const chunks: DocumentChunk[] = []
  for (const unit of units(doc)) {
    const unitText = doc.text.slice(unit.start, unit.end)
    const push = (start: number, content: string, context?: string) =>
      chunks.push({
        ordinal: chunks.length,
        content,
        ...(context ? { context } : {}),
        page: unit.page,
        headingPath: unit.headingPath,
        startOffset: unit.start + start,
        endOffset: unit.start + start + content.length,
      })
    for (const segment of segmentsOf(unitText)) {
      const segmentText = unitText.slice(segment.start, segment.end)
      if (segment.kind === 'row') {
        const lead = segmentText.length - segmentText.trimStart().length
        if (/[\p{L}\p{N}]/u.test(segmentText)) push(segment.start + lead, segmentText.trim(), segment.header)
        continue
      }
      let cursor = 0
      for (const piece of await splitter.splitText(segmentText)) {
        const content = piece.replace(LEADING_JUNK, '')
        if (!/[\p{L}\p{N}]/u.test(content)) continue
        // Pieces are verbatim and in order, overlapping by at most chunkOverlap, so each is found at or after the
        // previous one's start.
        const at = segmentText.indexOf(content, cursor)
        if (at < 0) throw new Error('chunk not found in its source text')
        cursor = at + 1
        push(segment.start + at, content)
      }
    }
  }
  return chunks
}
