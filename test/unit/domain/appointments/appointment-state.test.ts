import { describe, expect, it } from 'vitest'
import { AppError } from '../../../../domain/errors.ts'
import {
  APPOINTMENT_ACTIONS,
  assertTransition,
  isLateCancellation,
  transition,
  type AppointmentAction,
} from '../../../../domain/appointments/appointment-state.ts'
import { APPOINTMENT_STATUSES, type AppointmentStatus } from '../../../../common/appointments/appointment-status.ts'

const startsAt = new Date('2026-12-01T15:00:00Z')
const before = new Date('2026-12-01T14:00:00Z')
const after = new Date('2026-12-01T15:30:00Z')

describe('appointment state machine', () => {
  const expected: Record<AppointmentAction, AppointmentStatus> = {
    reschedule: 'CONFIRMED',
    cancel: 'CANCELLED',
    complete: 'COMPLETED',
    no_show: 'NO_SHOW',
    edit: 'CONFIRMED',
  }

  it.each(APPOINTMENT_ACTIONS)('allows %s from CONFIRMED once the appointment has started', (action) => {
    expect(transition({ status: 'CONFIRMED', action, startsAt, now: after })).toEqual({
      ok: true,
      next: expected[action],
    })
  })

  it.each(['reschedule', 'cancel', 'edit'] as const)('allows %s from CONFIRMED before the start', (action) => {
    expect(transition({ status: 'CONFIRMED', action, startsAt, now: before })).toEqual({
      ok: true,
      next: expected[action],
    })
  })

  it.each(['complete', 'no_show'] as const)('refuses %s before the appointment has started', (action) => {
    const result = transition({ status: 'CONFIRMED', action, startsAt, now: before })
    expect(result.ok).toBe(false)
    expect(!result.ok && result.reason).toContain('has not started')
    // At the start instant itself it is allowed.
    expect(transition({ status: 'CONFIRMED', action, startsAt, now: startsAt }).ok).toBe(true)
  })

  const finals = APPOINTMENT_STATUSES.filter((s) => s !== 'CONFIRMED')
  const illegal = finals.flatMap((status) => APPOINTMENT_ACTIONS.map((action) => [status, action] as const))
  it.each(illegal)('refuses every action from the final state %s (%s)', (status, action) => {
    const result = transition({ status, action, startsAt, now: after })
    expect(result.ok).toBe(false)
    expect(!result.ok && result.reason).toContain(status)
  })

  it('throws a 409 invalid_state_transition naming the state and the action', () => {
    let caught: unknown
    try {
      assertTransition({ status: 'CANCELLED', action: 'complete', startsAt, now: after })
    } catch (error) {
      caught = error
    }
    expect(caught).toBeInstanceOf(AppError)
    expect(caught).toMatchObject({ status: 409, code: 'invalid_state_transition' })
    expect((caught as Error).message).toMatch(/CANCELLED.*completed/)
  })
})

describe('late cancellation', () => {
  it('is late inside the window, on time outside it and exactly on its boundary', () => {
    expect(isLateCancellation(startsAt, new Date('2026-11-30T15:00:01Z'), 24)).toBe(true)
    expect(isLateCancellation(startsAt, new Date('2026-11-30T15:00:00Z'), 24)).toBe(false)
    expect(isLateCancellation(startsAt, new Date('2026-11-30T14:59:59Z'), 24)).toBe(false)
    expect(isLateCancellation(startsAt, after, 24)).toBe(true)
    expect(isLateCancellation(startsAt, before, 0)).toBe(false)
  })
})
