/**
 * @module A question as retrieval and the answerer see it: its content words, each with the forms a passage may
 * use for it instead and how strongly each counts. The forms come from WordNet (synonyms of its most frequent
 * senses, words derived from it, similar adjectives, and at a lower weight its broader terms) and from the small
 * care-domain layer in text-terms.ts (concept groups WordNet does not make: "noshow" and "absence"). Everything
 * is compared as Porter stems, as the passages are indexed.
 */

import { conceptStems, isLowSignal, termsOf } from '../embeddings/text-terms.ts'
import { loadWordNet, type Synset, type WordNet } from '../lexicon/wordnet.ts'

/** One content word of a question and what may stand for it in a passage. */
export interface QueryTerm {
  stem: string
  /** How much the word says about what is asked (question-framing words like "happen" weigh little). */
  weight: number
  /** Stem → match strength: 1 for the word's own stem, less for an expansion. */
  forms: Map<string, number>
}

/** How far expansion goes; tuned on the evaluation's tuning set only (docs/benchmarks.md). */
export interface ExpansionOptions {
  /** Senses of each word used, most frequent first. */
  senses: number
  synonym: number
  derivation: number
  similar: number
  hypernym: number
  concept: number
  /** Words of the definition of each sense used ("grievance": a complaint about a wrong...). */
  gloss: number
  /** Opposites name the same topic ("borrow" and "lend", "early" and "late"). */
  antonym: number
  /** Weight of a question-framing word. */
  lowSignal: number
}

export const DEFAULT_EXPANSION: ExpansionOptions = {
  senses: 3,
  synonym: 0.8,
  derivation: 0.8,
  similar: 0.6,
  hypernym: 0.45,
  concept: 0.8,
  gloss: 0.25,
  antonym: 0.5,
  lowSignal: 0.2,
}

/** The single stem of a lemma, or undefined for a phrase or a stop word ("passenger vehicle", "in"). */
function stemOfLemma(lemma: string): string | undefined {
  const terms = termsOf(lemma)
  return terms.length === 1 ? terms[0]!.stem : undefined
}

function offer(forms: Map<string, number>, stem: string | undefined, strength: number) {
  if (stem && (forms.get(stem) ?? 0) < strength) forms.set(stem, strength)
}

/** The WordNet forms of one word: stem → strength. */
export function wordNetForms(wordnet: WordNet, word: string, options: ExpansionOptions): Map<string, number> {
  const forms = new Map<string, number>()
  for (const { lemma, pos } of wordnet.lemmas(word)) {
    for (const [rank, offset] of wordnet.senses(lemma, pos).slice(0, options.senses).entries()) {
      // Later senses are rarer: each counts a little less.
      const decay = 1 - rank * 0.1
      const synset = wordnet.synset(pos, offset)
      for (const synonym of synset.words) offer(forms, stemOfLemma(synonym), options.synonym * decay)
      if (options.gloss > 0) for (const term of termsOf(synset.gloss)) offer(forms, term.stem, options.gloss * decay)
      const ownIndex = synset.words.indexOf(lemma) + 1
      for (const pointer of synset.pointers) {
        const related = relatedWords(wordnet, pointer, ownIndex)
        const strength =
          pointer.symbol === '+' || pointer.symbol === '\\'
            ? options.derivation
            : pointer.symbol === '&'
              ? options.similar
              : pointer.symbol === '@' || pointer.symbol === '@i'
                ? options.hypernym
                : pointer.symbol === '!'
                  ? options.antonym
                  : 0
        if (strength === 0) continue
        for (const relatedWord of related) offer(forms, stemOfLemma(relatedWord), strength * decay)
      }
    }
  }
  return forms
}

/** The words a pointer leads to: one word for a lexical pointer from this lemma, the synset for a semantic one. */
function relatedWords(wordnet: WordNet, pointer: Synset['pointers'][number], ownIndex: number): string[] {
  const target = wordnet.synset(pointer.pos, pointer.offset)
  if (pointer.source === 0) return target.words
  if (pointer.source !== ownIndex) return []
  const word = target.words[pointer.target - 1]
  return word ? [word] : []
}

const cache = new Map<string, Map<string, number>>()

/**
 * A question's content words with their forms, each word once at its highest weight.
 * @param wordnet - the process's WordNet (loaded by default)
 */
export async function expandQuery(
  question: string,
  options: ExpansionOptions = DEFAULT_EXPANSION,
  wordnet?: WordNet
): Promise<QueryTerm[]> {
  const lexicon = wordnet ?? (await loadWordNet())
  const byStem = new Map<string, QueryTerm>()
  for (const term of termsOf(question)) {
    const weight = isLowSignal(term.stem) ? options.lowSignal : 1
    const existing = byStem.get(term.stem)
    if (existing) {
      existing.weight = Math.max(existing.weight, weight)
      continue
    }
    const forms = new Map<string, number>()
    if (!/^[0-9]+$/.test(term.stem)) {
      const key = `${term.word}|${options === DEFAULT_EXPANSION ? '' : JSON.stringify(options)}`
      let wn = cache.get(key)
      if (!wn) {
        wn = wordNetForms(lexicon, term.word, options)
        if (cache.size > 50_000) cache.clear()
        cache.set(key, wn)
      }
      for (const [stem, strength] of wn) offer(forms, stem, strength)
      if (term.concept) for (const stem of conceptStems(term.concept)) offer(forms, stem, options.concept)
    }
    forms.set(term.stem, 1)
    byStem.set(term.stem, { stem: term.stem, weight, forms })
  }
  return [...byStem.values()]
}
