import { describe, expect, it } from 'vitest'
import {
  otherKinds,
  percentile,
  summarizeQueries,
  toExecutionStatus,
  toStatusCounts,
  type QueryRow,
} from '../../../../../domain/ai/analytics/ai-analytics-rules.ts'

const row = (
  assistantId: string,
  answered: boolean,
  createdAt: string,
  citationCount = answered ? 2 : 0,
  latencyMs = 10
): QueryRow => ({
  assistantId,
  answered,
  citationCount,
  latencyMs,
  createdAt: new Date(createdAt),
})

describe('summarizeQueries', () => {
  const assistants = [
    { id: 'ast_a', name: 'Policies' },
    { id: 'ast_b', name: 'Schedules' },
    { id: 'ast_c', name: 'Idle' },
  ]

  it('counts usage per assistant and per local day, and the coverage shares', () => {
    const rows = [
      row('ast_a', true, '2026-11-02T15:00:00Z', 3, 5),
      row('ast_a', true, '2026-11-02T16:00:00Z', 1, 7),
      row('ast_a', false, '2026-11-03T05:00:00Z', 0, 9), // 23:00 on the 2nd in Chicago (UTC-6)
      row('ast_b', false, '2026-11-03T15:00:00Z', 0, 40),
    ]
    const { usage, coverage } = summarizeQueries(rows, assistants, {
      from: '2026-11-01',
      to: '2026-11-03',
      timeZone: 'America/Chicago',
    })
    expect(usage).toMatchObject({ queries: 4, assistants: 3, assistantsActive: 2 })
    expect(usage.byAssistant).toEqual([
      { assistantId: 'ast_a', name: 'Policies', queries: 3, answered: 2, abstained: 1 },
      { assistantId: 'ast_b', name: 'Schedules', queries: 1, answered: 0, abstained: 1 },
      { assistantId: 'ast_c', name: 'Idle', queries: 0, answered: 0, abstained: 0 },
    ])
    expect(usage.byDay).toEqual([
      { date: '2026-11-01', queries: 0, answered: 0, abstained: 0 },
      { date: '2026-11-02', queries: 3, answered: 2, abstained: 1 },
      { date: '2026-11-03', queries: 1, answered: 0, abstained: 1 },
    ])
    expect(coverage).toEqual({
      answered: 2,
      abstained: 2,
      answeredShare: 0.5,
      abstainedShare: 0.5,
      citations: 4,
      citationsPerAnswer: 2,
      latencyMs: { median: 7, p95: 40 },
      // Sunday the 1st belongs to the week of Monday 26 October; the earlier half of the range (the 1st) had no query.
      byWeek: [
        { weekStart: '2026-10-26', queries: 0, answered: 0, answeredShare: null },
        { weekStart: '2026-11-02', queries: 4, answered: 2, answeredShare: 0.5 },
      ],
      answeredShareChange: null,
    })
  })

  it("gives the answer rate's trend: the later half of the range's days against the earlier half", () => {
    const rows = [
      row('ast_a', false, '2026-11-02T15:00:00Z', 0, 5),
      row('ast_a', true, '2026-11-03T15:00:00Z', 1, 5),
      row('ast_a', true, '2026-11-04T15:00:00Z', 1, 5),
      row('ast_a', true, '2026-11-05T15:00:00Z', 1, 5),
    ]
    const { coverage } = summarizeQueries(rows, assistants, { from: '2026-11-02', to: '2026-11-05', timeZone: 'UTC' })
    expect(coverage.answeredShareChange).toBe(0.5)
  })

  it('reports null shares, not zero, when there were no queries', () => {
    const { coverage, usage } = summarizeQueries([], assistants, {
      from: '2026-11-01',
      to: '2026-11-01',
      timeZone: 'UTC',
    })
    expect(usage.assistantsActive).toBe(0)
    expect(coverage).toMatchObject({
      answeredShare: null,
      abstainedShare: null,
      citationsPerAnswer: null,
      latencyMs: { median: null, p95: null },
    })
  })
})

describe('percentile', () => {
  it('is the nearest rank', () => {
    expect(percentile([5, 1, 3, 2, 4], 50)).toBe(3)
    expect(percentile([1, 2, 3, 4], 50)).toBe(2)
    expect(
      percentile(
        Array.from({ length: 20 }, (_, i) => i + 1),
        95
      )
    ).toBe(19)
  })
})

describe('workflow status counts', () => {
  it('maps visibility group values to the API statuses', () => {
    expect(toExecutionStatus(['Running'])).toBe('RUNNING')
    expect(toExecutionStatus('ContinuedAsNew')).toBe('CONTINUED_AS_NEW')
    expect(toExecutionStatus(['TimedOut'])).toBe('TIMED_OUT')
    // As the SDK's count() hands them over: each group value wrapped by the legacy search-attribute converter.
    expect(toExecutionStatus([['Terminated']])).toBe('TERMINATED')
    expect(toExecutionStatus(['Paused'])).toBeUndefined()
  })

  it('turns a GROUP BY ExecutionStatus count into counts, and the rest of the total into other kinds', () => {
    const total = toStatusCounts({
      count: 7,
      groups: [
        { count: 4, groupValues: [['Completed']] },
        { count: 3, groupValues: [['Running']] },
      ],
    })
    const agent = toStatusCounts({
      count: 3,
      groups: [
        { count: 2, groupValues: ['Completed'] },
        { count: 1, groupValues: ['Running'] },
      ],
    })
    const care = toStatusCounts({ count: 1, groups: [{ count: 1, groupValues: ['Running'] }] })
    expect(total.byStatus).toMatchObject({ COMPLETED: 4, RUNNING: 3, FAILED: 0 })
    const other = otherKinds(total, [agent, care])
    expect(other.total).toBe(3)
    expect(other.byStatus).toMatchObject({ COMPLETED: 2, RUNNING: 1, FAILED: 0, TERMINATED: 0 })
  })
})
