/** The unanswered report's grouping and weekly counts, on hand-made vectors (the threshold's figures are the eval's). */
import { describe, expect, it } from 'vitest'
import {
  countByWeek,
  describeGroup,
  groupByMeaning,
  weekOf,
  type UnansweredRow,
} from '../../../../../domain/ai/knowledge/unanswered-groups.ts'

const row = (id: string, vector: number[], askedAt: string, model = 'minilm'): UnansweredRow => ({
  id,
  question: `question ${id}`,
  embeddingModel: model,
  vector: Float32Array.from(vector),
  answered: false,
  score: 0.3,
  declinedBy: 'below_threshold',
  closestDocumentId: `kdoc_${id}`,
  closestDocumentName: `${id}.md`,
  closestQuote: `quote ${id}`,
  askedAt: new Date(askedAt),
  checkedAt: new Date(askedAt),
  resolvedDocumentId: null,
  resolvedDocumentName: null,
  resolvedQuote: null,
  resolvedAt: null,
})

describe('unanswered questions grouped by meaning', () => {
  it("joins a question to the first group close enough to that group's first question, same model only", () => {
    const groups = groupByMeaning([
      row('a', [1, 0], '2026-11-02T10:00:00Z'),
      row('b', [0, 1], '2026-11-03T10:00:00Z'),
      row('c', [0.8, 0.6], '2026-11-10T10:00:00Z'),
      row('d', [1, 0], '2026-11-11T10:00:00Z', 'lexical'),
      row('e', [0.6, 0.8], '2026-11-12T10:00:00Z'),
    ])
    // c is 0.8 from a; e is 0.6 from a and 0.8 from b; d is another model's.
    expect(groups.map((g) => [g.id, g.rows.map((r) => r.id)])).toEqual([
      ['a', ['a', 'c']],
      ['b', ['b', 'e']],
      ['d', ['d']],
    ])
    const view = describeGroup(groups[0]!)
    expect(view).toMatchObject({ id: 'a', count: 2, closest: { documentName: 'c.md' }, answeredBy: null })
    expect(view.questions.map((q) => q.id)).toEqual(['c', 'a'])
    expect(view.byWeek).toEqual([
      { weekStart: '2026-11-02', count: 1 },
      { weekStart: '2026-11-09', count: 1 },
    ])
  })

  it('counts by the Monday (UTC) of each week', () => {
    expect(weekOf(new Date('2026-11-29T23:59:00Z'))).toBe('2026-11-23')
    expect(weekOf(new Date('2026-11-30T00:00:00Z'))).toBe('2026-11-30')
    expect(
      countByWeek([{ askedAt: new Date('2026-11-30T01:00:00Z') }, { askedAt: new Date('2026-11-24T01:00:00Z') }])
    ).toEqual([
      { weekStart: '2026-11-23', count: 1 },
      { weekStart: '2026-11-30', count: 1 },
    ])
  })
})
