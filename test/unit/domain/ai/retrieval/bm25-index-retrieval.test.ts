/** Hybrid retrieval's parts: WordNet read from its database files, query expansion, BM25, rank fusion. */
import { beforeAll, describe, expect, it } from 'vitest'
import { loadWordNet, type WordNet } from '../../../../../domain/ai/lexicon/wordnet.ts'
import { Bm25Index } from '../../../../../domain/ai/retrieval/bm25-index.ts'
import { expandQuery } from '../../../../../domain/ai/retrieval/query-expansion.ts'
import { reciprocalRankFusion } from '../../../../../domain/ai/retrieval/rank-fusion.ts'

let wordnet: WordNet
beforeAll(async () => {
  wordnet = await loadWordNet()
})

describe('WordNet', () => {
  it('finds base forms by the detachment rules and reads synsets at their offsets', () => {
    expect(wordnet.lemmas('bikes')).toContainEqual({ lemma: 'bike', pos: 'noun' })
    expect(wordnet.lemmas('booked')).toContainEqual({ lemma: 'book', pos: 'verb' })
    expect(wordnet.lemmas('zzqx')).toEqual([])
    const [first] = wordnet.senses('kid', 'noun')
    const synset = wordnet.synset('noun', first!)
    expect(synset.words).toEqual(expect.arrayContaining(['child', 'kid']))
    expect(synset.gloss).toMatch(/young person/)
  })
})

describe('query expansion', () => {
  it('gives each content word its WordNet and care-domain forms, its own stem at full strength', async () => {
    const [bike] = await expandQuery('bikes')
    expect(bike!.forms.get('bike')).toBe(1)
    expect(bike!.forms.get('bicycl')).toBeGreaterThan(0.5)
    const [kid] = await expandQuery('kid')
    expect(kid!.forms.get('child')).toBeGreaterThan(0.5)
    // "noshow" is no WordNet word: the care-domain layer relates it to absence.
    const [noshow] = await expandQuery('no-show')
    expect(noshow!.forms.get('absenc')).toBeGreaterThan(0)
  })

  it('weighs question-framing words little and never expands numbers', async () => {
    const terms = await expandQuery('What happens after 48 hours?')
    expect(terms.find((t) => t.stem === 'happen')!.weight).toBeLessThan(0.5)
    expect([...terms.find((t) => t.stem === '48')!.forms.keys()]).toEqual(['48'])
  })
})

describe('BM25', () => {
  const index = new Bm25Index([
    'Late cancellations are charged a fee of $40.',
    'The centre is open on weekdays.',
    'The centre has a car park. The centre is near the library.',
  ])
  const term = (stem: string, forms: Array<[string, number]> = []) => ({
    stem,
    weight: 1,
    forms: new Map([[stem, 1], ...forms]),
  })

  it('takes its statistics from the indexed chunks: a word in every chunk weighs least', () => {
    expect(index.idf('centr')).toBeLessThan(index.idf('librari'))
    expect(index.idfOfTerm(term('hydrotherapi'))).toBe(index.maxIdf)
  })

  it('scores a word by its best form, and reports the share of the question a chunk covers', () => {
    const hits = index.search([term('cost', [['charg', 0.8]]), term('late')], 3)
    expect(hits[0]!.position).toBe(0)
    expect(hits[0]!.coverage).toBeGreaterThan(0.85)
    expect(hits[0]!.coverage).toBeLessThan(1)
    expect(index.search([term('librari')], 3, (p) => p !== 2)).toEqual([])
  })
})

describe('reciprocal rank fusion', () => {
  it('rewards agreement between rankings and honours their weights', () => {
    expect(
      reciprocalRankFusion([
        ['a', 'b'],
        ['b', 'c'],
      ]).map((h) => h.id)
    ).toEqual(['b', 'a', 'c'])
    expect(reciprocalRankFusion([['a'], ['c']], [0.3, 1]).map((h) => h.id)).toEqual(['c', 'a'])
  })
})
