/**
 * @module What a declined question still gets (issue 77): the one to three passages closest to it, each with its
 * document and a short verbatim quote, offered as "this may help" and never as an answer. Chosen as the semantic
 * answerer chooses (a span's score mixes its similarity to the question with its passage's), at most one span per
 * passage, and only above a floor measured on the evaluation's tuning split so that a question off-topic for every
 * document gets none (eval/related-passages.ts, docs/benchmarks.md). Knowledge without span vectors (the lexical model,
 * or indexed before spans were stored) offers none: its scores are not on the calibrated scale.
 */
import type { AnswerContext, RetrievedPassage, SourcePosition } from './answer-types.ts'
import { citationOf } from './extractive-answerer.ts'
import { quoteWindow } from './quote-window.ts'
import { hasSpanVectors, scoreSpans, SEMANTIC_SETTINGS } from './semantic-answerer.ts'

/** A passage offered beside a decline: where it is, a short quote, how close it came. */
export interface RelatedPassage extends SourcePosition {
  /** Verbatim text of the document: the closest span with its neighbours, up to about 40 words. */
  quote: string
  /** The span's mixed similarity to the question (the scale of `decision.score`). */
  score: number
}

export const RELATED_SETTINGS = {
  /** Passages offered at most. */
  max: 3,
  /** Words a quote grows to with its neighbouring spans. */
  quoteWords: 40,
  /**
   * A span must score at least this: above every off-topic question of the tuning split (the highest scored 0.438),
   * measured by eval/related-passages.ts. At 0.40 a sixth of those off-topic questions were offered passages.
   */
  floor: 0.44,
} as const

/** The text shown after the decline when passages are offered: labelled, plainly, as not an answer. */
export const RELATED_LEAD = 'This may help, though it is not an answer:'

/**
 * The passages to offer beside a decline, closest first.
 * @param context - the question's vector (the spans' model); without it, or without span vectors, none
 */
export function relatedPassages(
  passages: RetrievedPassage[],
  context: AnswerContext | undefined,
  settings: { max: number; quoteWords: number; floor: number } = RELATED_SETTINGS
): RelatedPassage[] {
  const vector = context?.questionVector
  if (!hasSpanVectors(passages, vector)) return []
  const scored = scoreSpans(passages, vector!, SEMANTIC_SETTINGS.passageWeight).sort(
    (a, b) => b.score - a.score || a.rank - b.rank
  )
  const related: RelatedPassage[] = []
  const taken = new Set<RetrievedPassage>()
  for (const span of scored) {
    if (span.score < settings.floor || related.length === settings.max) break
    if (taken.has(span.passage)) continue
    taken.add(span.passage)
    const { score: _retrieval, ...position } = citationOf(span.passage, quoteWindow(span, settings.quoteWords))
    related.push({ ...position, score: Math.round(span.score * 1000) / 1000 })
  }
  return related
}

/** The decline's text with the offered passages named after it. */
export function withRelatedLead(answer: string, related: RelatedPassage[]): string {
  if (related.length === 0) return answer
  const names = [...new Set(related.map((r) => `"${r.documentName}"`))].join(', ')
  return `${answer} ${RELATED_LEAD} see ${names}.`
}
