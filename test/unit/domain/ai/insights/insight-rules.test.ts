import { describe, expect, it } from 'vitest'
import { childInsights } from '../../../../../domain/ai/insights/insight-rules.ts'
import { DEFAULT_PROGRESS_POLICY } from '../../../../../common/child-progress/progress-rules.ts'

const goal = { id: 'gol_1', description: '/s/', status: 'ACTIVE' }
const note = (n: number, accuracyPercent: number, goalId = 'gol_1') => ({
  noteId: `nte_${n}`,
  sessionId: `ses_${n}`,
  sessionAt: `2026-0${n}-01T15:00:00.000Z`,
  goals: [{ goalId, accuracyPercent }],
})

describe('childInsights', () => {
  it('orders a goal’s data points by session, ignores other goals, and explains a stalled trend', () => {
    const result = childInsights(
      [goal],
      [note(4, 61), note(1, 60), note(3, 62), note(2, 59), note(5, 99, 'gol_other')],
      [],
      DEFAULT_PROGRESS_POLICY
    )
    const [g] = result.goals
    expect(g!.dataPoints.map((d) => d.noteId)).toEqual(['nte_1', 'nte_2', 'nte_3', 'nte_4'])
    expect(g!.progress.trend).toBe('STALLED')
    expect(g!.explanation).toMatch(/^Stalled: .*less than 5/)
  })
  it('says when there is not enough data', () => {
    const [g] = childInsights([goal], [note(1, 50)], [], DEFAULT_PROGRESS_POLICY).goals
    expect(g!.progress.trend).toBe('INSUFFICIENT_DATA')
    expect(g!.explanation).toMatch(/^Not enough data/)
  })
  it('compares the score kind every completion shares, in completion order', () => {
    const result = childInsights(
      [],
      [],
      [
        {
          assessmentId: 'asm_2',
          instrument: 'CELF-5',
          completedAt: '2026-06-01T00:00:00.000Z',
          scores: [{ subtest: 'Core', scaledScore: 9, percentile: 37 }],
        },
        {
          assessmentId: 'asm_1',
          instrument: 'CELF-5',
          completedAt: '2026-01-01T00:00:00.000Z',
          scores: [{ subtest: 'core', scaledScore: 7 }],
        },
      ],
      DEFAULT_PROGRESS_POLICY
    )
    expect(result.assessments).toEqual([
      {
        instrument: 'CELF-5',
        subtest: 'core',
        measure: 'scaledScore',
        change: 2,
        points: [
          { at: '2026-01-01T00:00:00.000Z', assessmentId: 'asm_1', value: 7 },
          { at: '2026-06-01T00:00:00.000Z', assessmentId: 'asm_2', value: 9 },
        ],
      },
    ])
  })
})
