/**
 * The offline embeddings: the Porter stems they are built on, the term pipeline shared with the answerer, and the
 * hashed vectors (deterministic, normalised, closer for related texts).
 */
import { stemmer } from 'stemmer'
import { describe, expect, it } from 'vitest'
import { LexicalEmbeddings, lexicalVector } from '../../../../../domain/ai/embeddings/lexical-embeddings.ts'
import { termsOf } from '../../../../../domain/ai/embeddings/text-terms.ts'

const dot = (a: number[], b: number[]) => a.reduce((sum, v, i) => sum + v * b[i]!, 0)

// Every stored vector of `local-lexical-v1` was made from these stems (the project's own Porter stemmer gave the
// same on the whole eval vocabulary, docs/benchmarks.md): a `stemmer` release that changes one needs a new model id.
describe('Porter stems (the stemmer package)', () => {
  it.each([
    ['caresses', 'caress'],
    ['ponies', 'poni'],
    ['cats', 'cat'],
    ['agreed', 'agre'],
    ['hopping', 'hop'],
    ['filing', 'file'],
    ['happy', 'happi'],
    ['relational', 'relat'],
    ['cancellation', 'cancel'],
    ['cancelled', 'cancel'],
    ['cancels', 'cancel'],
    ['generalization', 'gener'],
    ['electrical', 'electr'],
    ['adjustment', 'adjust'],
    ['controll', 'control'],
  ])('%s → %s', (word, stem) => {
    expect(stemmer(word)).toBe(stem)
  })

  it('leaves short words and numbers alone', () => {
    expect(stemmer('is')).toBe('is')
    expect(stemmer('48')).toBe('48')
  })
})

describe('termsOf', () => {
  it('drops stop words, stems, folds accents and relates words of one concept', () => {
    const terms = termsOf('What is the fee when we cancel? Café charges!')
    expect(terms.map((t) => t.stem)).toEqual(['fee', 'cancel', 'cafe', 'charg'])
    expect(terms.find((t) => t.stem === 'charg')?.concept).toBe(terms.find((t) => t.stem === 'fee')?.concept)
  })

  it('treats "no-show", "no show" and "noshow" as one word and irregular forms as their base', () => {
    expect(termsOf('no-show no show noshows').map((t) => t.stem)).toEqual(['noshow', 'noshow', 'noshow'])
    expect(termsOf('children kept').map((t) => t.stem)).toEqual(['child', 'keep'])
  })

  it('weighs question phrasing and numbers below distinctive words', () => {
    const [happens, parking, twenty] = termsOf('happens parking 20')
    expect(happens!.weight).toBeLessThan(parking!.weight)
    expect(twenty!.weight).toBeLessThan(parking!.weight)
  })
})

describe('lexical embeddings', () => {
  it('are deterministic, L2-normalised and of the configured size', async () => {
    const embeddings = new LexicalEmbeddings()
    const [a, b] = await embeddings.embedDocuments([
      'Late cancellations are charged $40.',
      'Late cancellations are charged $40.',
    ])
    expect(a).toEqual(b)
    expect(a).toHaveLength(768)
    expect(dot(a!, a!)).toBeCloseTo(1, 6)
    expect(embeddings.modelId).toBe('local-lexical-v1-768')
    expect(new LexicalEmbeddings({ dimensions: 256 }).modelId).toBe('local-lexical-v1-256')
  })

  it('place a question nearer the passage that answers it than an unrelated one', () => {
    const question = lexicalVector('How much is the fee for cancelling late?')
    const answer = lexicalVector('A cancellation made less than 48 hours ahead is charged $40.')
    const unrelated = lexicalVector('Fire drills are held once every term in the car park.')
    expect(dot(question, answer)).toBeGreaterThan(dot(question, unrelated) + 0.1)
  })

  it('match misspellings through character n-grams', () => {
    const typo = lexicalVector('cancelation')
    expect(dot(typo, lexicalVector('cancellation'))).toBeGreaterThan(0.3)
    expect(dot(typo, lexicalVector('vaccination'))).toBeLessThan(dot(typo, lexicalVector('cancellation')))
  })

  it('give a text without content words the zero vector', () => {
    expect(lexicalVector('What is it that you would?').every((v) => v === 0)).toBe(true)
  })
})
