/**
 * @module The appointment state machine, as a pure function of (status, action, time): which lifecycle actions are
 * legal in which state, and the state each one leads to. No I/O, so every transition is unit-tested directly; the
 * service asks it before writing anything, and docs/appointments.md draws the same table.
 *
 * ```
 * CONFIRMED --reschedule--> CONFIRMED      (previous times kept in the reschedule history)
 * CONFIRMED --cancel------> CANCELLED      (reason code + note; flagged late inside the location's window)
 * CONFIRMED --complete----> COMPLETED      (only once the appointment has started)
 * CONFIRMED --no_show-----> NO_SHOW        (only once the appointment has started)
 * ```
 * CANCELLED, COMPLETED and NO_SHOW are final. Editing `notes` is allowed in every state; editing `type` or
 * `service` only while CONFIRMED.
 */
import { invalidStateTransition } from '../errors.ts'
import type { AppointmentStatus } from '../../common/appointments/appointment-status.ts'

/** What a caller can do to an appointment. `edit` is a change of `type` or `service` (not of its time). */
export const APPOINTMENT_ACTIONS = ['reschedule', 'cancel', 'complete', 'no_show', 'edit'] as const
export type AppointmentAction = (typeof APPOINTMENT_ACTIONS)[number]

/** The state each action leads to from CONFIRMED, the only state with outgoing transitions. */
const TRANSITIONS: Readonly<Record<AppointmentAction, AppointmentStatus>> = {
  reschedule: 'CONFIRMED',
  cancel: 'CANCELLED',
  complete: 'COMPLETED',
  no_show: 'NO_SHOW',
  edit: 'CONFIRMED',
}

/** Actions that record what happened at the appointment, so they make no sense before it has started. */
const NEEDS_STARTED: ReadonlySet<AppointmentAction> = new Set(['complete', 'no_show'])

/** Whether a status is final (no action leaves it). */
export const isFinal = (status: AppointmentStatus): boolean => status !== 'CONFIRMED'

export interface TransitionCheck {
  status: AppointmentStatus
  action: AppointmentAction
  /** The appointment's start, for actions that need it to have begun. */
  startsAt: Date
  now: Date
}

/** The outcome of asking whether an action is legal: the next status, or why not. */
export type TransitionResult = { ok: true; next: AppointmentStatus } | { ok: false; reason: string }

/**
 * Decides whether `action` is legal for an appointment in `status` at `now`.
 * @returns the status after the action, or a human-readable reason naming the current state and the action
 */
export function transition({ status, action, startsAt, now }: TransitionCheck): TransitionResult {
  if (isFinal(status)) {
    return { ok: false, reason: `The appointment is ${status}; it cannot be ${describe(action)} (${status} is final).` }
  }
  if (NEEDS_STARTED.has(action) && now.getTime() < startsAt.getTime()) {
    return {
      ok: false,
      reason: `The appointment is ${status} and has not started yet (starts ${startsAt.toISOString()}); it cannot be ${describe(action)} before its start.`,
    }
  }
  return { ok: true, next: TRANSITIONS[action] }
}

/**
 * Like {@link transition}, for the service: the next status or a 409.
 * @throws AppError `invalid_state_transition` naming the current state and the attempted action
 */
export function assertTransition(check: TransitionCheck): AppointmentStatus {
  const result = transition(check)
  if (!result.ok) throw invalidStateTransition(result.reason)
  return result.next
}

function describe(action: AppointmentAction): string {
  switch (action) {
    case 'reschedule':
      return 'rescheduled'
    case 'cancel':
      return 'cancelled'
    case 'complete':
      return 'completed'
    case 'no_show':
      return 'marked as a no-show'
    case 'edit':
      return 'edited (type or service)'
  }
}

/**
 * Whether a cancellation at `cancelledAt` is late: less than the location's `lateCancellationHours` before the
 * start (or after it). Exactly on the boundary is on time.
 */
export function isLateCancellation(startsAt: Date, cancelledAt: Date, lateCancellationHours: number): boolean {
  return startsAt.getTime() - cancelledAt.getTime() < lateCancellationHours * 3_600_000
}
