/**
 * The answer's quote grown with its neighbours (quote-window.ts): whole spans of the passage, the next one first, up to
 * the word budget, and always one exact slice of the passage so the citation's offsets stay exact.
 */
import { describe, expect, it } from 'vitest'
import type { RetrievedPassage } from '../../../../../domain/ai/answering/answer-types.ts'
import type { Candidate } from '../../../../../domain/ai/answering/extractive-answerer.ts'
import { quoteWindow } from '../../../../../domain/ai/answering/quote-window.ts'
import { splitSentences } from '../../../../../domain/ai/answering/sentences.ts'

const candidateAt = (content: string, index: number): Candidate => {
  const passage = { content, documentId: 'doc', documentName: 'policy.md', headingPath: [], startOffset: 0, score: 1 }
  return {
    passage: passage as unknown as RetrievedPassage,
    rank: 0,
    sentences: splitSentences(content),
    index,
    coverage: 0,
    score: 1,
  }
}

const words = (n: number, word: string) => Array.from({ length: n }, () => word).join(' ')

describe('the quote window', () => {
  it('adds the next sentence first, then the one before, while the whole stays within the budget', () => {
    const content =
      'Our centre opens at eight. Late cancellations are charged. The fee is half the price of the session. ' +
      'Cancel by phone or e-mail.'
    const quote = quoteWindow(candidateAt(content, 1), 18)
    // 4 + 9 words, then the 5 before: 18 fit; the last sentence (6 more, "e-mail" counting two) does not.
    expect(quote.text).toBe(
      'Our centre opens at eight. Late cancellations are charged. The fee is half the price of the session.'
    )
    expect(content.slice(quote.start, quote.end)).toBe(quote.text)
    expect(quoteWindow(candidateAt(content, 1), 13).text).toBe(
      'Late cancellations are charged. The fee is half the price of the session.'
    )
  })

  it('keeps a sentence that is already over the budget as it is, and never leaves the passage', () => {
    const long = `Alpha ${words(69, 'alpha')}.`
    const content = `Short one. ${long} Another short one.`
    const quote = quoteWindow(candidateAt(content, 1), 60)
    expect(quote.text).toBe(long)
    const all = quoteWindow(candidateAt('Only one sentence here.', 0), 60)
    expect(all).toEqual({ start: 0, end: 23, text: 'Only one sentence here.' })
  })
})
