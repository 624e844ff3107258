/**
 * What a decline offers (issue 77): the closest spans above the floor, one per passage, closest first, quoted
 * verbatim at their document offsets; nothing under the floor or without span vectors. Hand-made vectors: the floor's
 * figures are the evaluation's (eval/related-passages.ts).
 */
import { describe, expect, it } from 'vitest'
import type { RetrievedPassage } from '../../../../../domain/ai/answering/answer-types.ts'
import {
  RELATED_SETTINGS,
  relatedPassages,
  withRelatedLead,
} from '../../../../../domain/ai/answering/related-passages.ts'

const passage = (id: string, content: string, score: number, vectors: number[][]): RetrievedPassage => {
  let at = 0
  const spans = content.split(/(?<=\.) /).map((sentence, i) => {
    const start = content.indexOf(sentence, at)
    at = start + sentence.length
    return { start, end: at, vector: vectors[i]! }
  })
  return {
    chunkId: id,
    documentId: `kdoc_${id}`,
    documentName: `${id}.md`,
    headingPath: ['Fees'],
    startOffset: 1000,
    endOffset: 1000 + content.length,
    content,
    score,
    spans,
  }
}
const question = { questionVector: [1, 0] }

describe('related passages', () => {
  const fees = passage('fees', 'Invoices are sent monthly. Fees are paid by card.', 0.5, [
    [0.5, 0.87],
    [0.6, 0.8],
  ])
  const forms = passage('forms', 'Forms are on the portal.', 0.45, [[0.5, 0.87]])
  const far = passage('far', 'The car park is behind the centre.', 0.1, [[0, 1]])

  it('offers the closest span of each passage above the floor, closest first, quoted at its document offsets', () => {
    const related = relatedPassages([forms, fees, far], question)
    // fees: 0.5·0.5 + 0.5·0.6 = 0.55; forms: 0.5·0.45 + 0.5·0.5 = 0.475; far: 0.05, under the floor.
    expect(related.map((r) => [r.documentName, r.score])).toEqual([
      ['fees.md', 0.55],
      ['forms.md', 0.475],
    ])
    const [first] = related
    expect(first!.quote).toBe('Invoices are sent monthly. Fees are paid by card.')
    expect(fees.content.slice(first!.startOffset - 1000, first!.endOffset - 1000)).toBe(first!.quote)
    expect(withRelatedLead('Not in the knowledge.', related)).toBe(
      'Not in the knowledge. This may help, though it is not an answer: see "fees.md", "forms.md".'
    )
  })

  it('offers nothing under the floor, past three, or without span vectors', () => {
    expect(relatedPassages([far], question)).toEqual([])
    const many = Array.from({ length: 5 }, (_, i) => passage(`p${i}`, 'Fees are paid by card.', 0.6, [[0.6, 0.8]]))
    expect(relatedPassages(many, question)).toHaveLength(RELATED_SETTINGS.max)
    const { spans: _spans, ...plain } = fees
    expect(relatedPassages([plain], question)).toEqual([])
    expect(relatedPassages([fees], undefined)).toEqual([])
    expect(withRelatedLead('Not in the knowledge.', [])).toBe('Not in the knowledge.')
  })
})
