/**
 * The booking workflow's own decisions, as pure functions: when it wakes up by itself, which step a fired timer
 * means, and when a fresh read of the appointment overrides the state the workflow holds. (The reminder slots, the
 * no-show deadline and the note nudges are in test/unit/common/appointments/reminder-schedule.test.ts.)
 */
import { describe, expect, it } from 'vitest'
import {
  RECONCILE_EVERY_MS,
  appointmentWakeAt,
  dueAppointmentStep,
  nextReconcileAt,
  type AppointmentTimers,
} from '../../../common/appointments/reminder-schedule.ts'
import { followsDatabase } from '../../../common/appointments/appointment-lifecycle-state.ts'

const HOUR = 3_600_000
const endsAt = '2026-12-03T16:00:00.000Z'
const end = Date.parse(endsAt)
const none: AppointmentTimers = { reminderAt: null, noShowAt: null, verifyAt: null }

describe('nextReconcileAt', () => {
  it('re-reads an hour after the end while that is more than a minute away, then daily', () => {
    expect(nextReconcileAt(endsAt, end - 30 * 86_400_000)).toBe(end + HOUR)
    expect(nextReconcileAt(endsAt, end + HOUR - 60_001)).toBe(end + HOUR)
    // Within the last minute, and after it, the daily re-read takes over (no timer of a few ms in a loop).
    expect(nextReconcileAt(endsAt, end + HOUR - 60_000)).toBe(end + HOUR - 60_000 + RECONCILE_EVERY_MS)
    expect(nextReconcileAt(endsAt, end + 5 * HOUR)).toBe(end + 5 * HOUR + RECONCILE_EVERY_MS)
  })
})

describe('bookingWakeAt', () => {
  const now = end - 3 * 86_400_000

  it('wakes for the earliest of the reminder, the no-show deadline and the verification', () => {
    expect(
      appointmentWakeAt({ reminderAt: end - 2 * 86_400_000, noShowAt: end + 1_800_000, verifyAt: null }, endsAt, now)
    ).toBe(end - 2 * 86_400_000)
    expect(
      appointmentWakeAt(
        { reminderAt: end - 2 * 86_400_000, noShowAt: end + 1_800_000, verifyAt: now + 60_000 },
        endsAt,
        now
      )
    ).toBe(now + 60_000)
    expect(appointmentWakeAt({ reminderAt: null, noShowAt: end + 1_800_000, verifyAt: null }, endsAt, now)).toBe(
      end + 1_800_000
    )
  })

  it('falls back to the unprompted re-read when no timer is set (a final state awaiting its commit, a checked-in visit)', () => {
    expect(appointmentWakeAt(none, endsAt, now)).toBe(end + HOUR)
    expect(appointmentWakeAt(none, endsAt, end + 2 * HOUR)).toBe(end + 2 * HOUR + RECONCILE_EVERY_MS)
  })
})

describe('dueBookingStep', () => {
  const reminderAt = end - 2 * HOUR
  const noShowAt = end + 1_800_000

  it('does what fell due: the reminder, then the no-show, else an unprompted re-read', () => {
    expect(dueAppointmentStep({ ...none, reminderAt, noShowAt }, true, reminderAt)).toBe('REMIND')
    expect(dueAppointmentStep({ ...none, reminderAt: null, noShowAt }, true, noShowAt)).toBe('NO_SHOW')
    expect(dueAppointmentStep({ ...none, reminderAt, noShowAt }, true, reminderAt - 1)).toBe('REREAD')
    expect(dueAppointmentStep(none, true, end + HOUR)).toBe('REREAD')
  })

  it('verifies an accepted step before anything else', () => {
    expect(dueAppointmentStep({ reminderAt, noShowAt, verifyAt: reminderAt }, true, noShowAt)).toBe('VERIFY')
  })

  it('sends no reminder and marks no no-show once the workflow has left CONFIRMED (a cancel awaiting its commit)', () => {
    expect(dueAppointmentStep({ ...none, reminderAt, noShowAt }, false, noShowAt)).toBe('REREAD')
  })

  it('takes a reminder before a no-show that fell due at the same wake-up (a worker that was down)', () => {
    expect(dueAppointmentStep({ ...none, reminderAt, noShowAt }, true, noShowAt + 1)).toBe('REMIND')
  })
})

describe('followsDatabase', () => {
  it('follows a final status, and any read while no accepted step awaits its commit', () => {
    expect(followsDatabase({ force: false, freshStatus: 'CANCELLED', awaitingCommit: true, state: 'COMPLETED' })).toBe(
      true
    )
    expect(followsDatabase({ force: false, freshStatus: 'CONFIRMED', awaitingCommit: false, state: 'CONFIRMED' })).toBe(
      true
    )
  })

  it('keeps an accepted final step while its commit is not seen, when some other change prompted the read', () => {
    expect(followsDatabase({ force: false, freshStatus: 'CONFIRMED', awaitingCommit: true, state: 'CANCELLED' })).toBe(
      false
    )
  })

  it('undoes that step at the verification re-read: its request never committed', () => {
    expect(followsDatabase({ force: true, freshStatus: 'CONFIRMED', awaitingCommit: true, state: 'CANCELLED' })).toBe(
      true
    )
  })

  it('takes the read for an accepted reschedule (the workflow stays CONFIRMED either way)', () => {
    expect(followsDatabase({ force: false, freshStatus: 'CONFIRMED', awaitingCommit: true, state: 'CONFIRMED' })).toBe(
      true
    )
  })
})
