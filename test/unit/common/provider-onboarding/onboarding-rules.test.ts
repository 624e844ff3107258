/**
 * The onboarding rules the workflow runs (common/provider-onboarding/onboarding-rules.ts): step timing, which steps it
 * accepts when, and where a licence verification leads.
 */
import { describe, expect, it } from 'vitest'
import {
  DEFAULT_ONBOARDING_TIMING,
  ONBOARDING_STEPS,
  onboardingStepRefusal,
  stepAfterVerification,
  stepTimers,
  type OnboardingStatus,
} from '../../../../common/provider-onboarding/onboarding-rules.ts'

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

describe('onboardingStepRefusal', () => {
  it('accepts a step only at its own step while in progress', () => {
    const accepted = ONBOARDING_STEPS.filter(
      (step) => onboardingStepRefusal('IN_PROGRESS', step, 'BACKGROUND_CHECK') === undefined
    )
    expect(accepted).toEqual(['BACKGROUND_CHECK'])
    expect(onboardingStepRefusal('IN_PROGRESS', 'DOCUMENTS', 'ADMIN_APPROVAL')).toBe(
      'The onboarding is at step DOCUMENTS, not ADMIN_APPROVAL.'
    )
  })

  it('accepts a step valid at any step (a rejection) at every step, while in progress', () => {
    expect(ONBOARDING_STEPS.map((step) => onboardingStepRefusal('IN_PROGRESS', step))).toEqual(
      ONBOARDING_STEPS.map(() => undefined)
    )
  })

  it('refuses everything once the onboarding has ended, the timeout included (so a late approval loses to it)', () => {
    for (const status of ['APPROVED', 'REJECTED', 'TIMED_OUT', 'CANCELLED'] as OnboardingStatus[]) {
      expect(onboardingStepRefusal(status, 'ADMIN_APPROVAL', 'ADMIN_APPROVAL')).toBe(`The onboarding is ${status}.`)
      expect(onboardingStepRefusal(status, 'PROFILE')).toBe(`The onboarding is ${status}.`)
    }
  })
})

describe('stepAfterVerification', () => {
  it('goes on to the background check when the licence verified, and stays at the verification when not', () => {
    expect(stepAfterVerification(true)).toBe('BACKGROUND_CHECK')
    expect(stepAfterVerification(false)).toBe('LICENCE_VERIFICATION')
  })
})
