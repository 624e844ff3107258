import { describe, expect, it } from 'vitest'
import { recallsDue, type CompletedFact } from '../../../../../domain/ai/assessment-recall/recall-rules.ts'

const fact = (over: Partial<CompletedFact>): CompletedFact => ({
  assessmentId: 'asm_1',
  childId: 'chd_1',
  instrument: 'PLS-5',
  completedOn: '2026-05-01',
  completedAt: new Date('2026-05-01T15:00:00Z'),
  cadenceDays: 180,
  hasReassessment: false,
  openOfInstrument: false,
  ...over,
})

describe('recallsDue', () => {
  it('recalls when completion + cadence falls by today + horizon, marking overdue ones', () => {
    // 2026-05-01 + 180 days = 2026-10-28
    expect(recallsDue([fact({})], '2026-10-14', 14)).toEqual([
      {
        assessmentId: 'asm_1',
        childId: 'chd_1',
        instrument: 'PLS-5',
        cadenceDays: 180,
        dueDate: '2026-10-28',
        overdue: false,
      },
    ])
    expect(recallsDue([fact({})], '2026-10-13', 14)).toEqual([])
    expect(recallsDue([fact({})], '2026-11-01', 0)[0]!.overdue).toBe(true)
  })
  it('uses the default cadence only when the assessment has none', () => {
    expect(recallsDue([fact({ cadenceDays: null })], '2026-11-01', 0)).toEqual([])
    expect(recallsDue([fact({ cadenceDays: null })], '2026-11-01', 0, 90)[0]!.dueDate).toBe('2026-07-30')
    expect(recallsDue([fact({ cadenceDays: 180 })], '2026-08-01', 0, 90)).toEqual([])
  })
  it('skips completions already re-assessed, with an open assessment of the instrument, or superseded by a later one', () => {
    expect(recallsDue([fact({ hasReassessment: true })], '2026-12-01', 0)).toEqual([])
    expect(recallsDue([fact({ openOfInstrument: true })], '2026-12-01', 0)).toEqual([])
    const older = fact({
      assessmentId: 'asm_old',
      completedOn: '2025-01-01',
      completedAt: new Date('2025-01-01T15:00:00Z'),
    })
    const newer = fact({ assessmentId: 'asm_new', instrument: 'pls-5', hasReassessment: true })
    expect(recallsDue([older, newer], '2026-12-01', 0)).toEqual([])
  })
})
