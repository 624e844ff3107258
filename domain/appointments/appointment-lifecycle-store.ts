/**
 * @module The database side of the appointment lifecycle and the appointment follow-up workflows (their activities are
 * thin wrappers over these): reading what a workflow plans with, recording a reminder to the family once, marking a
 * no-show through the same state machine as the API, an operator's final step through the API's own transitions,
 * and the follow-up's nudges and family follow-up. Every write is
 * idempotent (dedupe keys, conditional updates), so a retried activity after a worker crash changes nothing twice.
 * Notifications carry ids and times only.
 */
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import {
  APPOINTMENT_FOLLOW_UP_KIND,
  type FollowUpPlan,
} from '../../common/appointments/appointment-follow-up-contract.ts'
import {
  APPOINTMENT_WORKFLOW_KIND,
  type AppointmentPlan,
} from '../../common/appointments/appointment-workflow-contract.ts'
import { AppError } from '../errors.ts'
import { recordCareNotification, settleNotifications } from '../care-notifications/care-notifications.ts'
import { recordEvent } from '../events/record-event.ts'
import { formatInTimeZone } from '../time.ts'
import { lockAppointment, type AppointmentRow } from './appointment-row.ts'
import { transition } from './appointment-state.ts'
import type { AppointmentStatus } from '../../common/appointments/appointment-status.ts'
import type { CancelInput } from './cancel-appointment.ts'
import { recordNoShow } from './mark-no-show.ts'

/** Reads an appointment's plan; null when it does not exist (for this tenant). */
export async function loadBookingPlan(
  { tx, tenantId }: UnitOfWork,
  appointmentId: string
): Promise<AppointmentPlan | null> {
  const row = await tx.appointment.findFirst({
    where: { id: appointmentId, tenantId },
    select: {
      status: true,
      startsAt: true,
      endsAt: true,
      childId: true,
      providerId: true,
      locationId: true,
      location: { select: { reminderOffsetsMinutes: true } },
      session: { select: { id: true } },
    },
  })
  if (!row) return null
  return {
    status: row.status,
    startsAt: row.startsAt.toISOString(),
    endsAt: row.endsAt.toISOString(),
    childId: row.childId,
    providerId: row.providerId,
    locationId: row.locationId,
    reminderOffsetsMinutes: row.location.reminderOffsetsMinutes,
    checkedIn: row.session !== null,
  }
}

export interface ReminderRequest {
  appointmentId: string
  /** The start the reminder is about (ISO); a reminder for a start the appointment no longer has is stale. */
  startsAt: string
  offsetMinutes: number
  key: string
}

/**
 * Records one reminder to the family as a care notification (kind `appointment_reminder`) and the
 * `appointment.reminder_due` event, once per dedupe key. Nothing is recorded when the appointment is no longer
 * CONFIRMED at that start (cancelled or moved meanwhile): the workflow re-reads it then.
 */
export async function recordBookingReminder(
  uow: UnitOfWork,
  input: ReminderRequest
): Promise<'RECORDED' | 'DUPLICATE' | 'STALE'> {
  const appointment = await uow.tx.appointment.findFirst({
    where: { id: input.appointmentId, tenantId: uow.tenantId },
    select: { status: true, startsAt: true, timeZone: true, childId: true, providerId: true },
  })
  if (
    !appointment ||
    appointment.status !== 'CONFIRMED' ||
    appointment.startsAt.getTime() !== Date.parse(input.startsAt)
  ) {
    return 'STALE'
  }
  const startsAt = formatInTimeZone(appointment.startsAt, appointment.timeZone)
  const outcome = await recordCareNotification(uow, {
    workflowKind: APPOINTMENT_WORKFLOW_KIND,
    kind: 'appointment_reminder',
    childId: appointment.childId,
    providerId: appointment.providerId,
    dueDate: startsAt.slice(0, 10),
    details: { appointmentId: input.appointmentId, startsAt, offsetMinutes: input.offsetMinutes },
    dedupeKey: `booking-reminder:${input.appointmentId}:${input.key}`,
  })
  if (outcome === 'RECORDED') {
    await recordEvent(uow, 'appointment.reminder_due', {
      appointmentId: input.appointmentId,
      childId: appointment.childId,
      providerId: appointment.providerId,
      startsAt,
      offsetMinutes: input.offsetMinutes,
    })
  }
  // The appointment is over or moved: its earlier reminders need no action any more.
  return outcome
}

/** Settles a closed appointment's open reminders (nobody needs to act on them any more). */
export async function settleBookingReminders(uow: UnitOfWork, appointmentId: string, now: Date): Promise<number> {
  const open = await uow.tx.careNotification.findMany({
    where: {
      tenantId: uow.tenantId,
      workflowKind: APPOINTMENT_WORKFLOW_KIND,
      status: 'OPEN',
      dedupeKey: { startsWith: `booking-reminder:${appointmentId}:` },
    },
    select: { id: true },
  })
  return settleNotifications(
    uow,
    { workflowKind: APPOINTMENT_WORKFLOW_KIND },
    'RESOLVED',
    now,
    open.map((n) => n.id)
  )
}

/**
 * The no-show decision at the deadline: under the row lock, an appointment still CONFIRMED and without a session
 * (nobody checked in) becomes NO_SHOW through the state machine, written as the API writes it (mark-no-show.ts
 * `recordNoShow`, marked by WORKFLOW). A checked-in or already final appointment is left as it is, and the answer
 * says so.
 */
export async function markNoShowIfAbsent(
  uow: UnitOfWork,
  appointmentId: string,
  now: Date
): Promise<{ status: AppointmentStatus; checkedIn: boolean }> {
  const appointment = await lockAppointment(uow, appointmentId)
  const session = await uow.tx.session.findFirst({
    where: { appointmentId, tenantId: uow.tenantId },
    select: { id: true },
  })
  const status = appointment.status
  if (status !== 'CONFIRMED' || session) return { status, checkedIn: session !== null }
  const allowed = transition({ status, action: 'no_show', startsAt: appointment.startsAt, now })
  if (!allowed.ok) return { status, checkedIn: false }
  await recordNoShow(uow, appointment, now, 'WORKFLOW')
  return { status: 'NO_SHOW', checkedIn: false }
}

/**
 * The transitions an operator's step takes: the API's own (cancel-appointment.ts, complete-appointment.ts), bound to
 * the activity's dependencies (activities/appointment-activities.ts); tests give their own.
 */
export interface OperatorTransitions {
  cancel(uow: UnitOfWork, appointmentId: string, input: CancelInput): Promise<AppointmentRow>
  complete(uow: UnitOfWork, appointmentId: string): Promise<AppointmentRow>
}

/** What an operator's `cancelBooking` signal records: the signal carries no reason code. */
export const OPERATOR_CANCELLATION: CancelInput = {
  reason: 'OTHER',
  note: 'Cancelled by an operator through the booking workflow (cancelBooking signal).',
}

/**
 * An operator's final step, asked for through the appointment workflow's old `cancelBooking` / `completeBooking` signals
 * (a NO_SHOW is the workflow's own decision, as at its deadline). It goes through the same transitions as the API's
 * request would: the state machine decides, and the change carries its timestamp, its event, and at completion the
 * session and the follow-up workflow. Idempotent: re-run after a crash, it finds the status already final.
 * @returns the status afterwards: the one asked for; the final status the API reached first; or CONFIRMED when the
 * state machine refuses the step (completing an appointment that has not started), which changes nothing
 * @throws AppError `not_found` when the appointment does not exist (for this tenant)
 */
export async function recordOperatorStatus(
  uow: UnitOfWork,
  transitions: OperatorTransitions,
  appointmentId: string,
  status: Exclude<AppointmentStatus, 'CONFIRMED'>,
  now: Date
): Promise<AppointmentStatus> {
  try {
    if (status === 'CANCELLED') return (await transitions.cancel(uow, appointmentId, OPERATOR_CANCELLATION)).status
    if (status === 'COMPLETED') return (await transitions.complete(uow, appointmentId)).status
    return (await markNoShowIfAbsent(uow, appointmentId, now)).status
  } catch (error) {
    if (!(error instanceof AppError) || error.code !== 'invalid_state_transition') throw error
    // Refused before anything was written: the appointment stays as it is, and the answer says how it is.
    const current = await uow.tx.appointment.findFirstOrThrow({
      where: { id: appointmentId, tenantId: uow.tenantId },
      select: { status: true },
    })
    return current.status
  }
}

/** Reads the completed appointment, its session, its location's note deadline and whether a note is signed. */
export async function loadFollowUpPlan(
  { tx, tenantId }: UnitOfWork,
  appointmentId: string
): Promise<FollowUpPlan | null> {
  const row = await tx.appointment.findFirst({
    where: { id: appointmentId, tenantId },
    select: {
      status: true,
      completedAt: true,
      childId: true,
      providerId: true,
      location: { select: { noteDueHours: true } },
      session: { select: { id: true, notes: { where: { status: 'SIGNED' }, select: { id: true }, take: 1 } } },
    },
  })
  if (!row) return null
  return {
    status: row.status,
    completedAt: row.completedAt?.toISOString() ?? null,
    childId: row.childId,
    providerId: row.providerId,
    sessionId: row.session?.id ?? null,
    noteDueHours: row.location.noteDueHours,
    noteSigned: (row.session?.notes.length ?? 0) > 0,
  }
}

/** Nudges the provider about the session's unsigned note (care notification `note_overdue`), once per nudge number. */
export async function recordNoteNudge(
  uow: UnitOfWork,
  input: {
    appointmentId: string
    sessionId: string | null
    childId: string
    providerId: string
    nudge: number
    dueAt: string
    /** When the note was found unsigned (the nudge's createdAt). */
    checkedAt: Date
  }
) {
  return recordCareNotification(uow, {
    createdAt: input.checkedAt,
    workflowKind: APPOINTMENT_FOLLOW_UP_KIND,
    kind: 'note_overdue',
    providerId: input.providerId,
    childId: input.childId,
    dueDate: input.dueAt.slice(0, 10),
    details: {
      appointmentId: input.appointmentId,
      sessionId: input.sessionId,
      nudge: input.nudge,
      noteDueAt: input.dueAt,
    },
    dedupeKey: `follow-up-nudge:${input.appointmentId}:${input.nudge}`,
  })
}

/**
 * The note is signed: the provider's nudges are resolved and the family's follow-up (care notification
 * `family_follow_up`, for the child) is recorded once.
 */
export async function recordFamilyFollowUp(
  uow: UnitOfWork,
  input: { appointmentId: string; sessionId: string | null; childId: string; providerId: string },
  now: Date
) {
  const nudges = await uow.tx.careNotification.findMany({
    where: {
      tenantId: uow.tenantId,
      workflowKind: APPOINTMENT_FOLLOW_UP_KIND,
      status: 'OPEN',
      dedupeKey: { startsWith: `follow-up-nudge:${input.appointmentId}:` },
    },
    select: { id: true },
  })
  await settleNotifications(
    uow,
    { workflowKind: APPOINTMENT_FOLLOW_UP_KIND },
    'RESOLVED',
    now,
    nudges.map((n) => n.id)
  )
  return recordCareNotification(uow, {
    workflowKind: APPOINTMENT_FOLLOW_UP_KIND,
    kind: 'family_follow_up',
    childId: input.childId,
    details: { appointmentId: input.appointmentId, sessionId: input.sessionId },
    dedupeKey: `follow-up-family:${input.appointmentId}`,
  })
}
