/**
 * @module Pure timing rules of the appointment lifecycle and the appointment follow-up: when the reminders before an
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
export const reminderKey = (startsAt: string, offsetMinutes: number) =>
  `${new Date(startsAt).toISOString()}/${offsetMinutes}`

/**
 * The reminders still to send, earliest first: one per distinct positive offset, due `offset` minutes before the
 * start, skipping those already sent and those whose time has already passed (a booking made an hour ahead gets no
 * 48-hour reminder; nobody is reminded of something that is about to happen or over).
 */
export function pendingReminders({
  startsAt,
  offsetsMinutes,
  minuteMs,
  now,
  sent,
}: ReminderScheduleInput): ReminderSlot[] {
  const start = Date.parse(startsAt)
  const done = new Set(sent)
  const offsets = [...new Set(offsetsMinutes.filter((m) => Number.isFinite(m) && m > 0))]
  return offsets
    .map((offsetMinutes) => ({
      offsetMinutes,
      at: start - offsetMinutes * minuteMs,
      key: reminderKey(startsAt, offsetMinutes),
    }))
    .filter((slot) => slot.at > now && !done.has(slot.key))
    .sort((a, b) => a.at - b.at)
}

/**
 * When the next reminder is due (epoch ms), or null when none is left: the earliest of {@link pendingReminders}. The
 * one rule for `nextReminderAt`, used by the appointment workflow's view and by the API's answers about the appointment
 * (appointment-row.ts `nextReminderOf`), so the two cannot disagree.
 */
export const nextReminderAt = (input: ReminderScheduleInput): number | null => pendingReminders(input)[0]?.at ?? null

/** How long before its first reminder a deferred appointment workflow starts (real time: the worker's slack). */
export const WORKFLOW_START_LEAD_MS = 10 * 60_000

/**
 * When a booking's workflow should start running, or null for at once. Until its first reminder is due the workflow
 * has nothing to do but wait, so its start is recorded at booking (durable, visible in the Temporal UI) with a start
 * delay that ends {@link WORKFLOW_START_LEAD_MS} before that reminder (or before the start when no reminder is left).
 * A booking whose first step is nearer than twice the lead starts at once: the delay would save nothing worth its
 * risk. Updates (reschedule, cancel, complete, no-show) start a delayed workflow at once (Temporal runs its first
 * task for them), so nothing the API asks of the workflow waits for the delay (docs/workflows.md).
 */
export function appointmentWorkflowStartAt(input: Omit<ReminderScheduleInput, 'sent'>): number | null {
  const firstStep = nextReminderAt({ ...input, sent: [] }) ?? Date.parse(input.startsAt)
  const at = firstStep - WORKFLOW_START_LEAD_MS
  return at - input.now >= WORKFLOW_START_LEAD_MS ? at : null
}

/** Policy days after the last nudge the follow-up still waits for a signature before it ends. */
export const WAIT_AFTER_LAST_NUDGE_DAYS = 7

/**
 * When the appointment follow-up stops waiting for an unsigned note: {@link WAIT_AFTER_LAST_NUDGE_DAYS} policy days
 * after the last nudge (the nudges stay open for the provider; nothing more is sent).
 * @param dueAt - when the note was due (completion + `noteDueHours`), epoch ms
 */
export const followUpGiveUpAt = (dueAt: number, minuteMs: number) =>
  dueAt + (MAX_NOTE_NUDGES - 1 + WAIT_AFTER_LAST_NUDGE_DAYS) * 1440 * minuteMs

/** When an appointment that nobody checked in for becomes a no-show: its end plus the grace (epoch ms). */
export const noShowDeadline = (endsAt: string, graceMs: number) => Date.parse(endsAt) + graceMs

/**
 * When the provider is nudged about an unsigned note: the first nudge at the deadline (`noteDueHours` after
 * completion), then one a day, at most {@link MAX_NOTE_NUDGES}.
 * @param nudgesSent - nudges already sent
 * @returns the time of the next nudge (epoch ms), or null when every nudge has gone out
 */
export function nextNudgeAt(
  completedAt: number,
  noteDueHours: number,
  minuteMs: number,
  nudgesSent: number
): number | null {
  if (nudgesSent >= MAX_NOTE_NUDGES) return null
  return completedAt + noteDueHours * 60 * minuteMs + nudgesSent * 1440 * minuteMs
}

/** How long after its end an appointment is re-read when no signal came (the appointment workflow's safety net). */
export const RECONCILE_AFTER_END_MS = 3_600_000
/** How often an appointment is re-read after that, while it is not final. */
export const RECONCILE_EVERY_MS = 24 * 3_600_000

/**
 * When the appointment workflow next re-reads the appointment unprompted: an hour after its end while that is more than a
 * minute away (one timer for a booking months ahead), else a day from now.
 * @param endsAt - the appointment's end, ISO 8601
 * @param now - workflow time, epoch ms
 */
export function nextReconcileAt(endsAt: string, now: number): number {
  const reconcileAt = Date.parse(endsAt) + RECONCILE_AFTER_END_MS
  return reconcileAt > now + 60_000 ? reconcileAt : now + RECONCILE_EVERY_MS
}

/** The appointment lifecycle's timers, epoch ms; null when there is none. */
export interface AppointmentTimers {
  /** The next reminder to the family. */
  reminderAt: number | null
  /** The no-show deadline (while confirmed and nobody checked in). */
  noShowAt: number | null
  /** The re-read of an accepted step whose after-commit signal has not come. */
  verifyAt: number | null
}

/** When the appointment lifecycle wakes up by itself: its earliest timer, or the unprompted re-read. */
export function appointmentWakeAt(timers: AppointmentTimers, endsAt: string, now: number): number {
  return Math.min(
    timers.reminderAt ?? Infinity,
    timers.noShowAt ?? Infinity,
    timers.verifyAt ?? Infinity,
    nextReconcileAt(endsAt, now)
  )
}

/** What an appointment lifecycle woken by a timer does: verify an accepted step first, then remind, then the no-show. */
export type AppointmentTimerStep = 'VERIFY' | 'REMIND' | 'NO_SHOW' | 'REREAD'

/**
 * The step due at `now` once a timer fired. A reminder or no-show is only for a CONFIRMED appointment (a step
 * accepted meanwhile stops both); anything else (the unprompted re-read) re-reads the appointment.
 */
export function dueAppointmentStep(timers: AppointmentTimers, confirmed: boolean, now: number): AppointmentTimerStep {
  if (timers.verifyAt !== null && now >= timers.verifyAt) return 'VERIFY'
  if (timers.reminderAt !== null && now >= timers.reminderAt && confirmed) return 'REMIND'
  if (timers.noShowAt !== null && now >= timers.noShowAt && confirmed) return 'NO_SHOW'
  return 'REREAD'
}
