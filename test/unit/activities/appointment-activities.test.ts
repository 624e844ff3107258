/**
 * The booking and appointment follow-up activities: what they answer the workflow (timing, check-in, the status
 * after an operator's step, which goes through the appointment's transitions and state machine), how they refuse a
 * missing appointment, and that a nudge is never recorded for a signed note nor twice. The database is a fake of the
 * appointment row and the care-notification inserts (fake-unit-of-work.ts); the queries themselves, and the
 * transitions' writes, are the integration suite's.
 */
import { ApplicationFailure } from '@temporalio/common'
import { describe, expect, it, vi } from 'vitest'
import { createAppointmentFollowUpActivities } from '../../../activities/appointment-follow-up-activities.ts'
import { createAppointmentActivities } from '../../../activities/appointment-activities.ts'
import type { AppointmentRow } from '../../../domain/appointments/appointment-row.ts'
import { assertTransition } from '../../../domain/appointments/appointment-state.ts'
import type { AppointmentStatus } from '../../../common/appointments/appointment-status.ts'
import {
  OPERATOR_CANCELLATION,
  type OperatorTransitions,
} from '../../../domain/appointments/appointment-lifecycle-store.ts'
import { notFound } from '../../../domain/errors.ts'
import { fakeDb } from './fake-unit-of-work.ts'

vi.mock('../../../infra/unit-of-work.ts', () => import('./fake-unit-of-work.ts'))

const ref = { tenantId: 'ten_1', appointmentId: 'apt_1' }

/** A fake of one appointment row (or none) and of the care-notification table's dedupe key. */
function appointments(row: Record<string, unknown> | null) {
  const notifications = new Map<string, Record<string, unknown>>()
  const tx = {
    appointment: {
      async findFirst({ where }: { where: { id: string; tenantId: string } }) {
        return row && where.id === 'apt_1' && where.tenantId === 'ten_1' ? row : null
      },
      async findFirstOrThrow({ where }: { where: { id: string; tenantId: string } }) {
        if (row && where.id === 'apt_1' && where.tenantId === 'ten_1') return row
        throw new Error('No record was found')
      },
    },
    careNotification: {
      async createMany({ data }: { data: Array<Record<string, unknown>>; skipDuplicates: boolean }) {
        let count = 0
        for (const n of data) {
          if (notifications.has(n.dedupeKey as string)) continue
          notifications.set(n.dedupeKey as string, n)
          count++
        }
        return { count }
      },
    },
  }
  return { db: fakeDb(tx), notifications }
}

/**
 * Stand-ins for the API's transitions over the fake row (their queries are the integration suite's): the real state
 * machine decides, the row changes only when it allows, and the calls are recorded.
 */
function stateMachineTransitions(row: Record<string, unknown> | null, now: Date) {
  const calls: unknown[][] = []
  const step = (action: 'cancel' | 'complete', id: string) => {
    if (!row) throw notFound('appointment', id)
    const next = assertTransition({
      status: row.status as AppointmentStatus,
      action,
      startsAt: row.startsAt as Date,
      now,
    })
    row.status = next
    return row as AppointmentRow
  }
  const transitions: OperatorTransitions = {
    async cancel(_uow, id, input) {
      calls.push(['cancel', id, input])
      return step('cancel', id)
    },
    async complete(_uow, id) {
      calls.push(['complete', id])
      return step('complete', id)
    },
  }
  return { transitions, calls }
}

const booked = (extra: Record<string, unknown> = {}) => ({
  status: 'CONFIRMED',
  startsAt: new Date('2026-12-03T15:00:00Z'),
  endsAt: new Date('2026-12-03T16:00:00Z'),
  completedAt: null,
  childId: 'chd_1',
  providerId: 'prv_1',
  locationId: 'loc_1',
  location: { reminderOffsetsMinutes: [2880, 120], noteDueHours: 48 },
  session: null,
  ...extra,
})

const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error as ApplicationFailure
  )

describe('booking activities', () => {
  it("answers the plan with the worker's policy clock: a shortened day shrinks the minute, the no-show grace defaults to 30 min", async () => {
    const { db } = appointments(booked({ session: { id: 'ses_1' } }))
    const real = await createAppointmentActivities({ db }).loadBookingPlan(ref)
    expect(real).toEqual({
      status: 'CONFIRMED',
      startsAt: '2026-12-03T15:00:00.000Z',
      endsAt: '2026-12-03T16:00:00.000Z',
      childId: 'chd_1',
      providerId: 'prv_1',
      locationId: 'loc_1',
      reminderOffsetsMinutes: [2880, 120],
      checkedIn: true,
      minuteMs: 60_000,
      noShowGraceMs: 1_800_000,
    })
    const short = await createAppointmentActivities({
      db,
      appointmentTiming: { dayMs: 14_400, noShowGraceMs: 500 },
    }).loadBookingPlan(ref)
    expect(short).toMatchObject({ minuteMs: 10, noShowGraceMs: 500 })
  })

  it('refuses a missing appointment as a non-retryable AppointmentNotFound, in both loads', async () => {
    const { db } = appointments(null)
    for (const load of [
      createAppointmentActivities({ db }).loadBookingPlan,
      createAppointmentActivities({ db }).loadBooking,
    ]) {
      const error = await refusal(load(ref))
      expect(error).toBeInstanceOf(ApplicationFailure)
      expect(error).toMatchObject({
        type: 'AppointmentNotFound',
        nonRetryable: true,
        message: 'Appointment apt_1 not found',
      })
    }
  })

  it("makes an operator's step through the appointment's transitions, and answers what the appointment is afterwards", async () => {
    const now = new Date('2026-12-03T15:30:00Z')
    const run = async (row: Record<string, unknown>, status: 'CANCELLED' | 'COMPLETED') => {
      const { db } = appointments(row)
      const { transitions, calls } = stateMachineTransitions(row, now)
      const answer = await createAppointmentActivities({
        db,
        now: () => now,
        operatorTransitions: () => transitions,
      }).recordAppointmentStatus({ ...ref, status })
      return { answer, calls, row }
    }
    // Over CONFIRMED: the transition itself, with the operator's cancellation (the signal carries no reason code).
    const cancelled = await run(booked(), 'CANCELLED')
    expect(cancelled.answer).toBe('CANCELLED')
    expect(cancelled.calls).toEqual([['cancel', 'apt_1', OPERATOR_CANCELLATION]])
    const completed = await run(booked(), 'COMPLETED')
    expect(completed).toMatchObject({ answer: 'COMPLETED', calls: [['complete', 'apt_1']] })

    // The API got there first: the state machine refuses and the answer is the API's final status, unchanged.
    const first = await run(booked({ status: 'COMPLETED' }), 'CANCELLED')
    expect(first.answer).toBe('COMPLETED')
    expect(first.row.status).toBe('COMPLETED')

    // Completing before the start is refused: nothing changes and the answer says CONFIRMED (the workflow goes on).
    const early = await run(booked({ startsAt: new Date('2026-12-04T15:00:00Z') }), 'COMPLETED')
    expect(early.answer).toBe('CONFIRMED')
    expect(early.row.status).toBe('CONFIRMED')
  })

  it("refuses an operator's step on a missing appointment as a non-retryable AppointmentNotFound", async () => {
    const { db } = appointments(null)
    const { transitions } = stateMachineTransitions(null, new Date())
    const error = await refusal(
      createAppointmentActivities({ db, operatorTransitions: () => transitions }).recordAppointmentStatus({
        ...ref,
        status: 'CANCELLED',
      })
    )
    expect(error).toMatchObject({ type: 'AppointmentNotFound', nonRetryable: true })
  })
})

describe('appointment follow-up activities', () => {
  const done = (signed: boolean) =>
    booked({
      status: 'COMPLETED',
      completedAt: new Date('2026-12-03T16:05:00Z'),
      session: { id: 'ses_1', notes: signed ? [{ id: 'not_1' }] : [] },
    })
  const nudge = { ...ref, nudge: 2, dueAt: '2026-12-05T16:05:00.000Z' }

  it('answers SIGNED for a signed note and records no nudge', async () => {
    const { db, notifications } = appointments(done(true))
    expect(await createAppointmentFollowUpActivities({ db }).nudgeProviderIfUnsigned(nudge)).toBe('SIGNED')
    expect(notifications.size).toBe(0)
  })

  it('records a nudge for an unsigned note once, however often the activity runs', async () => {
    const { db, notifications } = appointments(done(false))
    const activities = createAppointmentFollowUpActivities({ db })
    expect(await activities.nudgeProviderIfUnsigned(nudge)).toBe('NUDGED')
    expect(await activities.nudgeProviderIfUnsigned(nudge)).toBe('NUDGED')
    expect([...notifications.keys()]).toEqual(['follow-up-nudge:apt_1:2'])
    expect(notifications.get('follow-up-nudge:apt_1:2')).toMatchObject({
      kind: 'note_overdue',
      providerId: 'prv_1',
      dueDate: new Date('2026-12-05T00:00:00.000Z'),
    })
  })

  it("loads the plan with the policy minute of the worker's day", async () => {
    const { db } = appointments(done(false))
    const plan = await createAppointmentFollowUpActivities({
      db,
      appointmentTiming: { dayMs: 1_440_000 },
    }).loadFollowUp(ref)
    expect(plan).toMatchObject({
      status: 'COMPLETED',
      completedAt: '2026-12-03T16:05:00.000Z',
      noteDueHours: 48,
      noteSigned: false,
      minuteMs: 1_000,
    })
  })

  it('refuses a missing appointment as non-retryable', async () => {
    const { db } = appointments(null)
    expect(await refusal(createAppointmentFollowUpActivities({ db }).nudgeProviderIfUnsigned(nudge))).toMatchObject({
      type: 'AppointmentNotFound',
      nonRetryable: true,
    })
  })
})
