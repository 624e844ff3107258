/** The periods the child progress workflow has summarised: periodic ones tile time, a requested one is the last interval. */
import { describe, expect, it } from 'vitest'
import { requestedSummary, scheduledSummary } from '../../../common/child-progress/child-progress-contract.ts'

const DAY = 86_400_000
const start = Date.parse('2026-10-01T00:00:00Z')

describe('child progress periods', () => {
  it('summarises each interval from the start, each period beginning where the last one ended', () => {
    const first = scheduledSummary(start, 30 * DAY)
    const second = scheduledSummary(first.periodEnd, 30 * DAY)
    expect(first).toEqual({ trigger: 'SCHEDULED', periodStart: start, periodEnd: start + 30 * DAY })
    expect(second).toEqual({ trigger: 'SCHEDULED', periodStart: start + 30 * DAY, periodEnd: start + 60 * DAY })
  })

  it('answers a request with the last interval up to now, whatever the periodic cycle', () => {
    const now = start + 12 * DAY + 3_600_000
    expect(requestedSummary(now, 30 * DAY)).toEqual({
      trigger: 'REQUESTED',
      periodStart: now - 30 * DAY,
      periodEnd: now,
    })
  })
})
