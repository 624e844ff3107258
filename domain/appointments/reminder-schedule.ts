/**
 * @module Pure timing rules of the booking lifecycle and the appointment follow-up: when the reminders before an
 * appointment are due, when an appointment without check-in becomes a no-show, when a session's note is due and when
 * its provider is nudged. No I/O and no clock of their own (the workflows pass workflow time), so they run inside
 * workflow code deterministically and are unit-tested directly.
 *
 * Durations are in "plan" units scaled by `minuteMs`: a real minute in production; tests shorten the day
 * (CARE_WORKFLOW_DAY_MS) so that a 48-hour reminder offset or a 48-hour note deadline passes in seconds. The
 * appointment's own start and end are real instants; only the policy durations around them shrink.
 */

/** Real milliseconds of one policy minute (production: 60 000). */
export const minuteMsOf = (dayMs: number) => dayMs / 1440

/** Most nudges the provider gets about one unsigned note: the one at the deadline, then daily. */
export const MAX_NOTE_NUDGES = 3

/** One reminder before an appointment: its offset (minutes before the start) and when it is due (epoch ms). */
export interface ReminderSlot {
  offsetMinutes: number
  at: number
  /** The dedupe key of this reminder: the appointment's start and the offset, so a reschedule reminds again. */
  key: string
}

export interface ReminderScheduleInput {
  /** The appointment's start, ISO 8601. */
  startsAt: string
  /** The location's offsets (minutes before the start); duplicates and non-positive values are ignored. */
  offsetsMinutes: readonly number[]
  minuteMs: number
  /** Workflow time now, epoch ms. */
  now: number
  /** Keys of reminders already sent. */
  sent: ReadonlySet<string> | readonly string[]
}

/** The key of the reminder at `offsetMinutes` before an appointment starting at `startsAt`. */
export const reminderKey = (startsAt: string, offsetMinutes: number) => `${new Date(startsAt).toISOString()}/${offsetMinutes}`

/**
 * The reminders still to send, earliest first: one per distinct positive offset, due `offset` minutes before the
 * start, skipping those already sent and those whose time has already passed (a booking made an hour ahead gets no
 * 48-hour reminder; nobody is reminded of something that is about to happen or over).
 */
export function pendingReminders({ startsAt, offsetsMinutes, minuteMs, now, sent }: ReminderScheduleInput): ReminderSlot[] {
  const start = Date.parse(startsAt)
  const done = new Set(sent)
  const offsets = [...new Set(offsetsMinutes.filter((m) => Number.isFinite(m) && m > 0))]
  return offsets
    .map((offsetMinutes) => ({ offsetMinutes, at: start - offsetMinutes * minuteMs, key: reminderKey(startsAt, offsetMinutes) }))
    .filter((slot) => slot.at > now && !done.has(slot.key))
    .sort((a, b) => a.at - b.at)
}

/** When an appointment that nobody checked in for becomes a no-show: its end plus the grace (epoch ms). */
export const noShowDeadline = (endsAt: string, graceMs: number) => Date.parse(endsAt) + graceMs

/**
 * When the provider is nudged about an unsigned note: the first nudge at the deadline (`noteDueHours` after
 * completion), then one a day, at most {@link MAX_NOTE_NUDGES}.
 * @param nudgesSent - nudges already sent
 * @returns the time of the next nudge (epoch ms), or null when every nudge has gone out
 */
export function nextNudgeAt(completedAt: number, noteDueHours: number, minuteMs: number, nudgesSent: number): number | null {
  if (nudgesSent >= MAX_NOTE_NUDGES) return null
  return completedAt + noteDueHours * 60 * minuteMs + nudgesSent * 1440 * minuteMs
}
