/**
 * @module What a knowledge file becomes before it is chunked: its full text, where each PDF page starts and ends in
 * it, and its sections with their heading paths. Offsets index the text, so a chunk's position and a citation's quote
 * can be found in it again. The parsing itself is an adapter's (adapters/document-parsing/): a file is untrusted
 * input, read where a deadline and a memory limit can stop it, never on the event loop that serves every tenant.
 */
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

/** The file of one tenant's document, and whose it is (the parser shares its capacity fairly between tenants). */
export interface DocumentToParse {
  tenantId: string
  /** The same key asked for twice (one document version, retried) is read once; both callers get the result. */
  key?: string
  mediaType: KnowledgeMediaType
  bytes: Uint8Array
}

/** Reads knowledge files into text with structure. */
export interface DocumentParser {
  /**
   * @throws KnowledgeParseError with a reason fit to show the uploader (the document's `failureReason`): a file that
   *   is not what it claims, has no text, or exceeds a limit (time, memory, pages, characters, decompressed size)
   * @throws KnowledgeReaderBusy when the readers' queue is full for this tenant or in all (read it later)
   */
  parse(document: DocumentToParse, options?: ParseOptions): Promise<ParsedDocument>
  /** Whether `parse` would take this file now (a cheap look before loading a large file only to be turned away). */
  accepts?(document: Pick<DocumentToParse, 'tenantId' | 'key'>): boolean
  /** Stops what the parser started (its reader processes), at shutdown. */
  close?(): Promise<void>
}

export interface ParseOptions {
  /** Aborted when the caller no longer waits (its activity was cancelled or timed out): the reading stops. */
  signal?: AbortSignal
}
