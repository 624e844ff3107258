/** The onboarding workflow's state and moves (common/provider-onboarding/onboarding-state.ts), without Temporal. */
import { describe, expect, it } from 'vitest'
import {
  accept,
  follow,
  interrupted,
  isOpen,
  nextToRecord,
  readMayPredateAcceptedStep,
  reminderDue,
  startOnboarding,
  takesVerification,
  timersFrom,
  updateRefusal,
  view,
} from '../../../../common/provider-onboarding/onboarding-state.ts'

const timing = { dayMs: 10, reminderEveryDays: 3, stepTimeoutDays: 14 }
const start = startOnboarding(timing, 1000)

describe('the onboarding state', () => {
  it('accepts a step at once: the next step begins now, its operations queued with its timers', () => {
    const { onboarding, answer } = accept(start, { step: 'DOCUMENTS' }, [{ action: 'confirmProfile' }], 1500)
    expect(answer).toEqual({
      status: 'IN_PROGRESS',
      step: 'DOCUMENTS',
      timers: { stepStartedAt: 1500, stepDeadlineAt: 1640, nextReminderAt: 1530 },
    })
    expect(onboarding).toMatchObject({ step: 'DOCUMENTS', stepStartedAt: 1500, remindersSent: 0, accepted: 1 })
    expect(onboarding.toRecord).toEqual([{ op: { action: 'confirmProfile' }, timers: answer.timers }])
    expect(interrupted(onboarding, 'PROFILE')).toBe(true)
    expect(start.toRecord).toEqual([])
  })

  it('stays open until every accepted step is recorded, even once approved', () => {
    const approved = accept(start, { status: 'APPROVED' }, [{ action: 'approve' }], 1200).onboarding
    expect(isOpen(approved)).toBe(true)
    const { onboarding, next } = nextToRecord(approved)
    expect(next?.op).toEqual({ action: 'approve' })
    expect(isOpen(onboarding)).toBe(false)
  })

  it('refuses a step elsewhere, after the end, and a retried verification while one is queued', () => {
    expect(updateRefusal(start, 'DOCUMENTS')).toBe('The onboarding is at step PROFILE, not DOCUMENTS.')
    const queued = accept({ ...start, step: 'LICENCE_VERIFICATION' }, {}, [{ action: 'verifyLicence' }], 1100)
    expect(updateRefusal(queued.onboarding, 'LICENCE_VERIFICATION', true)).toBe(
      'The licence is being verified right now.'
    )
    expect(updateRefusal(queued.onboarding, 'LICENCE_VERIFICATION')).toBeUndefined()
    expect(updateRefusal({ ...start, status: 'TIMED_OUT' }, undefined)).toBe('The onboarding is TIMED_OUT.')
  })

  it('counts reminders per step and in all, and a followed step restarts the count', () => {
    const once = reminderDue(start)
    expect(once.nextReminderAt).toBe(1060)
    const twice = reminderDue(once.onboarding).onboarding
    expect(twice).toMatchObject({ remindersSent: 2, totalReminders: 2 })
    expect(view(twice)).toEqual({
      status: 'IN_PROGRESS',
      step: 'PROFILE',
      stepDeadlineAt: new Date(1140).toISOString(),
      nextReminderAt: new Date(1090).toISOString(),
    })
    const moved = follow(twice, { status: 'IN_PROGRESS', step: 'DOCUMENTS' }, timersFrom(twice, 1100))
    expect(moved).toMatchObject({ step: 'DOCUMENTS', stepStartedAt: 1100, remindersSent: 0, totalReminders: 2 })
  })

  it('keeps an accepted step over a read that began before it, and takes a verification only when it is news', () => {
    const accepted = accept(start, { step: 'DOCUMENTS' }, [{ action: 'verifyLicence' }], 1100).onboarding
    expect(readMayPredateAcceptedStep(accepted, { status: 'IN_PROGRESS', step: 'PROFILE' }, 0)).toBe(true)
    expect(readMayPredateAcceptedStep(accepted, { status: 'APPROVED', step: 'PROFILE' }, 0)).toBe(false)
    expect(readMayPredateAcceptedStep(accepted, { status: 'IN_PROGRESS', step: 'PROFILE' }, 1)).toBe(false)
    const { onboarding, next } = nextToRecord(accepted)
    expect(takesVerification(onboarding, next!)).toBe(true)
    expect(takesVerification({ ...onboarding, status: 'REJECTED' }, next!)).toBe(false)
  })
})
