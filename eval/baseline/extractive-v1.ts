/**
 * @module The answerer as it was before issue 21 (`extractive-v1`), frozen so that `npm run eval` can report today's
 * design beside the new one from the same run: it scored a sentence by the share of the question's literal terms
 * (stem, care-domain concept, prefix, heading) under static weights, and declined below 0.6 of them. Only its
 * matching rule lives here; quoting and citing are the production answerer's.
 */
import type { Answerer, KnowledgeAnswer } from '../../domain/ai/answering/answer-types.ts'
import { notAnswered } from '../../domain/ai/answering/answer-types.ts'
import { answerTypeOf, composeAnswer, typeFit, type Candidate } from '../../domain/ai/answering/extractive-answerer.ts'
import { splitSentences } from '../../domain/ai/answering/sentences.ts'
import { termsOf, type Term } from '../../domain/ai/embeddings/text-terms.ts'

const THRESHOLDS = { minPassageScore: 0.08, minCoverage: 0.6, secondQuoteRatio: 0.8 }
const MATCH = { stem: 1, concept: 0.85, prefix: 0.75, headingStem: 0.75, headingConcept: 0.6 }

interface TermSet {
  stems: Set<string>
  concepts: Set<string>
}

const termSet = (terms: Term[]): TermSet => ({
  stems: new Set(terms.map((t) => t.stem)),
  concepts: new Set(terms.flatMap((t) => (t.concept ? [t.concept] : []))),
})

const prefixMatch = (stem: string, set: TermSet) =>
  stem.length >= 5 &&
  !/^[0-9]+$/.test(stem) &&
  [...set.stems].some((s) => s.length >= 5 && s.slice(0, 5) === stem.slice(0, 5))

const FOCUS_VERB =
  /^\s*(?:what|which)\s+(?:do|does|did|should|shall|can|could|must|will|would|may|might)\s+(?:i|we|you|they|he|she|my \w+|our \w+|the \w+)\s+([a-z]+)/i

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

function coverage(question: Term[], sentence: TermSet, context: TermSet): number {
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

/** The pre-issue-21 answerer, for the comparison in the evaluation report only. */
export function createExtractiveV1Answerer(): Answerer {
  return {
    id: 'extractive-v1',
    inProcess: true,
    async answer(question, passages): Promise<KnowledgeAnswer> {
      const asked = questionTerms(question)
      const type = answerTypeOf(question)
      const usable = passages.filter((p) => p.score >= THRESHOLDS.minPassageScore)
      if (asked.length === 0 || usable.length === 0) {
        return notAnswered({
          method: 'lexical',
          score: 0,
          threshold: THRESHOLDS.minCoverage,
          declinedBy: 'no_passages',
        })
      }
      const topScore = usable[0]!.score
      const candidates: Candidate[] = usable.flatMap((passage, rank) => {
        const context = termSet(
          termsOf(`${passage.headingPath.join(' ')} ${passage.documentName.replace(/\.[a-z]+$/i, '')}`)
        )
        const sentences = splitSentences(passage.content)
        return sentences.map((sentence, index) => {
          const covered = coverage(asked, termSet(termsOf(sentence.text)), context)
          const score = covered * 0.8 + 0.2 * (passage.score / topScore) + 0.15 * typeFit(type, sentence.text)
          return { passage, rank, sentences, index, coverage: covered, score }
        })
      })
      return composeAnswer(candidates, type, THRESHOLDS)
    },
  }
}
