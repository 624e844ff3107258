/** The appointment follow-up's schedule for a note never signed: nudges, then the end of the wait. */
import { describe, expect, it } from 'vitest'
import {
  MAX_NOTE_NUDGES,
  WAIT_AFTER_LAST_NUDGE_DAYS,
  followUpGiveUpAt,
  minuteMsOf,
  nextNudgeAt,
} from '../../../common/appointments/reminder-schedule.ts'

const MINUTE = 60_000
const DAY = 86_400_000
const completed = Date.parse('2026-12-03T16:00:00.000Z')

describe('followUpGiveUpAt', () => {
  it('ends the wait a week after the last nudge, and never before it', () => {
    const dueAt = nextNudgeAt(completed, 48, MINUTE, 0)!
    const lastNudge = nextNudgeAt(completed, 48, MINUTE, MAX_NOTE_NUDGES - 1)!
    expect(WAIT_AFTER_LAST_NUDGE_DAYS).toBe(7)
    expect(new Date(followUpGiveUpAt(dueAt, MINUTE)).toISOString()).toBe('2026-12-14T16:00:00.000Z')
    expect(followUpGiveUpAt(dueAt, MINUTE) - lastNudge).toBe(7 * DAY)
  })

  it('shrinks with a shortened policy day, as the nudges do', () => {
    const minuteMs = minuteMsOf(1_000)
    const dueAt = nextNudgeAt(completed, 48, minuteMs, 0)!
    expect(dueAt - completed).toBeCloseTo(2_000, 6)
    expect(followUpGiveUpAt(dueAt, minuteMs) - dueAt).toBeCloseTo(9_000, 6)
  })
})
