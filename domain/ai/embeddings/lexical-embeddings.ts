/**
 * @module The default, offline embedding model: a hashed lexical-semantic embedding. Nothing is downloaded and the
 * same text always gives the same vector, on every machine.
 *
 * A text becomes weighted features — each word's Porter stem, its care-domain concept ("charge" and "cost" are both
 * ~fee), its character 3- and 4-grams (so "cancelation" still meets "cancellation") and adjacent-word bigrams —
 * with sublinear term frequency and a static weight for words common to every centre document (the stand-in for
 * inverse document frequency). The feature hashing trick folds them into a fixed number of dimensions with a sign
 * bit (so collisions cancel out on average rather than pile up), and the vector is L2-normalised, so a dot product
 * is the cosine similarity every vector store computes.
 */
import { Embeddings, type EmbeddingsParams } from '@langchain/core/embeddings'
import { termsOf, type Term } from './text-terms.ts'

/**
 * 768: on the evaluation set 768 and 1,024 dimensions retrieve equally well and 512 loses a question to hash
 * collisions; fewer dimensions make every search and the stored vectors cheaper.
 */
export const LEXICAL_DIMENSIONS = 768

/** Relative weights of the feature kinds, tuned on the evaluation set (eval/, docs/benchmarks.md). */
const WEIGHTS = { stem: 1, concept: 0.8, ngrams: 0.45, bigram: 0.6 }

/** FNV-1a, 32 bits: fast, well spread for short strings, and the same everywhere. */
export function fnv1a(text: string): number {
  let hash = 0x811c9dc5
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i)
    hash = Math.imul(hash, 0x01000193)
  }
  return hash >>> 0
}

function addFeature(features: Map<string, number>, key: string, weight: number) {
  features.set(key, (features.get(key) ?? 0) + weight)
}

const ngramsOf = (stem: string): string[] => {
  const padded = `<${stem}>`
  const grams: string[] = []
  for (const n of [3, 4]) for (let i = 0; i + n <= padded.length; i++) grams.push(padded.slice(i, i + n))
  return grams
}

/**
 * The weighted features of a text before hashing (exposed for tests and for explaining a match).
 * @param text - a passage or a question
 */
export function lexicalFeatures(text: string): Map<string, number> {
  const terms = termsOf(text)
  const features = new Map<string, number>()
  let previous: Term | undefined
  for (const term of terms) {
    addFeature(features, `w:${term.stem}`, WEIGHTS.stem * term.weight)
    if (term.concept) addFeature(features, `c:${term.concept}`, WEIGHTS.concept * term.weight)
    if (!/^[0-9]+$/.test(term.stem)) {
      const grams = ngramsOf(term.stem)
      for (const gram of grams)
        addFeature(features, `g:${gram}`, (WEIGHTS.ngrams * term.weight) / Math.sqrt(grams.length))
    }
    if (previous)
      addFeature(features, `b:${previous.stem}_${term.stem}`, WEIGHTS.bigram * Math.min(previous.weight, term.weight))
    previous = term
  }
  return features
}

/**
 * Embeds a text into `dimensions` dimensions: sublinear feature weights, signed hashing, L2 normalisation. A text
 * without a single content word gives the zero vector (it matches nothing).
 */
export function lexicalVector(text: string, dimensions = LEXICAL_DIMENSIONS): number[] {
  const vector = new Float64Array(dimensions)
  for (const [key, weight] of lexicalFeatures(text)) {
    const hash = fnv1a(key)
    const sign = hash & 0x80000000 ? -1 : 1
    vector[hash % dimensions]! += sign * Math.log1p(weight)
  }
  let norm = 0
  for (const v of vector) norm += v * v
  norm = Math.sqrt(norm)
  return Array.from(vector, (v) => (norm > 0 ? v / norm : 0))
}

export interface LexicalEmbeddingsOptions extends EmbeddingsParams {
  dimensions?: number
}

/** The offline embeddings as a LangChain `Embeddings`, usable by any LangChain vector store. */
export class LexicalEmbeddings extends Embeddings {
  readonly dimensions: number
  /** Names the model and its version: vectors of another model id are never compared with this one's. */
  readonly modelId: string
  readonly inProcess = true

  constructor(options: LexicalEmbeddingsOptions = {}) {
    super(options)
    this.dimensions = options.dimensions ?? LEXICAL_DIMENSIONS
    this.modelId = `local-lexical-v1-${this.dimensions}`
  }

  async embedDocuments(texts: string[]): Promise<number[][]> {
    return texts.map((text) => lexicalVector(text, this.dimensions))
  }

  async embedQuery(text: string): Promise<number[]> {
    return lexicalVector(text, this.dimensions)
  }
}
