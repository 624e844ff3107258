/**
 * @module Knowledge files to text with structure: the document's full text, where each PDF page starts and ends in
 * it, and its sections with their heading paths (Markdown headings; for PDFs and plain text, heading-like lines).
 * Offsets index the returned text, so a chunk's position and a citation's quote can be found in it again.
 */
import { InvalidPDFException, PasswordException, PDFParse } from 'pdf-parse'
import { KnowledgeParseError } from './knowledge-errors.ts'
import type { KnowledgeMediaType } from './media-types.ts'

/** A span of the document text. */
export interface TextSpan {
  start: number
  end: number
}

export interface PageSpan extends TextSpan {
  /** 1-based page number. */
  page: number
}

export interface SectionSpan extends TextSpan {
  /** Headings from the outermost to this section's own, e.g. ["Attendance policy", "Late cancellations"]. */
  headingPath: string[]
}

export interface ParsedDocument {
  text: string
  /** PDF pages, in order; empty for text formats. */
  pages: PageSpan[]
  /** Sections covering the text after each heading (the heading line itself is not part of a section). */
  sections: SectionSpan[]
}

const MAX_PDF_PAGES = 2000

/** Decodes UTF-8 strictly (a byte that is not UTF-8 is a bad file, not a replacement character) and unifies newlines. */
function decodeText(bytes: Uint8Array): string {
  let text: string
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes)
  } catch {
    throw new KnowledgeParseError('The file is not UTF-8 text.')
  }
  return text.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n')
}

interface Heading {
  level: number
  title: string
  /** Offset of the heading line's start and of the line after it. */
  lineStart: number
  bodyStart: number
}

/** Markdown headings: ATX (`## Title`) and setext (`Title` over `===` or `---`), not inside code fences. */
function markdownHeadings(text: string): Heading[] {
  const headings: Heading[] = []
  const lines = text.split('\n')
  let offset = 0
  let fenced = false
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!
    const next = lines[i + 1]
    const lineStart = offset
    offset += line.length + 1
    if (/^\s{0,3}(```|~~~)/.test(line)) fenced = !fenced
    if (fenced) continue
    const atx = /^\s{0,3}(#{1,6})\s+(.+?)\s*#*\s*$/.exec(line)
    if (atx) {
      headings.push({ level: atx[1]!.length, title: atx[2]!, lineStart, bodyStart: Math.min(offset, text.length) })
    } else if (line.trim() && next !== undefined && /^\s{0,3}(=+|-+)\s*$/.test(next) && !/^\s*[-*+]\s/.test(line)) {
      offset += next.length + 1
      i++
      headings.push({
        level: next.trim()[0] === '=' ? 1 : 2,
        title: line.trim(),
        lineStart,
        bodyStart: Math.min(offset, text.length),
      })
    }
  }
  return headings
}

/**
 * Heading-like lines of unstructured text (PDF pages, plain text): short, no sentence punctuation at the end, not
 * a list item, starting with a capital or a section number. The first one is the title (level 1); numbered ones
 * nest by their dots ("2.1" is below "2"); the rest are level 2.
 */
function inferredHeadings(text: string): Heading[] {
  const headings: Heading[] = []
  let offset = 0
  const lines = text.split('\n')
  for (const [i, line] of lines.entries()) {
    const lineStart = offset
    offset += line.length + 1
    const trimmed = line.trim()
    const words = trimmed.split(/\s+/).length
    const headingLike =
      trimmed.length >= 3 &&
      trimmed.length <= 70 &&
      words <= 10 &&
      /^([A-Z]|\d+(\.\d+)*\.?\s+[A-Z])/.test(trimmed) &&
      !/[.,;:!?)]$/.test(trimmed) &&
      !/^[-*\u2022]\s/.test(trimmed) &&
      (lines[i + 1]?.trim().length ?? 0) > 0
    if (!headingLike) continue
    const number = /^(\d+(?:\.\d+)*)\.?\s/.exec(trimmed)?.[1]
    const level = number ? number.split('.').length + 1 : headings.length === 0 ? 1 : 2
    headings.push({ level, title: trimmed, lineStart, bodyStart: Math.min(offset, text.length) })
  }
  return headings
}

/** Sections between headings, each with the path of headings above it; text before the first heading has none. */
function sectionsOf(text: string, headings: Heading[]): SectionSpan[] {
  const sections: SectionSpan[] = []
  const path: Heading[] = []
  const firstStart = headings[0]?.lineStart ?? text.length
  if (text.slice(0, firstStart).trim()) sections.push({ start: 0, end: firstStart, headingPath: [] })
  for (const [i, heading] of headings.entries()) {
    while (path.length > 0 && path[path.length - 1]!.level >= heading.level) path.pop()
    path.push(heading)
    const end = headings[i + 1]?.lineStart ?? text.length
    if (text.slice(heading.bodyStart, end).trim()) {
      sections.push({ start: heading.bodyStart, end, headingPath: path.map((h) => h.title) })
    }
  }
  return sections
}

async function parsePdf(bytes: Uint8Array): Promise<ParsedDocument> {
  // pdf.js takes ownership of the buffer it is given; a copy keeps the caller's bytes intact.
  const parser = new PDFParse({ data: new Uint8Array(bytes), verbosity: 0 })
  try {
    const info = await parser.getInfo()
    if (info.total > MAX_PDF_PAGES)
      throw new KnowledgeParseError(`The PDF has ${info.total} pages; at most ${MAX_PDF_PAGES} are indexed.`)
    const result = await parser.getText()
    const pages: PageSpan[] = []
    let text = ''
    for (const page of result.pages) {
      const pageText = page.text
        .replace(/\r\n?/g, '\n')
        .replace(/[ \t]+\n/g, '\n')
        .trim()
      if (text) text += '\n\n'
      pages.push({ page: page.num, start: text.length, end: text.length + pageText.length })
      text += pageText
    }
    if (!text.trim()) {
      throw new KnowledgeParseError(
        'The PDF has no text to index (scanned pages without a text layer are not supported).'
      )
    }
    return { text, pages, sections: sectionsOf(text, inferredHeadings(text)) }
  } catch (error) {
    if (error instanceof KnowledgeParseError) throw error
    if (error instanceof PasswordException) throw new KnowledgeParseError('The PDF is password-protected.')
    if (error instanceof InvalidPDFException)
      throw new KnowledgeParseError(`The file is not a readable PDF: ${error.message}`)
    // pdf.js reports damaged streams, fonts and xref tables with many error types; all mean the same to a centre.
    throw new KnowledgeParseError(
      `The PDF could not be read: ${error instanceof Error ? error.message : String(error)}`
    )
  } finally {
    await parser.destroy().catch(() => undefined)
  }
}

/**
 * Parses a knowledge file.
 * @param mediaType - the type the upload was accepted as
 * @param bytes - the file
 * @throws KnowledgeParseError with a reason fit to show the uploader (the document's `failureReason`)
 */
export async function parseDocument(mediaType: KnowledgeMediaType, bytes: Uint8Array): Promise<ParsedDocument> {
  if (mediaType === 'application/pdf') return parsePdf(bytes)
  const text = decodeText(bytes)
  if (!text.trim()) throw new KnowledgeParseError('The file has no text to index.')
  const headings = mediaType === 'text/markdown' ? markdownHeadings(text) : inferredHeadings(text)
  return { text, pages: [], sections: sectionsOf(text, headings) }
}
