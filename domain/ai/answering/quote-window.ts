/**
 * @module The quote an answer shows: the chosen span with its neighbours in the passage, up to about 60 words (issue
 * 57). A single sentence often names what the question asks about and leaves the answer to the next one ("Late
 * cancellations are charged." / "The fee is half the session's price."), or the other way round; the words around it
 * carry it. The quote stays one exact slice of the passage, so its citation's offsets stay exact.
 */
import { quoteOf, type Candidate } from './extractive-answerer.ts'
import type { Sentence } from './sentences.ts'

/** About how many words a quote may grow to with its neighbours. */
export const QUOTE_WINDOW_WORDS = 60

/** Words as a reader counts them: runs of letters or digits (a table's pipes and a list's markers are not words). */
const wordCount = (text: string) => text.match(/[\p{L}\p{N}]+/gu)?.length ?? 0

/**
 * The chosen span's quote (quoteOf: the sentence, with its list or the answer after a bare "Yes.") grown by whole
 * neighbouring spans of its passage, the next one first and then taking turns, while the whole stays within
 * `maxWords`. A quote already longer stays as it is.
 */
export function quoteWindow(candidate: Candidate, maxWords = QUOTE_WINDOW_WORDS): Sentence {
  const core = quoteOf(candidate)
  const { sentences, passage } = candidate
  let first = candidate.index
  let last = Math.max(
    first,
    sentences.findIndex((s) => s.end === core.end)
  )
  const fits = (from: number, to: number) =>
    wordCount(passage.content.slice(sentences[from]!.start, sentences[to]!.end)) <= maxWords
  let nextFirst = true
  for (;;) {
    const next = last + 1 < sentences.length && fits(first, last + 1)
    const previous = first > 0 && fits(first - 1, last)
    if (next && (nextFirst || !previous)) last++
    else if (previous) first--
    else break
    nextFirst = !nextFirst
  }
  const start = sentences[first]!.start
  const end = Math.max(sentences[last]!.end, core.end)
  return { start, end, text: passage.content.slice(start, end) }
}
