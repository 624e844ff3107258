/** The onboarding step timing the workflow runs (common/provider-onboarding/onboarding-rules.ts). */
import { describe, expect, it } from 'vitest'
import { DEFAULT_ONBOARDING_TIMING, stepTimers } from '../../../../common/provider-onboarding/onboarding-rules.ts'

const DAY = 86_400_000

describe('step timers', () => {
  it('reminds every 3 days and times out after 14, with no reminder on the timeout itself', () => {
    const t = DEFAULT_ONBOARDING_TIMING
    expect(stepTimers(0, 0, t)).toEqual({ deadlineAt: 14 * DAY, reminderAt: 3 * DAY })
    expect(stepTimers(0, 3, t)).toEqual({ deadlineAt: 14 * DAY, reminderAt: 12 * DAY })
    expect(stepTimers(0, 4, t)).toEqual({ deadlineAt: 14 * DAY, reminderAt: null })
    expect(stepTimers(100, 0, { dayMs: 10, reminderEveryDays: 7, stepTimeoutDays: 14 })).toEqual({
      deadlineAt: 240,
      reminderAt: 170,
    })
    expect(stepTimers(100, 1, { dayMs: 10, reminderEveryDays: 7, stepTimeoutDays: 14 }).reminderAt).toBeNull()
  })
})
