/**
 * @module The appointment lifecycle's state and its moves: one readonly value, {@link Lifecycle}, that the workflow
 * (appointment-lifecycle.ts) holds and replaces with what these functions return, from its update and signal handlers and
 * from its loop. Pure and deterministic: no clock of their own (the workflow passes workflow time), no Temporal, no
 * I/O, so they are unit-tested directly (test/unit/common/appointments/appointment-lifecycle-state.test.ts). Which Temporal commands
 * follow a move (an activity, a timer, a search attribute upsert, a `patched()` marker) stays the workflow's business,
 * so the commands of a run, and thus the replay of recorded histories, do not depend on how the state is written.
 */
import {
  type AppointmentTimers,
  nextReminderAt,
  noShowDeadline,
  pendingReminders,
  type ReminderScheduleInput,
  type ReminderSlot,
} from './reminder-schedule.ts'
import type {
  AppointmentPlanWithTiming,
  AppointmentWorkflowState,
  AppointmentLifecycleView,
  RescheduleRequest,
} from './appointment-workflow-contract.ts'

/** How long after an accepted step the workflow re-reads the appointment if the after-commit signal never came. */
export const VERIFY_AFTER_UPDATE_MS = 60_000

/** A final state, as an operator's old-style signal asks for one. */
export type FinalState = Exclude<AppointmentWorkflowState, 'CONFIRMED'>

/** Everything the appointment lifecycle holds about its appointment. */
export interface Lifecycle {
  /** The appointment as last read, with the reschedules accepted since laid over it. */
  readonly plan: AppointmentPlanWithTiming
  /** Whether the first read is done; before it, `plan` holds placeholders or an accepted request's times. */
  readonly loaded: boolean
  /** The appointment's status as the workflow holds it. */
  readonly state: AppointmentWorkflowState
  /** Keys of the reminders recorded (or found recorded) by this run. */
  readonly sent: readonly string[]
  /** A step accepted by an update and not yet seen in the database. */
  readonly awaitingCommit: boolean
  /** A re-read asked for (the API's after-commit signal). */
  readonly changed: boolean
  /** When to re-read if an accepted step's signal never comes (epoch ms). */
  readonly verifyAt: number | null
  /** Bumped by every accepted update: a re-read that started before it is stale. */
  readonly epoch: number
  /** A final state asked for by an operator's old-style signal; the workflow writes it itself. */
  readonly operatorFinal: FinalState | null
  /**
   * A reschedule accepted before the first read, laid over that read: the API writes it only after the workflow's
   * answer, so the first read cannot see it yet (runs with RESCHEDULE_ANSWER_AFTER_FIRST_READ_PATCH only).
   */
  readonly heldRequest: RescheduleRequest | null
}

/** Until the first read: no times (no reminder, no deadline), and the state the API saw when it booked. */
export const NOT_LOADED: Lifecycle = {
  plan: {
    status: 'CONFIRMED',
    startsAt: '',
    endsAt: '',
    childId: '',
    providerId: '',
    locationId: '',
    reminderOffsetsMinutes: [],
    checkedIn: false,
    minuteMs: 60_000,
    noShowGraceMs: 0,
  },
  loaded: false,
  state: 'CONFIRMED',
  sent: [],
  awaitingCommit: false,
  changed: false,
  verifyAt: null,
  epoch: 0,
  operatorFinal: null,
  heldRequest: null,
}

/** Whether the lifecycle goes on: the appointment is confirmed, or a step accepted for it is not yet committed. */
export const isOpen = (s: Lifecycle) => s.state === 'CONFIRMED' || s.awaitingCommit

/**
 * Why an update's step is refused, or null when it may go on: only a confirmed appointment moves (a step already
 * taken, or a no-show being decided, refuses the next one).
 * @param action - the step as a past participle, for the message ("cancelled", "rescheduled")
 */
export const refusal = (s: Lifecycle, action: string): string | null =>
  s.state === 'CONFIRMED' ? null : `The appointment is ${s.state}; it cannot be ${action} (${s.state} is final).`

/** Accepts an update's step: moves at once, so timers and later updates see it, and plans the re-read of the commit. */
export const accept = (s: Lifecycle, next: AppointmentWorkflowState, now: number): Lifecycle => ({
  ...s,
  state: next,
  awaitingCommit: true,
  epoch: s.epoch + 1,
  verifyAt: now + VERIFY_AFTER_UPDATE_MS,
})

/** A plan with a reschedule's times, parties and reminder offsets. */
const laidOver = (plan: AppointmentPlanWithTiming, request: RescheduleRequest): AppointmentPlanWithTiming => ({
  ...plan,
  ...request,
  reminderOffsetsMinutes: request.reminderOffsetsMinutes,
})

/** Accepts a reschedule: the new times and parties at once, then as {@link accept}. */
export const reschedule = (s: Lifecycle, request: RescheduleRequest, now: number): Lifecycle =>
  accept({ ...s, plan: laidOver(s.plan, request) }, 'CONFIRMED', now)

/** Keeps a reschedule accepted before the first read, to lay it over that read ({@link firstRead}). */
export const holdRequest = (s: Lifecycle, request: RescheduleRequest): Lifecycle => ({ ...s, heldRequest: request })

/** Which of the appointment's parties differ between two plans (the search attributes follow them). */
export const partiesMoved = (before: AppointmentPlanWithTiming, after: AppointmentPlanWithTiming) => ({
  provider: before.providerId !== after.providerId,
  location: before.locationId !== after.locationId,
})

/** The API's after-commit signal: re-read the appointment. */
export const changeSignalled = (s: Lifecycle): Lifecycle => ({ ...s, changed: true })

/** An operator's old-style signal asks for a final state, heard only while the appointment is confirmed. */
export const operatorAsks =
  (final: FinalState) =>
  (s: Lifecycle): Lifecycle =>
    s.state === 'CONFIRMED' ? { ...s, operatorFinal: final } : s

/**
 * The first read of the appointment. An update accepted before it keeps its state until its commit is seen (as in
 * {@link reread}), and a held reschedule's times and parties stand over the row, which cannot have them yet.
 */
export function firstRead(s: Lifecycle, fresh: AppointmentPlanWithTiming): Lifecycle {
  const plan = s.heldRequest ? laidOver(fresh, s.heldRequest) : fresh
  const read = { ...s, plan, loaded: true, heldRequest: null }
  if (s.epoch !== 0 && fresh.status === 'CONFIRMED' && s.state !== 'CONFIRMED') return read
  return { ...read, state: fresh.status, awaitingCommit: false, verifyAt: s.epoch === 0 ? null : s.verifyAt }
}

/**
 * Whether the appointment workflow takes the appointment's status from a fresh read. It does for a final status, when no
 * accepted step waits for its commit, when it holds CONFIRMED (a committed reschedule), and at the verification
 * re-read (`force`: a request that never committed is undone); otherwise a read prompted by some other change must
 * not undo a step the workflow accepted whose commit it has not seen yet.
 */
export function followsDatabase(read: {
  force: boolean
  freshStatus: AppointmentWorkflowState
  awaitingCommit: boolean
  state: AppointmentWorkflowState
}): boolean {
  return read.force || read.freshStatus !== 'CONFIRMED' || !read.awaitingCommit || read.state === 'CONFIRMED'
}

/**
 * A re-read of the appointment, ignored when an update was accepted while it read (the epoch moved since `started`).
 * A step accepted but not yet seen committed stays until the verification re-read (`force`): a signal about another
 * change must not undo it, but a request that never committed is undone then.
 * @param started - the epoch when the read started
 */
export function reread(s: Lifecycle, started: number, fresh: AppointmentPlanWithTiming, force: boolean): Lifecycle {
  if (s.epoch !== started) return s
  const read = { ...s, plan: fresh }
  if (!followsDatabase({ force, freshStatus: fresh.status, awaitingCommit: s.awaitingCommit, state: s.state }))
    return read
  // The database's word: a final status, a committed reschedule, or a step whose request never committed.
  return { ...read, state: fresh.status, awaitingCommit: false, verifyAt: null }
}

/** The after-commit signal taken: its re-read starts. */
export const changeTaken = (s: Lifecycle): Lifecycle => ({ ...s, changed: false })

/** The verification re-read starts: it is not due again. */
export const verifying = (s: Lifecycle): Lifecycle => ({ ...s, verifyAt: null })

/** Whether the lifecycle's wait ends before its timer: a re-read asked for, an update accepted, an operator's step. */
export const interrupted = (s: Lifecycle, seenEpoch: number) =>
  s.changed || s.epoch !== seenEpoch || s.operatorFinal !== null

/** An operator's step written (or found written) with `found`: the lifecycle ends there. */
export const operatorStepDone = (s: Lifecycle, found: AppointmentWorkflowState): Lifecycle => ({
  ...s,
  state: found,
  awaitingCommit: false,
})

/** An operator's step refused by the state machine (completing before the start): nothing changed, it goes on. */
export const operatorStepRefused = (s: Lifecycle): Lifecycle => ({ ...s, operatorFinal: null })

/** The reminder `key` is being recorded: counted at once, so the view and the next wait see it. */
export const reminderSent = (s: Lifecycle, key: string): Lifecycle => ({ ...s, sent: [...s.sent, key] })

/** The reminder `key` was refused as STALE (the appointment moved or closed): it was not sent. */
export const reminderStale = (s: Lifecycle, key: string): Lifecycle => ({ ...s, sent: s.sent.filter((k) => k !== key) })

/** The no-show is decided in this turn: a complete or no-show update arriving while it is written is refused. */
export const noShowDecided = (s: Lifecycle): Lifecycle => ({ ...s, state: 'NO_SHOW' })

/**
 * The no-show written, or refused under the row lock: the database decided (a reschedule accepted just before may
 * have kept the appointment confirmed, a check-in may have prevented it), and the workflow follows it.
 */
export const noShowMarked = (
  s: Lifecycle,
  found: { status: AppointmentWorkflowState; checkedIn: boolean }
): Lifecycle => ({
  ...s,
  state: found.status,
  awaitingCommit: false,
  plan: { ...s.plan, checkedIn: found.checkedIn },
})

const schedule = (s: Lifecycle, now: number): ReminderScheduleInput => ({
  startsAt: s.plan.startsAt,
  offsetsMinutes: s.plan.reminderOffsetsMinutes,
  minuteMs: s.plan.minuteMs,
  now,
  sent: s.sent,
})

/** When the appointment becomes a no-show: while confirmed and nobody checked in; else null. */
const noShowAt = (s: Lifecycle) =>
  s.state === 'CONFIRMED' && !s.plan.checkedIn ? noShowDeadline(s.plan.endsAt, s.plan.noShowGraceMs) : null

/** What the lifecycle waits for: the next reminder to send (none once final) and its timers. */
export interface NextSteps {
  reminder: ReminderSlot | undefined
  timers: AppointmentTimers
}

/** What the lifecycle waits for now. */
export function nextSteps(s: Lifecycle, now: number): NextSteps {
  const reminder = s.state === 'CONFIRMED' ? pendingReminders(schedule(s, now))[0] : undefined
  return { reminder, timers: { reminderAt: reminder?.at ?? null, noShowAt: noShowAt(s), verifyAt: s.verifyAt } }
}

const iso = (ms: number | null | undefined) => (ms === null || ms === undefined ? null : new Date(ms).toISOString())

/** The lifecycle's state for the Temporal UI's current details. */
export const details = (s: Lifecycle, { reminder, timers }: NextSteps) =>
  `State: ${s.state}${s.awaitingCommit ? ' (accepted, awaiting commit)' : ''} · reminders sent: ${s.sent.length} · ` +
  `next reminder: ${iso(reminder?.at) ?? 'none'} · no-show at: ${iso(timers.noShowAt) ?? 'n/a'}`

/** What the workflow tells the API and its users (updates' answers, the `bookingView` query). */
export const view = (s: Lifecycle, now: number): AppointmentLifecycleView =>
  !s.loaded
    ? { state: s.state, nextReminderAt: null, remindersSent: 0, noShowAt: null, checkedIn: false }
    : {
        state: s.state,
        // The API computes the same value for its answers (appointment-row.ts `nextReminderOf`).
        nextReminderAt: iso(s.state === 'CONFIRMED' ? nextReminderAt(schedule(s, now)) : null),
        remindersSent: s.sent.length,
        noShowAt: iso(noShowAt(s)),
        checkedIn: s.plan.checkedIn,
      }
