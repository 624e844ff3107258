/**
 * @module The default, offline answerer: it composes answers only from sentences of the retrieved passages, quoted
 * verbatim, so it cannot state anything the knowledge does not say. Each sentence of the retrieved chunks is scored
 * by how much of the question it covers: each question word found in the sentence in some form (its own stem, a
 * WordNet or care-domain expansion at the expansion's strength, a shared word prefix), or at a discount in the
 * headings above it, each word weighted by how rare it is in the assistant's knowledge (so a question about
 * something the knowledge never mentions covers little); then the chunk's own coverage and its retrieval rank break
 * near-ties. The best sentence is the answer, with the list it introduces when it ends in a colon, plus a second
 * sentence when another covers the question as well. It declines when no sentence covers enough of the question.
 */
import { conceptStems, isLowSignal, termsOf } from '../embeddings/text-terms.ts'
import { expandQuery, type QueryTerm } from '../retrieval/query-expansion.ts'
import {
  notAnswered,
  type AnswerContext,
  type AnswerDecision,
  type Answerer,
  type Citation,
  type KnowledgeAnswer,
  type RetrievedPassage,
} from './answer-types.ts'
import { splitSentences, type Sentence } from './sentences.ts'

/** Thresholds, calibrated on the evaluation's tuning set only (eval/question-split.ts, docs/benchmarks.md). */
export const EXTRACTIVE_THRESHOLDS = {
  /** Share of the question (by idf-weighted word, expansions at their strength) the best sentence must cover. */
  minCoverage: 0.55,
  /** A second quote must cover at least this share of what the first one covers. */
  secondQuoteRatio: 0.8,
} as const

/** How much a form found in a sentence's headings counts against one found in the sentence. */
const HEADING_DISCOUNT = 0.7
/** A shared five-letter prefix ("cancelation" and "cancellation"). */
const PREFIX_MATCH = 0.75

/** Shares a prefix of 5+ letters with some stem of the set: "cancelation" and "cancellation". */
const prefixMatch = (stem: string, set: Set<string>) =>
  stem.length >= 5 &&
  !/^[0-9]+$/.test(stem) &&
  [...set].some((s) => s.length >= 5 && s.slice(0, 5) === stem.slice(0, 5))

/**
 * A question's words without a dictionary: each with its own stem and its care-domain concept's stems. For a caller
 * that cannot wait for WordNet (a chat model's citation) and for the tests.
 */
export function literalQuery(question: string): QueryTerm[] {
  const byStem = new Map<string, QueryTerm>()
  for (const term of termsOf(question)) {
    if (byStem.has(term.stem)) continue
    const forms = new Map<string, number>(term.concept ? conceptStems(term.concept).map((s) => [s, 0.85]) : [])
    forms.set(term.stem, 1)
    byStem.set(term.stem, { stem: term.stem, weight: isLowSignal(term.stem) ? 0.2 : 1, forms })
  }
  return [...byStem.values()]
}

/**
 * The share of the question's weight a sentence covers.
 * @param sentence - the sentence's stems
 * @param context - the stems of its headings and document name
 */
export function coverage(query: QueryTerm[], sentence: Set<string>, context: Set<string>): number {
  let covered = 0
  let total = 0
  for (const term of query) {
    total += term.weight
    let match = 0
    for (const [stem, strength] of term.forms) {
      if (sentence.has(stem)) match = Math.max(match, strength)
      else if (context.has(stem)) match = Math.max(match, strength * HEADING_DISCOUNT)
    }
    if (match < PREFIX_MATCH && prefixMatch(term.stem, sentence)) match = PREFIX_MATCH
    covered += term.weight * match
  }
  return total > 0 ? covered / total : 0
}

const stemsOf = (text: string) => new Set(termsOf(text).map((t) => t.stem))

/**
 * The focus of a "what should we bring"-type question: the verb after "what/which + auxiliary + subject". The thing
 * asked about is what that verb acts on, so a sentence with the verb is worth more than one with the other words.
 */
const FOCUS_VERB =
  /^\s*(?:what|which)\s+(?:do|does|did|should|shall|can|could|must|will|would|may|might)\s+(?:i|we|you|they|he|she|my \w+|our \w+|the \w+)\s+([a-z]+)/i

/** The focus verb of a question counts double: the thing asked about is what that verb acts on. */
function withFocus(question: string, query: QueryTerm[]): QueryTerm[] {
  const focus = FOCUS_VERB.exec(question)?.[1]
  const focusStem = focus ? termsOf(focus)[0]?.stem : undefined
  return focusStem ? query.map((t) => (t.stem === focusStem ? { ...t, weight: t.weight * 2 } : t)) : query
}

/** What kind of answer a question asks for, from its wording (classic answer typing of extractive QA). */
export type AnswerType = 'time' | 'money' | 'person' | 'method' | undefined

export function answerTypeOf(question: string): AnswerType {
  const q = question.toLowerCase()
  if (/\b(how much|cost|price|fee|charge)\b/.test(q) && !/\bhow much (notice|time)\b/.test(q)) return 'money'
  if (
    /^\s*(when|what time|what day|which day)\b|\bhow (long|soon|quickly|often|early|late|far in advance|far ahead|much notice|much time|many (days|weeks|months|hours|minutes|years))\b/.test(
      q
    )
  ) {
    return 'time'
  }
  if (/^\s*who\b/.test(q)) return 'person'
  if (/^\s*how (can|do|should|could|would|may) (i|we|you|parents)\b/.test(q)) return 'method'
  return undefined
}

const TIME_WORDS =
  /\b(\d+|one|two|three|four|five|six|seven|eight|nine|ten|twelve|twenty|thirty|first|second|last|daily|weekly|monthly|yearly|annually|once|twice|every|monday|tuesday|wednesday|thursday|friday|saturday|sunday|morning|afternoon|evening|am|pm|today|tomorrow|within|until|advance|ahead)\b|\btime of\b/i
const MONEY = /\$\s?\d|\b\d+\s?(dollars|usd|percent)\b|\bfree\b|\bno charge\b|\bfull\b.*\bfee\b/i
/** A name ("Dana Whitfield": two capitalised words after the sentence start) or a role. */
const PERSON =
  /(?<!^)\b[A-Z][a-z]+\s+[A-Z][a-z]+|\b(therapists?|patholog\w*|director|manager|officer|lead|coordinator|staff|nurse|doctor|team)\b/

/** The means of doing something: "by phone", "through the parent portal". */
const METHOD = /\b(by|through|via|using|online|phone|call|email|portal|form|text message)\b/i

/**
 * 1 when a sentence has the kind of answer the question wants, else 0. A bonus, never a penalty: a sentence can
 * answer a "when" question without a date ("at the time of service").
 */
export function typeFit(type: AnswerType, sentence: string): number {
  if (!type) return 0
  const pattern = { time: TIME_WORDS, money: MONEY, person: PERSON, method: METHOD }[type]
  return pattern.test(sentence) ? 1 : 0
}

export interface Candidate {
  passage: RetrievedPassage
  rank: number
  sentences: Sentence[]
  index: number
  coverage: number
  score: number
}

const LIST_LEAD_IN = /:\s*$/

/** A sentence too short to stand alone as an answer ("Yes.", "No."): quoted with the sentence after it. */
const BARE_REPLY = /^\W*(yes|no|sometimes|usually|of course|not always|it depends)\W*$/i

/**
 * The quote for a chosen sentence: the sentence, and the list items after it when it introduces a list, or the
 * sentence after it when it is a bare "Yes." (an FAQ's answer, whose meaning is its question heading and what follows).
 */
export function quoteOf(candidate: Candidate): Sentence {
  const first = candidate.sentences[candidate.index]!
  const following = candidate.sentences[candidate.index + 1]
  if (BARE_REPLY.test(first.text) && following) {
    return { start: first.start, end: following.end, text: candidate.passage.content.slice(first.start, following.end) }
  }
  let last = first
  if (LIST_LEAD_IN.test(first.text)) {
    const content = candidate.passage.content
    for (const next of candidate.sentences.slice(candidate.index + 1, candidate.index + 7)) {
      // Only lines that are list items in the source (the splitter dropped their markers).
      if (!/(^|\n)\s*(?:[-*\u2022]|\d+[.)])\s*$/.test(content.slice(last.end, next.start))) break
      last = next
    }
  }
  return { start: first.start, end: last.end, text: candidate.passage.content.slice(first.start, last.end) }
}

export const citationOf = (passage: RetrievedPassage, quote: Sentence): Citation => ({
  documentId: passage.documentId,
  documentName: passage.documentName,
  ...(passage.page !== undefined ? { page: passage.page } : {}),
  headingPath: passage.headingPath,
  startOffset: passage.startOffset + quote.start,
  endOffset: passage.startOffset + quote.end,
  quote: quote.text,
  score: passage.score,
})

export const overlaps = (a: Citation, b: Citation) =>
  a.documentId === b.documentId && a.startOffset < b.endOffset && b.startOffset < a.endOffset

/**
 * The answer from scored sentences: the best one when it covers enough of the question, plus a second quote when
 * another covers it nearly as well, or when the best lacks the kind of answer asked for ("how quickly" but no time
 * in it) and another has it and covers the question well enough on its own.
 */
export function composeAnswer(
  candidates: Candidate[],
  type: AnswerType,
  thresholds: { minCoverage: number; secondQuoteRatio: number }
): KnowledgeAnswer {
  candidates.sort((a, b) => b.score - a.score || a.rank - b.rank)
  const best = candidates[0]
  const decision = (declinedBy?: 'below_threshold'): AnswerDecision => ({
    method: 'lexical',
    score: Math.round((best?.coverage ?? 0) * 1000) / 1000,
    threshold: thresholds.minCoverage,
    ...(declinedBy ? { declinedBy } : {}),
  })
  if (!best || best.coverage < thresholds.minCoverage) return notAnswered(decision('below_threshold'))
  const citations = [citationOf(best.passage, quoteOf(best))]
  const wantsTyped = type !== undefined && typeFit(type, best.sentences[best.index]!.text) === 0
  const second = candidates.find((c) => {
    const needed =
      wantsTyped && typeFit(type, c.sentences[c.index]!.text) === 1
        ? thresholds.minCoverage
        : best.coverage * thresholds.secondQuoteRatio
    if (c.coverage < Math.max(thresholds.minCoverage, needed)) return false
    const citation = citationOf(c.passage, quoteOf(c))
    return !citations.some((existing) => overlaps(existing, citation) || existing.quote === citation.quote)
  })
  if (second) citations.push(citationOf(second.passage, quoteOf(second)))
  const answer = citations.map((c, i) => `${c.quote.replace(/\s+/g, ' ').trim()} [${i + 1}]`).join(' ')
  return { answered: true, answer, citations, decision: decision() }
}

/** Creates the extractive answerer. */
export function createExtractiveAnswerer(
  thresholds: { minCoverage: number; secondQuoteRatio: number } = EXTRACTIVE_THRESHOLDS
): Answerer {
  return {
    id: 'extractive-v2',
    inProcess: true,
    async answer(question, passages, context?: AnswerContext): Promise<KnowledgeAnswer> {
      const asked = withFocus(question, context?.query ?? (await expandQuery(question)))
      const type = answerTypeOf(question)
      if (asked.length === 0 || passages.length === 0) {
        return notAnswered({
          method: 'lexical',
          score: 0,
          threshold: thresholds.minCoverage,
          declinedBy: 'no_passages',
        })
      }

      const split = passages.map((passage) => splitSentences(passage.content))
      const candidates: Candidate[] = passages.flatMap((passage, rank) => {
        const headings = stemsOf(`${passage.headingPath.join(' ')} ${passage.documentName.replace(/\.[a-z]+$/i, '')}`)
        const sentences = split[rank]!
        return sentences.map((sentence, index) => {
          const covered = coverage(asked, stemsOf(sentence.text), headings)
          // Coverage decides; the expected answer type, the chunk's coverage and its rank break near-ties.
          const score =
            covered * 0.8 +
            0.1 * (passage.lexicalCoverage ?? 0) +
            0.1 / (1 + rank) +
            0.15 * typeFit(type, sentence.text)
          return { passage, rank, sentences, index, coverage: covered, score }
        })
      })
      return composeAnswer(candidates, type, thresholds)
    },
  }
}

/**
 * The citation for one passage a chat model cited: its sentence (or introduced list) that best covers the question,
 * so the quote is as specific as the extractive answerer's.
 */
export function bestQuoteCitation(question: string, passage: RetrievedPassage): Citation {
  const asked = withFocus(question, literalQuery(question))
  const headings = stemsOf(passage.headingPath.join(' '))
  const sentences = splitSentences(passage.content)
  let best: Candidate | undefined
  for (const [index, sentence] of sentences.entries()) {
    const covered = coverage(asked, stemsOf(sentence.text), headings)
    if (!best || covered > best.coverage)
      best = { passage, rank: 0, sentences, index, coverage: covered, score: covered }
  }
  if (!best) return citationOf(passage, { start: 0, end: passage.content.length, text: passage.content })
  return citationOf(passage, quoteOf(best))
}
