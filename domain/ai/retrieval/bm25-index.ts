/**
 * @module Okapi BM25 over an assistant's chunks, with term statistics from that assistant's own knowledge (what is
 * rare in one centre's documents is what tells its passages apart there), built when the chunks are loaded and
 * cached with them. A query word scores a chunk by the best of its forms (its own stem, or an expansion at the
 * expansion's strength), so a passage is not rewarded for holding many synonyms of one word.
 */
import { termsOf } from '../embeddings/text-terms.ts'
import type { QueryTerm } from './query-expansion.ts'

/** Robertson's usual parameters: term-frequency saturation and length normalisation. */
export const BM25 = { k1: 1.2, b: 0.75 } as const

export interface Bm25Hit {
  /** Position of the chunk in the indexed list. */
  position: number
  score: number
  /** Share of the question's (idf-weighted) words the chunk has in some form, 0..1. */
  coverage: number
}

export class Bm25Index {
  /** Stem → [chunk position, term frequency]. */
  private readonly postings = new Map<string, Array<[number, number]>>()
  private readonly lengths: Uint32Array
  private readonly averageLength: number
  readonly size: number

  /** @param texts - each chunk's indexed text (its document title, headings and content) */
  constructor(texts: string[]) {
    this.size = texts.length
    this.lengths = new Uint32Array(texts.length)
    let total = 0
    for (const [position, text] of texts.entries()) {
      const counts = new Map<string, number>()
      for (const term of termsOf(text)) counts.set(term.stem, (counts.get(term.stem) ?? 0) + 1)
      let length = 0
      for (const [stem, tf] of counts) {
        length += tf
        let list = this.postings.get(stem)
        if (!list) this.postings.set(stem, (list = []))
        list.push([position, tf])
      }
      this.lengths[position] = length
      total += length
    }
    this.averageLength = texts.length > 0 ? total / texts.length : 0
  }

  /** Chunks that contain the stem. */
  documentFrequency(stem: string): number {
    return this.postings.get(stem)?.length ?? 0
  }

  /** BM25's inverse document frequency (the non-negative variant): 0 for a stem in every chunk, high for a rare one. */
  idf(stem: string): number {
    const df = this.documentFrequency(stem)
    return Math.log(1 + (this.size - df + 0.5) / (df + 0.5))
  }

  /** The idf a word the knowledge never uses would have: the most a word can weigh here. */
  get maxIdf(): number {
    return Math.log(1 + (this.size + 0.5) / 0.5)
  }

  /**
   * The best chunks for a query, best first.
   * @param allowed - when given, only chunk positions it accepts
   */
  search(query: QueryTerm[], k: number, allowed?: (position: number) => boolean): Bm25Hit[] {
    const scores = new Map<number, number>()
    const covered = new Map<number, number>()
    let totalWeight = 0
    for (const term of query) {
      totalWeight += term.weight * this.idfOfTerm(term)
      // The best form of this word in each chunk.
      const best = new Map<number, { score: number; strength: number }>()
      for (const [stem, strength] of term.forms) {
        const list = this.postings.get(stem)
        if (!list) continue
        const idf = this.idf(stem)
        for (const [position, tf] of list) {
          if (allowed && !allowed(position)) continue
          const norm = BM25.k1 * (1 - BM25.b + (BM25.b * this.lengths[position]!) / (this.averageLength || 1))
          const score = term.weight * strength * idf * ((tf * (BM25.k1 + 1)) / (tf + norm))
          const seen = best.get(position)
          if (!seen || seen.score < score)
            best.set(position, { score, strength: Math.max(seen?.strength ?? 0, strength) })
        }
      }
      const termIdf = this.idfOfTerm(term)
      for (const [position, { score, strength }] of best) {
        scores.set(position, (scores.get(position) ?? 0) + score)
        covered.set(position, (covered.get(position) ?? 0) + term.weight * termIdf * strength)
      }
    }
    return [...scores]
      .map(([position, score]) => ({
        position,
        score,
        coverage: totalWeight > 0 ? Math.min(1, (covered.get(position) ?? 0) / totalWeight) : 0,
      }))
      .sort((a, b) => b.score - a.score || a.position - b.position)
      .slice(0, k)
  }

  /**
   * How much a question word weighs: the idf of its rarest form the knowledge has, or of the word itself when the
   * knowledge has no form of it (a word nothing here mentions counts fully: its absence is telling).
   */
  idfOfTerm(term: QueryTerm): number {
    const own = this.documentFrequency(term.stem)
    if (own > 0) return this.idf(term.stem)
    let best = 0
    for (const [stem] of term.forms) if (this.documentFrequency(stem) > 0) best = Math.max(best, this.idf(stem))
    return best > 0 ? best : this.maxIdf
  }
}
