/**
 * @module Reading a knowledge file into text with structure (domain/ai/knowledge/parsed-document.ts), in the calling
 * thread: what the reader process (reader-process.mjs) runs, under its deadline and memory budget. Everything here is
 * linear in the file: Markdown through markdown-it's block tokenizer (headings, setext headings and code fences as CommonMark
 * reads them; no hand-written heading pattern, whose backtracking froze the worker on one line of spaces), PDF text
 * through pdf.js page by page within a page count and a character budget, after a scan that refuses a file whose
 * compressed streams would inflate past a budget (a "zip bomb" is refused, not expanded).
 */
import { inflateSync } from 'node:zlib'
import MarkdownIt from 'markdown-it'
import { KnowledgeParseError } from '../../domain/ai/knowledge/knowledge-errors.ts'
import type { KnowledgeMediaType } from '../../domain/ai/knowledge/media-types.ts'
import type { PageSpan, ParsedDocument, SectionSpan } from '../../domain/ai/knowledge/parsed-document.ts'

/** What one file may cost; exceeding any of them fails the document with a reason, it is never retried. */
export interface ReadLimits {
  /** PDF pages. */
  maxPages: number
  /** Characters of text, after extraction (PDF) or decoding (text formats). */
  maxTextChars: number
  /** Bytes all of a PDF's compressed streams may inflate to. */
  maxInflatedBytes: number
}

export const DEFAULT_READ_LIMITS: ReadLimits = {
  maxPages: 2000,
  maxTextChars: 5_000_000,
  maxInflatedBytes: 200 * 1024 * 1024,
}

const formatCount = (n: number) => n.toLocaleString('en-US')

/** Decodes UTF-8 strictly (a byte that is not UTF-8 is a bad file, not a replacement character) and unifies newlines. */
function decodeText(bytes: Uint8Array, limits: ReadLimits): string {
  let text: string
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes)
  } catch {
    throw new KnowledgeParseError('The file is not UTF-8 text.')
  }
  if (text.length > limits.maxTextChars)
    throw new KnowledgeParseError(
      `The file has ${formatCount(text.length)} characters of text; at most ${formatCount(limits.maxTextChars)} are indexed.`
    )
  return text.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n')
}

interface Heading {
  level: number
  title: string
  /** Offset of the heading line's start and of the line after it. */
  lineStart: number
  bodyStart: number
}

/** Offsets of each line's start, and one past the end. */
function lineStarts(text: string): number[] {
  const starts = [0]
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) starts.push(at + 1)
  starts.push(text.length + 1)
  return starts
}

const MAX_TITLE_CHARS = 200

// Block structure only: headings need neither inline parsing nor HTML, and the inline rules are most of the cost.
const markdown = new MarkdownIt('commonmark')
markdown.core.ruler.disable(['inline', 'text_join'])

/** Markdown headings (ATX and setext, not inside code), as CommonMark reads them. */
function markdownHeadings(text: string): Heading[] {
  const tokens = markdown.parse(text, {})
  const starts = lineStarts(text)
  const headings: Heading[] = []
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!
    if (token.type !== 'heading_open' || !token.map) continue
    const inline = tokens[i + 1]?.type === 'inline' ? tokens[i + 1]!.content : ''
    // A heading path rides along with every chunk and its embedding: a title is a line of words, not a page of spaces.
    const title = inline.replace(/\s+/g, ' ').trim().slice(0, MAX_TITLE_CHARS)
    if (!title) continue
    const [first, afterLast] = token.map
    headings.push({
      level: Number(token.tag.slice(1)),
      title,
      lineStart: starts[first]!,
      bodyStart: Math.min(starts[afterLast]!, text.length),
    })
  }
  return headings
}

/** Whether a trimmed line looks like a heading: a capital, or a section number and a capital. Linear. */
const startsLikeHeading = /^(?:[A-Z]|\d+(?:\.\d+)*\.?\s+[A-Z])/
const endsLikeSentence = /[.,;:!?)]$/
const listItem = /^[-*\u2022]\s/
const sectionNumber = /^(\d+(?:\.\d+)*)\.?\s/

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
    // Length first: every pattern below then runs on at most 70 characters.
    if (trimmed.length < 3 || trimmed.length > 70) continue
    const headingLike =
      trimmed.split(/\s+/).length <= 10 &&
      startsLikeHeading.test(trimmed) &&
      !endsLikeSentence.test(trimmed) &&
      !listItem.test(trimmed) &&
      (lines[i + 1]?.trim().length ?? 0) > 0
    if (!headingLike) continue
    const number = sectionNumber.exec(trimmed)?.[1]
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

/** A page's text with unified newlines and no trailing blanks on its lines, without a pattern that backtracks. */
function tidyPageText(text: string): string {
  return text
    .replace(/\r\n?/g, '\n')
    .split('\n')
    .map((line) => line.trimEnd())
    .join('\n')
    .trim()
}

const STREAM = Buffer.from('stream')
const END_STREAM = Buffer.from('endstream')

/**
 * Refuses a PDF whose Flate-compressed streams inflate past `limits.maxInflatedBytes` in all, before pdf.js expands
 * any of them in memory: each stream is inflated with an output cap of what is left of the budget, so the scan itself
 * never holds more than the budget. Streams that do not inflate (other filters, damaged data) are pdf.js's to judge.
 */
function refuseInflationBomb(bytes: Uint8Array, limits: ReadLimits): void {
  const file = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  let left = limits.maxInflatedBytes
  for (let at = file.indexOf(STREAM); at !== -1; at = file.indexOf(STREAM, at + STREAM.length)) {
    // `endstream` contains `stream`: only a keyword that starts a stream, followed by its end of line, counts.
    if (at >= 3 && file.subarray(at - 3, at).toString('latin1') === 'end') continue
    let start = at + STREAM.length
    if (file[start] === 0x0d) start++
    if (file[start] !== 0x0a) continue
    start++
    const dictionary = file.subarray(Math.max(0, at - 1024), at).toString('latin1')
    if (!dictionary.includes('/FlateDecode')) continue
    const end = file.indexOf(END_STREAM, start)
    const data = file.subarray(start, end === -1 ? file.length : end)
    try {
      left -= inflateSync(data, {
        maxOutputLength: left + 1,
        finishFlush: 2 /* Z_SYNC_FLUSH: damaged ends too */,
      }).length
    } catch (error) {
      if ((error as { code?: string }).code !== 'ERR_BUFFER_TOO_LARGE') continue
      left = -1
    }
    if (left < 0)
      throw new KnowledgeParseError(
        `The PDF's compressed content expands to more than ${formatCount(limits.maxInflatedBytes / 1024 / 1024)} MB; it is not indexed.`
      )
    at = end === -1 ? file.length : end
  }
}

async function readPdf(bytes: Uint8Array, limits: ReadLimits): Promise<ParsedDocument> {
  refuseInflationBomb(bytes, limits)
  // Loaded once per process (the reader process loads it at start, before it limits its own memory).
  const { InvalidPDFException, PasswordException, PDFParse } = await import('pdf-parse')
  // pdf.js takes ownership of the buffer it is given; a copy keeps the caller's bytes intact.
  const parser = new PDFParse({ data: new Uint8Array(bytes), verbosity: 0 })
  try {
    const info = await parser.getInfo()
    if (info.total > limits.maxPages)
      throw new KnowledgeParseError(`The PDF has ${info.total} pages; at most ${limits.maxPages} are indexed.`)
    const pages: PageSpan[] = []
    let text = ''
    // Page by page, so the character budget stops the extraction rather than judging it afterwards.
    for (let page = 1; page <= info.total; page++) {
      const result = await parser.getText({ partial: [page] })
      const pageText = tidyPageText(result.pages.map((p) => p.text).join('\n'))
      if (text) text += '\n\n'
      pages.push({ page, start: text.length, end: text.length + pageText.length })
      text += pageText
      if (text.length > limits.maxTextChars)
        throw new KnowledgeParseError(
          `The PDF has more than ${formatCount(limits.maxTextChars)} characters of text (reached on page ${page}); it is not indexed.`
        )
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
 * Reads a knowledge file in the calling thread (the reader process's work; tests and the evaluation call it directly).
 * @param mediaType - the type the upload was accepted as
 * @param bytes - the file
 * @throws KnowledgeParseError with a reason fit to show the uploader (the document's `failureReason`)
 */
export async function readDocument(
  mediaType: KnowledgeMediaType,
  bytes: Uint8Array,
  limits: ReadLimits = DEFAULT_READ_LIMITS
): Promise<ParsedDocument> {
  if (mediaType === 'application/pdf') return readPdf(bytes, limits)
  const text = decodeText(bytes, limits)
  if (!text.trim()) throw new KnowledgeParseError('The file has no text to index.')
  const headings = mediaType === 'text/markdown' ? markdownHeadings(text) : inferredHeadings(text)
  return { text, pages: [], sections: sectionsOf(text, headings) }
}
