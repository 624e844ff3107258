import { describe, expect, it } from 'vitest'
import {
  WORKFLOW_START_LEAD_MS,
  appointmentWorkflowStartAt,
  MAX_NOTE_NUDGES,
  minuteMsOf,
  nextNudgeAt,
  noShowDeadline,
  pendingReminders,
  reminderKey,
} from '../../../../common/appointments/reminder-schedule.ts'

const MINUTE = 60_000
const start = '2026-12-03T15:00:00.000Z'
const startMs = Date.parse(start)

describe('pendingReminders', () => {
  it('schedules one reminder per offset before the start, earliest first', () => {
    const slots = pendingReminders({
      startsAt: start,
      offsetsMinutes: [120, 2880],
      minuteMs: MINUTE,
      now: startMs - 3 * 86_400_000,
      sent: [],
    })
    expect(slots.map((s) => [s.offsetMinutes, new Date(s.at).toISOString()])).toEqual([
      [2880, '2026-12-01T15:00:00.000Z'],
      [120, '2026-12-03T13:00:00.000Z'],
    ])
  })

  it('skips reminders whose time has passed, and those already sent', () => {
    const now = startMs - 3 * 3_600_000
    expect(
      pendingReminders({ startsAt: start, offsetsMinutes: [2880, 120], minuteMs: MINUTE, now, sent: [] }).map(
        (s) => s.offsetMinutes
      )
    ).toEqual([120])
    expect(
      pendingReminders({
        startsAt: start,
        offsetsMinutes: [2880, 120],
        minuteMs: MINUTE,
        now,
        sent: [reminderKey(start, 120)],
      })
    ).toEqual([])
    // Exactly at the reminder's time it counts as passed: nobody is reminded of the moment itself twice.
    expect(
      pendingReminders({
        startsAt: start,
        offsetsMinutes: [120],
        minuteMs: MINUTE,
        now: startMs - 120 * MINUTE,
        sent: [],
      })
    ).toEqual([])
  })

  it('ignores duplicate and non-positive offsets', () => {
    const slots = pendingReminders({
      startsAt: start,
      offsetsMinutes: [60, 60, 0, -5],
      minuteMs: MINUTE,
      now: 0,
      sent: [],
    })
    expect(slots.map((s) => s.offsetMinutes)).toEqual([60])
  })

  it('keys reminders by start, so a reschedule reminds again', () => {
    const moved = '2026-12-04T15:00:00.000Z'
    const sent = [reminderKey(start, 120)]
    expect(
      pendingReminders({ startsAt: moved, offsetsMinutes: [120], minuteMs: MINUTE, now: startMs, sent }).map(
        (s) => s.key
      )
    ).toEqual([reminderKey(moved, 120)])
  })

  it('scales policy minutes with a shortened day', () => {
    expect(minuteMsOf(86_400_000)).toBe(MINUTE)
    const [slot] = pendingReminders({
      startsAt: start,
      offsetsMinutes: [1440],
      minuteMs: minuteMsOf(14_400),
      now: 0,
      sent: [],
    })
    expect(startMs - slot!.at).toBe(14_400)
  })
})

describe('bookingWorkflowStartAt', () => {
  const timing = { startsAt: start, offsetsMinutes: [120, 2880], minuteMs: MINUTE }

  it('defers the start to the lead before the first reminder still to come', () => {
    const at = appointmentWorkflowStartAt({ ...timing, now: startMs - 3 * 86_400_000 })
    expect(new Date(at!).toISOString()).toBe('2026-12-01T14:50:00.000Z')
    // The 48-hour reminder has passed: the 2-hour one is the first step.
    const later = appointmentWorkflowStartAt({ ...timing, now: startMs - 86_400_000 })
    expect(new Date(later!).toISOString()).toBe('2026-12-03T12:50:00.000Z')
  })

  it('defers to the lead before the start when no reminder is left', () => {
    const at = appointmentWorkflowStartAt({ ...timing, offsetsMinutes: [], now: startMs - 86_400_000 })
    expect(at).toBe(startMs - WORKFLOW_START_LEAD_MS)
  })

  it('starts at once when the first step is less than twice the lead away', () => {
    const firstStep = startMs - 120 * MINUTE
    expect(appointmentWorkflowStartAt({ ...timing, now: firstStep - 2 * WORKFLOW_START_LEAD_MS })).toBe(
      firstStep - WORKFLOW_START_LEAD_MS
    )
    expect(appointmentWorkflowStartAt({ ...timing, now: firstStep - 2 * WORKFLOW_START_LEAD_MS + 1 })).toBeNull()
    // A shortened policy day (tests): reminders seconds away, no delay.
    expect(appointmentWorkflowStartAt({ ...timing, minuteMs: 10, now: startMs - 60_000 })).toBeNull()
  })
})

describe('noShowDeadline and nextNudgeAt', () => {
  it('puts the no-show deadline a grace after the end', () => {
    expect(noShowDeadline('2026-12-03T16:00:00.000Z', 30 * MINUTE)).toBe(Date.parse('2026-12-03T16:30:00.000Z'))
  })

  it('nudges at the note deadline, then daily, a bounded number of times', () => {
    const completed = Date.parse('2026-12-03T16:00:00.000Z')
    expect(new Date(nextNudgeAt(completed, 48, MINUTE, 0)!).toISOString()).toBe('2026-12-05T16:00:00.000Z')
    expect(new Date(nextNudgeAt(completed, 48, MINUTE, 1)!).toISOString()).toBe('2026-12-06T16:00:00.000Z')
    expect(nextNudgeAt(completed, 48, MINUTE, MAX_NOTE_NUDGES)).toBeNull()
  })
})
