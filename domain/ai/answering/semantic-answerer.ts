/**
 * @module The answerer that chooses by meaning: every quotable span of every retrieved passage (a sentence, a list item,
 * a table row) was embedded when its chunk was indexed (quotable-spans.ts), so a question costs its own embedding and
 * a dot product per span. A span's score mixes the question's similarity to the span (heading and sentence) with its
 * similarity to the whole passage; the best span is the answer, quoted verbatim with its neighbours up to about 60
 * words (quote-window.ts) and its citation, plus a second span when it scores nearly as well. It declines when the best score is under a threshold calibrated on the evaluation's
 * tuning split, and when the quote does not carry what the question asks for (answerability.ts): an amount for "how
 * much", a date that is the named day asked about, the programme or person the question names. Each rule earns its
 * keep on the tuning split (eval/decline-rule-ablation.ts, docs/benchmarks.md); the veto on a question word the
 * knowledge never uses did not (it lost 8 answers there to win 3 declines) and was retired.
 * Passages indexed without span vectors (another model, or before spans were stored) fall back to the lexical answerer,
 * and the answer says so.
 */
import { answerKindOf, carriesKind, coversNamedDays, coversNames, coversSeasons, namesIn } from './answerability.ts'
import {
  notAnswered,
  type AnswerContext,
  type AnswerDecision,
  type Answerer,
  type DeclineRule,
  type Citation,
  type KnowledgeAnswer,
  type RetrievedPassage,
} from './answer-types.ts'
import { citationOf, overlaps, quoteOf, type Candidate } from './extractive-answerer.ts'
import { QUOTE_WINDOW_WORDS, quoteWindow } from './quote-window.ts'

/**
 * Settings, calibrated on the evaluation's tuning split only (eval/semantic-answer-sweep.ts, docs/benchmarks.md). The
 * sweep's balance of answers and declines was best at an even mix of sentence and passage and a threshold of 0.45.
 */
export const SEMANTIC_SETTINGS = {
  /** Weight of the passage's similarity in a span's score (the span's own similarity has the rest). */
  passageWeight: 0.5,
  /** The best span must score at least this. */
  minScore: 0.45,
  /** A second quote must score within this of the first. */
  secondQuoteGap: 0.05,
  /** A span that carries the asked-for kind may stand in for a best span that does not, within this of its score. */
  kindGap: 0.12,
  /** The answer's first quote grows with its neighbours up to about this many words (quote-window.ts). */
  quoteWindowWords: QUOTE_WINDOW_WORDS,
} as const

export type SemanticSettings = { [K in keyof typeof SEMANTIC_SETTINGS]: number }

/** The decline rules one can switch off, to measure what each earns (eval/decline-rule-ablation.ts); none by default. */
export type SwitchableRule = 'answer_kind_missing' | 'named_day_missing' | 'name_missing'
const ALL_RULES_ON: ReadonlySet<SwitchableRule> = new Set()

const dot = (a: ArrayLike<number>, b: ArrayLike<number>) => {
  let sum = 0
  for (let i = 0; i < a.length; i++) sum += a[i]! * b[i]!
  return sum
}

export interface Scored extends Candidate {
  quote: string
}

const declined = notAnswered

/** Whether every passage carries span vectors of the question vector's size. */
export const hasSpanVectors = (passages: RetrievedPassage[], vector: ArrayLike<number> | undefined) =>
  vector !== undefined &&
  passages.length > 0 &&
  passages.every((p) => p.spans !== undefined && p.spans.every((s) => s.vector.length === vector.length))

/** The check before any quote is chosen: a best span that scores enough. Sorts `scored`, best first. */
export function gateQuestion(
  question: string,
  scored: Scored[],
  settings: SemanticSettings = SEMANTIC_SETTINGS
): { decision: AnswerDecision; declined?: KnowledgeAnswer } {
  scored.sort((a, b) => b.score - a.score || a.rank - b.rank)
  const best = scored[0]
  const decision: AnswerDecision = {
    method: 'semantic',
    answerKind: answerKindOf(question),
    threshold: settings.minScore,
    score: Math.round((best?.score ?? 0) * 1000) / 1000,
  }
  const refuse = (declinedBy: DeclineRule) => ({ decision, declined: declined({ ...decision, declinedBy }) })
  if (!best) return refuse('no_passages')
  if (best.score < settings.minScore) return refuse('below_threshold')
  return { decision }
}

/** A question of fewer words than this is never taken for a copied sentence ("Fees.", "Opening hours"). */
const VERBATIM_MIN_WORDS = 4

/** Letters and digits only, lower case, single spaces: how a copied sentence is recognised. */
const wordsOnly = (text: string) =>
  text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim()

/**
 * The span the question repeats word for word, if any: a sentence, list item or table row copied from a document and
 * asked as it is. The document answers itself: no similarity threshold or decline rule stands between a centre's own
 * sentence and its citation (issue 57: such a copy was declined when its second sentence began with a capital, or
 * when a short generic sentence scored under the threshold).
 */
export function verbatimSpan(question: string, scored: Scored[]): Scored | undefined {
  const asked = wordsOnly(question)
  if (asked.split(' ').length < VERBATIM_MIN_WORDS) return undefined
  return scored.find((c) => wordsOnly(c.sentences[c.index]!.text) === asked)
}

/**
 * Chooses and checks the answer among scored spans.
 * @param scored - every span, with `score` the mixed similarity
 */
export function decideAnswer(
  question: string,
  scored: Scored[],
  settings: SemanticSettings = SEMANTIC_SETTINGS,
  off: ReadonlySet<SwitchableRule> = ALL_RULES_ON
): KnowledgeAnswer {
  const gate = gateQuestion(question, scored, settings)
  const copied = verbatimSpan(question, scored)
  if (copied) {
    const citation = citationOf(copied.passage, quoteOf(copied))
    const decision = { ...gate.decision, score: Math.round(copied.score * 1000) / 1000, verbatim: true }
    return {
      answered: true,
      answer: `${citation.quote.replace(/\s+/g, ' ').trim()} [1]`,
      citations: [citation],
      decision,
    }
  }
  if (gate.declined) return gate.declined
  const kind = answerKindOf(question)
  const best = scored[0]!
  // The best span that carries the kind of answer asked for, if one scores near enough to the best.
  // A span of another passage stands in only when it speaks of the question's names ("When does Social Detectives
  // meet?": the timetable's row, not the programme's description); otherwise the answer would be another subject's
  // amount or time ("How much does community transport cost?" answered with the evaluation's fee).
  const first =
    scored.find(
      (c) =>
        c.score >= best.score - settings.kindGap &&
        carriesKind(kind, c.quote, question) &&
        (c.passage === best.passage || (namesIn(question).length > 0 && coversNames(question, c.quote)))
    ) ?? (off.has('answer_kind_missing') ? best : undefined)
  if (!first) return declined({ ...gate.decision, declinedBy: 'answer_kind_missing' })
  const daysCovered =
    coversNamedDays(question, first.quote, first.passage.content) && coversSeasons(question, first.quote)
  if (!daysCovered && !off.has('named_day_missing'))
    return declined({ ...gate.decision, declinedBy: 'named_day_missing' })
  const named = `${first.passage.documentName} ${first.passage.headingPath.join(' ')} ${first.quote}`
  if (!coversNames(question, named) && !off.has('name_missing'))
    return declined({ ...gate.decision, declinedBy: 'name_missing' })

  // Chosen and checked as one span, shown with the words around it (quote-window.ts).
  const citations: Citation[] = [citationOf(first.passage, quoteWindow(first, settings.quoteWindowWords))]
  const second = scored.find((c) => {
    if (c === first || c.score < first.score - settings.secondQuoteGap || c.score < settings.minScore) return false
    if (!carriesKind(kind, c.quote, question)) return false
    const citation = citationOf(c.passage, quoteOf(c))
    return !citations.some((existing) => overlaps(existing, citation) || existing.quote === citation.quote)
  })
  if (second) citations.push(citationOf(second.passage, quoteOf(second)))
  const answer = citations.map((c, i) => `${c.quote.replace(/\s+/g, ' ').trim()} [${i + 1}]`).join(' ')
  return { answered: true, answer, citations, decision: gate.decision }
}

/** Every span of the passages, scored against the question's vector. */
export function scoreSpans(
  passages: RetrievedPassage[],
  questionVector: ArrayLike<number>,
  passageWeight: number
): Scored[] {
  return passages.flatMap((passage, rank) => {
    const spans = passage.spans ?? []
    const sentences = spans.map((s) => ({ start: s.start, end: s.end, text: passage.content.slice(s.start, s.end) }))
    return spans.map((span, index) => {
      const candidate: Candidate = {
        passage,
        rank,
        sentences,
        index,
        coverage: 0,
        score: passageWeight * passage.score + (1 - passageWeight) * dot(questionVector, span.vector),
      }
      return { ...candidate, quote: quoteOf(candidate).text }
    })
  })
}

/**
 * Creates the semantic answerer.
 * @param fallback - answers passages without span vectors (the lexical extractive answerer)
 * @param off - decline rules switched off (the evaluation's ablation only)
 */
export function createSemanticAnswerer(
  fallback: Answerer,
  settings: SemanticSettings = SEMANTIC_SETTINGS,
  off: ReadonlySet<SwitchableRule> = ALL_RULES_ON
): Answerer {
  return {
    id: 'extractive-v3',
    inProcess: true,
    async answer(question, passages, context?: AnswerContext): Promise<KnowledgeAnswer> {
      const vector = context?.questionVector
      if (passages.length === 0) {
        return declined({
          method: 'semantic',
          answerKind: answerKindOf(question),
          score: 0,
          threshold: settings.minScore,
          declinedBy: 'no_passages',
        })
      }
      if (!hasSpanVectors(passages, vector)) {
        // The fallback says it answered by the question's words (its decision's method).
        return fallback.answer(question, passages, context)
      }
      return decideAnswer(question, scoreSpans(passages, vector!, settings.passageWeight), settings, off)
    },
  }
}
