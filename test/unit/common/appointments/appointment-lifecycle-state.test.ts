/**
 * The booking lifecycle's moves (common/appointments/appointment-lifecycle-state.ts), without Temporal: what an accepted update,
 * the first read, a re-read, a reminder, the no-show and an operator's signal do to the one state the workflow holds,
 * and what the workflow then answers and waits for. The timing rules they use are in reminder-schedule.test.ts and
 * appointment-lifecycle.test.ts.
 */
import { describe, expect, it } from 'vitest'
import type {
  AppointmentPlanWithTiming,
  RescheduleRequest,
} from '../../../../common/appointments/appointment-workflow-contract.ts'
import {
  accept,
  changeSignalled,
  changeTaken,
  details,
  firstRead,
  holdRequest,
  interrupted,
  isOpen,
  type Lifecycle,
  nextSteps,
  NOT_LOADED,
  noShowDecided,
  noShowMarked,
  operatorAsks,
  operatorStepDone,
  operatorStepRefused,
  partiesMoved,
  refusal,
  reminderSent,
  reminderStale,
  reread,
  reschedule,
  VERIFY_AFTER_UPDATE_MS,
  verifying,
  view,
} from '../../../../common/appointments/appointment-lifecycle-state.ts'

const MINUTE = 60_000
const HOUR = 60 * MINUTE
const startsAt = '2026-12-03T15:00:00.000Z'
const start = Date.parse(startsAt)
/** Three days before the start: both reminders (two days and two hours before) are still ahead. */
const now = start - 72 * HOUR

const plan: AppointmentPlanWithTiming = {
  status: 'CONFIRMED',
  startsAt,
  endsAt: '2026-12-03T16:00:00.000Z',
  childId: 'chd_1',
  providerId: 'prv_1',
  locationId: 'loc_1',
  reminderOffsetsMinutes: [2880, 120],
  checkedIn: false,
  minuteMs: MINUTE,
  noShowGraceMs: 30 * MINUTE,
}

/** A reschedule a day later, to another provider. */
const later: RescheduleRequest = {
  startsAt: '2026-12-04T15:00:00.000Z',
  endsAt: '2026-12-04T16:00:00.000Z',
  providerId: 'prv_2',
  locationId: 'loc_1',
  reminderOffsetsMinutes: [2880, 120],
}

const loaded = firstRead(NOT_LOADED, plan)

describe('the first read', () => {
  it('takes the appointment as it is when no update came before it', () => {
    expect(loaded).toMatchObject({ plan, loaded: true, state: 'CONFIRMED', awaitingCommit: false, verifyAt: null })
    expect(isOpen(loaded)).toBe(true)
    expect(firstRead(NOT_LOADED, { ...plan, status: 'CANCELLED' })).toMatchObject({ state: 'CANCELLED' })
  })

  it('keeps a step accepted before it until its commit is seen, with its verification', () => {
    const cancelled = accept(NOT_LOADED, 'CANCELLED', now)
    const read = firstRead(cancelled, plan)
    expect(read).toMatchObject({ state: 'CANCELLED', awaitingCommit: true, verifyAt: now + VERIFY_AFTER_UPDATE_MS })
    expect(isOpen(read)).toBe(true)
    // A final status in the database wins: the appointment closed some other way.
    expect(firstRead(cancelled, { ...plan, status: 'COMPLETED' })).toMatchObject({
      state: 'COMPLETED',
      awaitingCommit: false,
      verifyAt: now + VERIFY_AFTER_UPDATE_MS,
    })
  })

  it('lays a held reschedule over the row, which cannot have it yet', () => {
    const held = holdRequest(reschedule(NOT_LOADED, later, now), later)
    const read = firstRead(held, plan)
    expect(read.plan).toMatchObject({ ...later, minuteMs: MINUTE, noShowGraceMs: 30 * MINUTE, childId: 'chd_1' })
    expect(read).toMatchObject({ heldRequest: null, state: 'CONFIRMED', verifyAt: now + VERIFY_AFTER_UPDATE_MS })
    // Without the hold (runs from before the patch), the row's times stand until the after-commit re-read.
    expect(firstRead(reschedule(NOT_LOADED, later, now), plan).plan).toEqual(plan)
  })
})

describe('the view', () => {
  it('has no times before the first read', () => {
    expect(view(reschedule(NOT_LOADED, later, now), now)).toEqual({
      state: 'CONFIRMED',
      nextReminderAt: null,
      remindersSent: 0,
      noShowAt: null,
      checkedIn: false,
    })
  })

  it('answers a reschedule held over the first read with the new time’s reminder and deadline', () => {
    const read = firstRead(holdRequest(reschedule(NOT_LOADED, later, now), later), plan)
    expect(view(read, now)).toEqual({
      state: 'CONFIRMED',
      nextReminderAt: '2026-12-02T15:00:00.000Z',
      remindersSent: 0,
      noShowAt: '2026-12-04T16:30:00.000Z',
      checkedIn: false,
    })
  })

  it('shows the next reminder not yet sent, and none once final', () => {
    expect(view(loaded, now).nextReminderAt).toBe('2026-12-01T15:00:00.000Z')
    const first = reminderSent(loaded, nextSteps(loaded, now).reminder!.key)
    expect(view(first, now)).toMatchObject({ nextReminderAt: '2026-12-03T13:00:00.000Z', remindersSent: 1 })
    expect(view(accept(first, 'CANCELLED', now), now)).toMatchObject({
      state: 'CANCELLED',
      nextReminderAt: null,
      noShowAt: null,
      remindersSent: 1,
    })
  })
})

describe('updates', () => {
  it('refuse a step unless the appointment is confirmed', () => {
    expect(refusal(loaded, 'cancelled')).toBeNull()
    expect(refusal(accept(loaded, 'COMPLETED', now), 'cancelled')).toBe(
      'The appointment is COMPLETED; it cannot be cancelled (COMPLETED is final).'
    )
    // A no-show being decided refuses a complete.
    expect(refusal(noShowDecided(loaded), 'completed')).toMatch(/is NO_SHOW/)
  })

  it('move at once, bump the epoch and plan the verification re-read', () => {
    const cancelled = accept(loaded, 'CANCELLED', now)
    expect(cancelled).toMatchObject({ state: 'CANCELLED', awaitingCommit: true, epoch: 1 })
    expect(cancelled.verifyAt).toBe(now + VERIFY_AFTER_UPDATE_MS)
    expect(isOpen(cancelled)).toBe(true)
    expect(interrupted(cancelled, 0)).toBe(true)
    expect(interrupted(cancelled, 1)).toBe(false)
  })

  it('reschedule: the new plan at once, and the parties that moved', () => {
    const moved = reschedule(loaded, later, now)
    expect(moved.plan).toMatchObject(later)
    expect(moved).toMatchObject({ state: 'CONFIRMED', awaitingCommit: true, epoch: 1 })
    expect(partiesMoved(loaded.plan, moved.plan)).toEqual({ provider: true, location: false })
    expect(nextSteps(moved, now).reminder?.at).toBe(Date.parse(later.startsAt) - 2880 * MINUTE)
  })
})

describe('re-reads', () => {
  it('are ignored when an update was accepted while they read', () => {
    const accepted = accept(loaded, 'CANCELLED', now)
    expect(reread(accepted, 0, { ...plan, status: 'CONFIRMED' }, false)).toBe(accepted)
  })

  it('keep a step awaiting its commit through another change, and undo it at the verification', () => {
    const cancelled = accept(loaded, 'CANCELLED', now)
    const other = reread(cancelled, 1, plan, false)
    expect(other).toMatchObject({ state: 'CANCELLED', awaitingCommit: true })
    const verified = reread(verifying(cancelled), 1, plan, true)
    expect(verified).toMatchObject({ state: 'CONFIRMED', awaitingCommit: false, verifyAt: null })
  })

  it('follow a final status or a committed reschedule', () => {
    const cancelled = accept(loaded, 'CANCELLED', now)
    expect(reread(cancelled, 1, { ...plan, status: 'CANCELLED' }, false)).toMatchObject({
      state: 'CANCELLED',
      awaitingCommit: false,
      verifyAt: null,
    })
    const committed = reread(reschedule(loaded, later, now), 1, { ...plan, ...later }, false)
    expect(committed).toMatchObject({ plan: { ...plan, ...later }, awaitingCommit: false, verifyAt: null })
    expect(isOpen(committed)).toBe(true)
  })

  it('are asked for by the after-commit signal, which the loop then takes', () => {
    const signalled = changeSignalled(loaded)
    expect(interrupted(signalled, 0)).toBe(true)
    expect(changeTaken(signalled).changed).toBe(false)
  })
})

describe('the loop', () => {
  it('waits for the next reminder, the no-show deadline and the verification', () => {
    const steps = nextSteps(accept(loaded, 'CONFIRMED', now), now)
    expect(steps.reminder).toMatchObject({ offsetMinutes: 2880, at: start - 2880 * MINUTE })
    expect(steps.timers).toEqual({
      reminderAt: start - 2880 * MINUTE,
      noShowAt: Date.parse(plan.endsAt) + 30 * MINUTE,
      verifyAt: now + VERIFY_AFTER_UPDATE_MS,
    })
    expect(details(loaded, nextSteps(loaded, now))).toBe(
      'State: CONFIRMED · reminders sent: 0 · next reminder: 2026-12-01T15:00:00.000Z · no-show at: 2026-12-03T16:30:00.000Z'
    )
  })

  it('has nothing to send or mark once the appointment is final or checked in', () => {
    expect(nextSteps(accept(loaded, 'CANCELLED', now), now)).toMatchObject({
      reminder: undefined,
      timers: { reminderAt: null, noShowAt: null },
    })
    expect(nextSteps({ ...loaded, plan: { ...plan, checkedIn: true } }, now).timers.noShowAt).toBeNull()
  })

  it('counts a reminder while it is recorded, and not when it was stale', () => {
    const key = nextSteps(loaded, now).reminder!.key
    const sending = reminderSent(loaded, key)
    expect(sending.sent).toEqual([key])
    expect(nextSteps(sending, now).reminder?.offsetMinutes).toBe(120)
    expect(reminderStale(sending, key).sent).toEqual([])
  })

  it('follows what the no-show activity found: marked, or kept by a check-in or a reschedule', () => {
    const deciding = noShowDecided(loaded)
    expect(deciding.state).toBe('NO_SHOW')
    expect(isOpen(noShowMarked(deciding, { status: 'NO_SHOW', checkedIn: false }))).toBe(false)
    const kept = noShowMarked(deciding, { status: 'CONFIRMED', checkedIn: true })
    expect(kept).toMatchObject({ state: 'CONFIRMED', plan: { checkedIn: true } })
    expect(nextSteps(kept, now).timers.noShowAt).toBeNull()
  })

  it("takes an operator's final state only while confirmed, and lets it go when refused", () => {
    const asked = operatorAsks('COMPLETED')(loaded)
    expect(asked.operatorFinal).toBe('COMPLETED')
    expect(interrupted(asked, 0)).toBe(true)
    expect(operatorAsks('CANCELLED')(accept(loaded, 'NO_SHOW', now)).operatorFinal).toBeNull()
    expect(operatorStepRefused(asked)).toMatchObject({ operatorFinal: null, state: 'CONFIRMED' })
    const done = operatorStepDone(asked, 'COMPLETED')
    expect(done).toMatchObject({ state: 'COMPLETED', awaitingCommit: false })
    expect(isOpen(done)).toBe(false)
  })

  it('never changes the state it was given (one value, replaced whole)', () => {
    const before: Lifecycle = structuredClone(loaded)
    accept(loaded, 'CANCELLED', now)
    reschedule(loaded, later, now)
    reminderSent(loaded, 'k')
    reread(loaded, 0, { ...plan, status: 'CANCELLED' }, true)
    expect(loaded).toEqual(before)
  })
})
