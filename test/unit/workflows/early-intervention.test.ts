/**
 * The early-intervention workflow's choice between recording the next notice now and sleeping (and for how long).
 * The plan and the plan clock are in test/unit/common/early-intervention/ei-plan.test.ts.
 */
import { describe, expect, it } from 'vitest'
import { noticeWaitMs, workflowDelayUntil, type PlanClock } from '../../../common/early-intervention/ei-clock.ts'

const DAY = 86_400_000

describe('noticeWaitMs', () => {
  it('records a notice that is due, unless it was just found stale', () => {
    expect(noticeWaitMs(0, false, DAY)).toBeNull()
    // Stale twice in a row: wait for a change or the daily reload rather than asking again at once.
    expect(noticeWaitMs(0, true, DAY)).toBe(DAY)
  })

  it('sleeps until a notice that is not yet due, at most a plan day (the periodic reload)', () => {
    expect(noticeWaitMs(5_000.2, false, DAY)).toBe(5_001)
    expect(noticeWaitMs(3 * DAY, false, DAY)).toBe(DAY)
  })

  it('sleeps a plan day when there is no notice to wait for', () => {
    expect(noticeWaitMs(Number.POSITIVE_INFINITY, false, DAY)).toBe(DAY)
  })

  it('works in shortened plan days: a notice three plan days ahead is a shortened day of sleep away, at most', () => {
    const clock: PlanClock = { originMs: 0, dayMs: 1_000 }
    const delay = workflowDelayUntil(clock, 0, 3 * DAY)
    expect(delay).toBe(3_000)
    expect(noticeWaitMs(delay, false, clock.dayMs)).toBe(1_000)
    expect(noticeWaitMs(workflowDelayUntil(clock, 0, DAY / 2), false, clock.dayMs)).toBe(500)
  })
})
