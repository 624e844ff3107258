/** Which onboarding steps the workflow accepts when, and where a licence verification leads. */
import { describe, expect, it } from 'vitest'
import {
  ONBOARDING_STEPS,
  onboardingStepRefusal,
  stepAfterVerification,
  type OnboardingStatus,
} from '../../../common/provider-onboarding/onboarding-rules.ts'

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
