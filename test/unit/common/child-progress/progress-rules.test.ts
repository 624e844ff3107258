import { describe, expect, it } from 'vitest'
import {
  DEFAULT_PROGRESS_POLICY,
  fittedChange,
  goalProgress,
  type GoalObservation,
} from '../../../../common/child-progress/progress-rules.ts'
import { summariseProgress, type SignedNoteData } from '../../../../domain/child-progress/progress-summary.ts'

const policy = DEFAULT_PROGRESS_POLICY
const series = (accuracies: number[], cueing?: GoalObservation['cueingLevel'][]): GoalObservation[] =>
  accuracies.map((accuracyPercent, i) => ({
    goalId: 'gol_1',
    at: `2026-03-${String(i + 1).padStart(2, '0')}T15:00:00.000Z`,
    accuracyPercent,
    ...(cueing?.[i] ? { cueingLevel: cueing[i] } : {}),
  }))

describe('trend of a goal', () => {
  it('fits a line through the window rather than comparing two days', () => {
    expect(fittedChange([50, 55, 60, 65])).toBeCloseTo(15)
    expect(fittedChange([60, 40, 60, 40])).toBeCloseTo(-12)
    expect(fittedChange([70])).toBe(0)
  })

  it('is IMPROVING when accuracy rose by 5 points or more over the last 4 sessions', () => {
    expect(goalProgress('gol_1', series([40, 45, 50, 55, 62]), policy)).toMatchObject({
      trend: 'IMPROVING',
      dataPoints: 5,
      firstAccuracy: 40,
      lastAccuracy: 62,
    })
  })

  it('is STALLED when accuracy stayed flat over the last 4 sessions, however good the start was', () => {
    const stalled = goalProgress('gol_1', series([30, 50, 52, 50, 51]), policy)
    expect(stalled.trend).toBe('STALLED')
    expect(Math.abs(stalled.trendChange!)).toBeLessThan(5)
  })

  it('is DECLINING on a drop of 10 points or more', () => {
    expect(goalProgress('gol_1', series([70, 65, 58, 52]), policy).trend).toBe('DECLINING')
  })

  it('counts cue fading as progress at steady accuracy', () => {
    const faded = goalProgress(
      'gol_1',
      series([60, 61, 60, 61], ['MAXIMAL', 'MODERATE', 'MODERATE', 'MINIMAL']),
      policy
    )
    expect(faded).toMatchObject({ trend: 'IMPROVING', firstCueing: 'MAXIMAL', lastCueing: 'MINIMAL' })
    const sameCues = goalProgress(
      'gol_1',
      series([60, 61, 60, 61], ['MODERATE', 'MODERATE', 'MODERATE', 'MODERATE']),
      policy
    )
    expect(sameCues.trend).toBe('STALLED')
  })

  it('is MASTERED at 80% in 4 of the last 5 sessions, even when flat', () => {
    expect(goalProgress('gol_1', series([82, 85, 79, 84, 86]), policy).trend).toBe('MASTERED')
    expect(goalProgress('gol_1', series([82, 85, 70, 74, 86]), policy).trend).not.toBe('MASTERED')
  })

  it('needs a full window before judging', () => {
    expect(goalProgress('gol_1', series([40, 41, 40]), policy)).toMatchObject({
      trend: 'INSUFFICIENT_DATA',
      trendChange: null,
    })
  })

  it('orders observations by session time, whatever order they come in', () => {
    const shuffled = series([40, 45, 50, 55]).reverse()
    expect(goalProgress('gol_1', shuffled, policy)).toMatchObject({
      firstAccuracy: 40,
      lastAccuracy: 55,
      trend: 'IMPROVING',
    })
  })
})

describe('summary of a period', () => {
  const note = (
    day: number,
    signedDay: number,
    goals: SignedNoteData['goals'],
    sessionId = `ses_${day}`
  ): SignedNoteData => ({
    sessionId,
    sessionAt: `2026-03-${String(day).padStart(2, '0')}T15:00:00.000Z`,
    signedAt: `2026-03-${String(signedDay).padStart(2, '0')}T18:00:00.000Z`,
    goals,
  })
  const period = { start: '2026-03-10T00:00:00.000Z', end: '2026-03-31T00:00:00.000Z' }

  it('counts the notes signed in the period, judges active goals over the look-back, and lists stalled ones', () => {
    const notes = [
      note(2, 2, [
        { goalId: 'gol_flat', accuracyPercent: 50 },
        { goalId: 'gol_up', accuracyPercent: 30 },
      ]),
      note(5, 6, [
        { goalId: 'gol_flat', accuracyPercent: 52 },
        { goalId: 'gol_up', accuracyPercent: 40 },
      ]),
      note(12, 12, [
        { goalId: 'gol_flat', accuracyPercent: 49 },
        { goalId: 'gol_up', accuracyPercent: 50 },
        { description: 'x' } as never,
      ]),
      note(19, 20, [
        { goalId: 'gol_flat', accuracyPercent: 51 },
        { goalId: 'gol_up', accuracyPercent: 62 },
        { goalId: 'gol_met', accuracyPercent: 10 },
      ]),
      // Signed after the period: not in this summary.
      note(30, 31, [{ goalId: 'gol_flat', accuracyPercent: 90 }]),
    ]
    const summary = summariseProgress(
      period,
      notes,
      [
        { assessmentId: 'asm_in', instrument: 'PLS-5', completedAt: '2026-03-15T10:00:00.000Z' },
        { assessmentId: 'asm_before', instrument: 'PLS-5', completedAt: '2026-02-15T10:00:00.000Z' },
      ],
      ['gol_flat', 'gol_up'],
      policy
    )
    expect(summary.signedNotesCount).toBe(2)
    expect(summary.sessionsCount).toBe(2)
    expect(summary.assessments.map((a) => a.assessmentId)).toEqual(['asm_in'])
    expect(summary.goals.map((g) => [g.goalId, g.trend, g.dataPoints])).toEqual([
      ['gol_flat', 'STALLED', 4],
      ['gol_up', 'IMPROVING', 4],
    ])
    expect(summary.stalledGoalIds).toEqual(['gol_flat'])
  })

  it('has no goals and nothing stalled without data', () => {
    const summary = summariseProgress(period, [], [], ['gol_a'], policy)
    expect(summary).toMatchObject({ signedNotesCount: 0, sessionsCount: 0, goals: [], stalledGoalIds: [] })
  })
})
