/**
 * @module The spans of a chunk an answer may quote, and the text each is embedded as when the chunk is indexed. A span
 * is a sentence (or a list item, or a table row) of the chunk, exactly as the extractive answerer quotes it; its
 * embedding text puts the chunk's headings in front, so "It lasts 45 minutes." under "Feeding Therapy > Session length"
 * means what it says. A table row is embedded as "Day: Monday; Time: 4:00 pm to 5:00 pm; …" with its header row's
 * names, since a bare row of cells means little to a sentence model.
 */
import { splitSentences } from './sentences.ts'

/** A quotable span of a chunk: offsets into the chunk's content. */
export interface QuotableSpan {
  start: number
  end: number
}

/** At most this many spans of a chunk get a vector: a chunk of 700 characters rarely has more than 12 sentences. */
export const MAX_SPANS_PER_CHUNK = 24

const cellsOf = (row: string) =>
  row
    .trim()
    .replace(/^\|/, '')
    .replace(/\|$/, '')
    .split('|')
    .map((cell) => cell.trim())

/** "Day: Monday; Time: 4:00 pm" for a table row whose header names its cells; undefined for any other text. */
export function tableRowText(row: string, header: string | undefined): string | undefined {
  if (!header || !/^\s*\|.*\|\s*$/.test(row)) return undefined
  const names = cellsOf(header)
  const cells = cellsOf(row)
  if (names.length !== cells.length) return undefined
  return names.map((name, i) => `${name}: ${cells[i]}`).join('; ')
}

/**
 * The spans of a chunk with the text each is embedded as.
 * @param chunk - its content, heading path and context (a table row's header row)
 */
export function quotableSpans(chunk: {
  content: string
  headingPath: readonly string[]
  context?: string
}): Array<QuotableSpan & { embeddingText: string }> {
  const heading = chunk.headingPath.slice(-2).join(' > ')
  return splitSentences(chunk.content)
    .slice(0, MAX_SPANS_PER_CHUNK)
    .map((sentence) => {
      const text = tableRowText(sentence.text, chunk.context) ?? sentence.text
      return { start: sentence.start, end: sentence.end, embeddingText: heading ? `${heading}: ${text}` : text }
    })
}

/** The spans of each chunk with their vectors, embedded in one batch (similar lengths batch well). */
export async function embedSpans(
  embeddings: { embedDocuments(texts: string[]): Promise<number[][]> },
  chunks: ReadonlyArray<{ content: string; headingPath: readonly string[]; context?: string }>
): Promise<Array<Array<QuotableSpan & { vector: number[] }>>> {
  const spans = chunks.map((chunk) => quotableSpans(chunk))
  const vectors = await embeddings.embedDocuments(spans.flat().map((s) => s.embeddingText))
  let at = 0
  return spans.map((list) => list.map(({ start, end }) => ({ start, end, vector: vectors[at++]! })))
}
