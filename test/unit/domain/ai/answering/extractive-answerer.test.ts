/** The offline answerer: quotes only retrieved sentences, with exact offsets, and abstains when the knowledge is silent. */
import { describe, expect, it } from 'vitest'
import type { RetrievedPassage } from '../../../../../domain/ai/answering/answer-types.ts'
import {
  answerTypeOf,
  coverage,
  createExtractiveAnswerer,
} from '../../../../../domain/ai/answering/extractive-answerer.ts'
import type { QueryTerm } from '../../../../../domain/ai/retrieval/query-expansion.ts'
import { splitSentences } from '../../../../../domain/ai/answering/sentences.ts'

const DOCUMENT = [
  'Attendance policy',
  'Please give at least 48 hours notice if your child cannot attend a session. Late cancellations are charged a fee',
  'of $40 per session.',
  '',
  'What to bring:',
  '- your insurance card',
  '- a nut-free snack',
  '',
  'Fire drills are held once every term.',
].join('\n')

/** A passage over a slice of the document, as a store would return it. */
const passage = (from: string, to: string, score: number, headingPath = ['Attendance policy']): RetrievedPassage => {
  const start = DOCUMENT.indexOf(from)
  const end = DOCUMENT.indexOf(to) + to.length
  return {
    chunkId: `c${start}`,
    documentId: 'kdoc_1',
    documentName: 'policy.pdf',
    page: 1,
    headingPath,
    startOffset: start,
    endOffset: end,
    content: DOCUMENT.slice(start, end),
    score,
  }
}

const answerer = createExtractiveAnswerer()

describe('splitSentences', () => {
  it('joins lines wrapped mid-sentence, splits list items and keeps offsets exact', () => {
    const text = 'Late cancellations are charged a fee\nof $40. Dr. Lee signs notes.\n- first item\n- second item'
    const sentences = splitSentences(text)
    expect(sentences.map((s) => s.text)).toEqual([
      'Late cancellations are charged a fee\nof $40.',
      'Dr. Lee signs notes.',
      'first item',
      'second item',
    ])
    for (const s of sentences) expect(text.slice(s.start, s.end)).toBe(s.text)
  })
})

describe('extractive answerer', () => {
  it('answers with the covering sentence, cited with its exact position', async () => {
    const p = passage('Please give', '$40 per session.', 0.5)
    const answer = await answerer.answer('How much is the late cancellation fee?', [p])
    expect(answer.answered).toBe(true)
    expect(answer.answer).toBe('Late cancellations are charged a fee of $40 per session. [1]')
    const [citation] = answer.citations
    expect(citation).toMatchObject({
      documentId: 'kdoc_1',
      documentName: 'policy.pdf',
      page: 1,
      headingPath: ['Attendance policy'],
      score: 0.5,
    })
    expect(DOCUMENT.slice(citation!.startOffset, citation!.endOffset)).toBe(citation!.quote)
  })

  it('quotes the list a sentence introduces', async () => {
    const answer = await answerer.answer('What should we bring?', [passage('What to bring:', 'nut-free snack', 0.4)])
    expect(answer.citations[0]!.quote).toBe('What to bring:\n- your insurance card\n- a nut-free snack')
  })

  it('abstains when no sentence covers the question, or nothing was retrieved', async () => {
    const p = passage('Please give', '$40 per session.', 0.5)
    const silent = await answerer.answer('Do you offer hydrotherapy in the pool?', [p])
    expect(silent).toMatchObject({ answered: false, citations: [] })
    expect(silent.answer).toMatch(/does not contain the answer/)
    expect((await answerer.answer('How much is the late cancellation fee?', [])).answered).toBe(false)
    expect((await answerer.answer('What is it?', [p])).answered).toBe(false)
  })

  it("counts a word found in one of its expanded forms, at the form's strength and weighted by rarity", async () => {
    const p = passage('Please give', '$40 per session.', 0.5)
    const term = (stem: string, weight: number, forms: Array<[string, number]> = []): QueryTerm => ({
      stem,
      weight,
      forms: new Map([[stem, 1], ...forms]),
    })
    // "What does bailing late cost?": neither "bail" nor "cost" is in the sentence; their forms are.
    const expanded = [term('bail', 3, [['cancel', 0.8]]), term('late', 2), term('cost', 1, [['charg', 0.8]])]
    const answer = await answerer.answer('What does bailing late cost?', [p], { query: expanded })
    expect(answer.citations.map((c) => c.quote)).toEqual(['Late cancellations are charged a fee\nof $40 per session.'])
    // Without the form for its rarest word, the sentence covers too little of the question.
    const literal = [term('bail', 3), term('late', 2), term('cost', 1, [['charg', 0.8]])]
    expect((await answerer.answer('What does bailing late cost?', [p], { query: literal })).answered).toBe(false)
    expect(coverage(expanded, new Set(['late', 'cancel', 'charg', 'fee']), new Set())).toBeCloseTo(
      (3 * 0.8 + 2 + 0.8) / 6
    )
  })

  it('prefers the sentence with the kind of answer asked for', async () => {
    expect(answerTypeOf('How often are fire drills held?')).toBe('time')
    expect(answerTypeOf('How much does a session cost?')).toBe('money')
    expect(answerTypeOf('Who is the privacy officer?')).toBe('person')
    expect(answerTypeOf('How can I cancel?')).toBe('method')
    expect(answerTypeOf('Can I bring a snack?')).toBeUndefined()
    // The first sentence covers more of the question's words; only the second says how often.
    const content = 'Fire drills are held in the car park. Fire drills happen once every term.'
    const safety: RetrievedPassage = {
      chunkId: 'c',
      documentId: 'kdoc_2',
      documentName: 'safety.md',
      headingPath: ['Safety'],
      startOffset: 0,
      endOffset: content.length,
      content,
      score: 0.4,
    }
    const answer = await answerer.answer('How often are fire drills held?', [safety])
    expect(answer.citations.map((c) => c.quote)).toEqual([
      'Fire drills are held in the car park.',
      'Fire drills happen once every term.',
    ])
  })
})
