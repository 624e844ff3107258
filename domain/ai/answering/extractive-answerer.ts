/**
 * @module The default, offline answerer: it composes answers only from sentences of the retrieved passages, quoted
 * verbatim, so it cannot state anything the knowledge does not say. Each sentence of the retrieved chunks is scored
 * by how much of the question it covers — the question's terms found in the sentence itself (exact stem, same
 * care-domain concept, or shared word prefix), or, at a discount, in the headings above it — weighted towards the
 * chunks retrieval ranked higher. The best sentence is the answer, with the list it introduces when it ends in a
 * colon, plus a second sentence when another passage covers the question as well. When no sentence covers enough
 * of the question, or retrieval found nothing close, the answer says the knowledge does not contain it.
 */
import { termsOf, type Term } from '../embeddings/text-terms.ts'
import {
  notAnswered,
  type Answerer,
  type Citation,
  type KnowledgeAnswer,
  type RetrievedPassage,
} from './answer-types.ts'
import { splitSentences, type Sentence } from './sentences.ts'

/** Thresholds, calibrated on the evaluation set's answerable and unanswerable questions (docs/benchmarks.md). */
export const EXTRACTIVE_THRESHOLDS = {
  /** Passages less similar than this to the question are not considered at all. */
  minPassageScore: 0.08,
  /** Share of the question (by term weight) the best sentence must cover to be an answer. */
  minCoverage: 0.6,
  /** A second quote must cover at least this share of what the first one covers. */
  secondQuoteRatio: 0.8,
} as const

/** How much a question term is worth when found in each place. */
const MATCH = { stem: 1, concept: 0.85, prefix: 0.75, headingStem: 0.75, headingConcept: 0.6 } as const

interface TermSet {
  stems: Set<string>
  concepts: Set<string>
}

const termSet = (terms: Term[]): TermSet => ({
  stems: new Set(terms.map((t) => t.stem)),
  concepts: new Set(terms.flatMap((t) => (t.concept ? [t.concept] : []))),
})

/** Shares a prefix of 5+ letters with some stem of the set: "cancelation" and "cancellation". */
const prefixMatch = (stem: string, set: TermSet) =>
  stem.length >= 5 &&
  !/^[0-9]+$/.test(stem) &&
  [...set.stems].some((s) => s.length >= 5 && s.slice(0, 5) === stem.slice(0, 5))

/**
 * The focus of a "what should we bring"-type question: the verb after "what/which + auxiliary + subject". The thing
 * asked about is what that verb acts on, so a sentence with the verb is worth more than one with the other words.
 */
const FOCUS_VERB =
  /^\s*(?:what|which)\s+(?:do|does|did|should|shall|can|could|must|will|would|may|might)\s+(?:i|we|you|they|he|she|my \w+|our \w+|the \w+)\s+([a-z]+)/i

/** The question's distinct terms, each at its highest weight; the focus verb counts double. */
function questionTerms(question: string): Term[] {
  const focus = FOCUS_VERB.exec(question)?.[1]
  const focusStem = focus ? termsOf(focus)[0]?.stem : undefined
  const byStem = new Map<string, Term>()
  for (const term of termsOf(question)) {
    const weighted = term.stem === focusStem ? { ...term, weight: term.weight * 2 } : term
    const seen = byStem.get(term.stem)
    if (!seen || seen.weight < weighted.weight) byStem.set(term.stem, weighted)
  }
  return [...byStem.values()]
}

/** What kind of answer a question asks for, from its wording (classic answer typing of extractive QA). */
type AnswerType = 'time' | 'money' | 'person' | 'method' | undefined

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
function typeFit(type: AnswerType, sentence: string): number {
  if (!type) return 0
  const pattern = { time: TIME_WORDS, money: MONEY, person: PERSON, method: METHOD }[type]
  return pattern.test(sentence) ? 1 : 0
}

/**
 * The share of the question's weight a sentence covers.
 * @param context - the terms of the sentence's headings and document name
 */
export function coverage(question: Term[], sentence: TermSet, context: TermSet): number {
  let covered = 0
  let total = 0
  for (const q of question) {
    total += q.weight
    let match = 0
    if (sentence.stems.has(q.stem)) match = MATCH.stem
    else if (q.concept && sentence.concepts.has(q.concept)) match = MATCH.concept
    else if (prefixMatch(q.stem, sentence)) match = MATCH.prefix
    else if (context.stems.has(q.stem)) match = MATCH.headingStem
    else if (q.concept && context.concepts.has(q.concept)) match = MATCH.headingConcept
    covered += q.weight * match
  }
  return total > 0 ? covered / total : 0
}

interface Candidate {
  passage: RetrievedPassage
  rank: number
  sentences: Sentence[]
  index: number
  coverage: number
  score: number
}

const LIST_LEAD_IN = /:\s*$/

/** The quote for a chosen sentence: the sentence, and the list items after it when it introduces a list. */
function quoteOf(candidate: Candidate): Sentence {
  const first = candidate.sentences[candidate.index]!
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

const citationOf = (passage: RetrievedPassage, quote: Sentence): Citation => ({
  documentId: passage.documentId,
  documentName: passage.documentName,
  ...(passage.page !== undefined ? { page: passage.page } : {}),
  headingPath: passage.headingPath,
  startOffset: passage.startOffset + quote.start,
  endOffset: passage.startOffset + quote.end,
  quote: quote.text,
  score: passage.score,
})

const overlaps = (a: Citation, b: Citation) =>
  a.documentId === b.documentId && a.startOffset < b.endOffset && b.startOffset < a.endOffset

/** Creates the extractive answerer. */
export function createExtractiveAnswerer(thresholds = EXTRACTIVE_THRESHOLDS): Answerer {
  return {
    id: 'extractive-v1',
    inProcess: true,
    async answer(question, passages): Promise<KnowledgeAnswer> {
      const asked = questionTerms(question)
      const type = answerTypeOf(question)
      const usable = passages.filter((p) => p.score >= thresholds.minPassageScore)
      if (asked.length === 0 || usable.length === 0) return notAnswered()
      const topScore = usable[0]!.score

      const candidates: Candidate[] = usable.flatMap((passage, rank) => {
        const context = termSet(
          termsOf(`${passage.headingPath.join(' ')} ${passage.documentName.replace(/\.[a-z]+$/i, '')}`)
        )
        const sentences = splitSentences(passage.content)
        return sentences.map((sentence, index) => {
          const covered = coverage(asked, termSet(termsOf(sentence.text)), context)
          // Coverage decides; the expected answer type and retrieval rank break near-ties.
          const score = covered * 0.8 + 0.2 * (passage.score / topScore) + 0.15 * typeFit(type, sentence.text)
          return { passage, rank, sentences, index, coverage: covered, score }
        })
      })
      candidates.sort((a, b) => b.score - a.score || a.rank - b.rank)
      const best = candidates[0]
      if (!best || best.coverage < thresholds.minCoverage) return notAnswered()

      const citations = [citationOf(best.passage, quoteOf(best))]
      // When the best sentence lacks the kind of answer asked for ("how quickly" but no time in it), the best one that
      // has it is quoted too, if it covers the question well enough on its own.
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
      return { answered: true, answer, citations }
    },
  }
}

/**
 * The citation for one passage a chat model cited: its sentence (or introduced list) that best covers the question,
 * so the quote is as specific as the extractive answerer's.
 */
export function bestQuoteCitation(question: string, passage: RetrievedPassage): Citation {
  const asked = questionTerms(question)
  const context = termSet(termsOf(passage.headingPath.join(' ')))
  const sentences = splitSentences(passage.content)
  let best: Candidate | undefined
  for (const [index, sentence] of sentences.entries()) {
    const covered = coverage(asked, termSet(termsOf(sentence.text)), context)
    if (!best || covered > best.coverage)
      best = { passage, rank: 0, sentences, index, coverage: covered, score: covered }
  }
  if (!best) return citationOf(passage, { start: 0, end: passage.content.length, text: passage.content })
  return citationOf(passage, quoteOf(best))
}
