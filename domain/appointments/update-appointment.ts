/**
 * @module Editing an appointment (PATCH, a JSON merge patch): its descriptive fields, and a reschedule when the patch
 * moves it (reschedule-appointment.ts).
 */
import type { AppointmentType } from '../../generated/prisma/enums.ts'
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import { APPOINTMENT_INCLUDE, lockAppointment } from './appointment-row.ts'
import { assertTransition } from './appointment-state.ts'
import type { TransitionDeps, TransitionedAppointment } from './appointment-transitions.ts'
import { rescheduleLockedAppointment, type RescheduleInput } from './reschedule-appointment.ts'

/** The writable fields of a PATCH (JSON merge patch): `notes: null` removes the notes. */
export interface AppointmentPatch extends RescheduleInput {
  notes?: string | null
  type?: AppointmentType
  service?: string
}

/**
 * Applies a merge patch of the writable fields. `startsAt`, `durationMinutes` and `providerId` make it a
 * reschedule; `type` and `service` can change only while CONFIRMED; `notes` in any state (null removes them).
 * Fields set to their current value change nothing.
 * @param deps - the clock, the notifier and (optionally) the appointment workflow's updates, for the reschedule
 * @returns the appointment as it is afterwards, with the workflow's answer when a reschedule asked it
 * @throws AppError `not_found`, `invalid_state_transition`, `validation_error`, `slot_unavailable`
 */
export async function updateAppointment(
  deps: TransitionDeps,
  uow: UnitOfWork,
  id: string,
  patch: AppointmentPatch
): Promise<TransitionedAppointment> {
  const appointment = await lockAppointment(uow, id)
  const edits: { type?: AppointmentType; service?: string; notes?: string | null } = {}
  if (patch.type !== undefined && patch.type !== appointment.type) edits.type = patch.type
  if (patch.service !== undefined && patch.service !== appointment.service) edits.service = patch.service
  if (edits.type !== undefined || edits.service !== undefined) {
    assertTransition({ status: appointment.status, action: 'edit', startsAt: appointment.startsAt, now: deps.clock() })
  }
  if (patch.notes !== undefined && patch.notes !== appointment.notes) edits.notes = patch.notes

  const { startsAt, durationMinutes, providerId } = patch
  const move: RescheduleInput = { startsAt, durationMinutes, providerId }
  const moved = await rescheduleLockedAppointment(deps, uow, appointment, move, false)
  if (!Object.keys(edits).length) return moved
  const edited = await uow.tx.appointment.update({ where: { id }, data: edits, include: APPOINTMENT_INCLUDE })
  return 'workflow' in moved ? { ...edited, workflow: moved.workflow } : edited
}
