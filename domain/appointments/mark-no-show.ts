/**
 * @module Marking an appointment a no-show: the child did not come. Two callers decide it: a user through the API
 * (`markNoShow`, which asks the appointment workflow first, as every transition does) and the appointment workflow at its
 * deadline (appointment-lifecycle-store.ts `markNoShowIfAbsent`, which first checks nobody checked in). Both write it
 * through `recordNoShow`, so the status, its timestamp and the event are the same whoever decided.
 */
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import { recordEvent } from '../events/record-event.ts'
import { APPOINTMENT_INCLUDE, lockAppointment, type AppointmentRow } from './appointment-row.ts'
import { assertTransition } from './appointment-state.ts'
import { askWorkflowThenRelock, type TransitionDeps, type TransitionedAppointment } from './appointment-transitions.ts'

/**
 * Writes the no-show of a locked appointment the state machine allowed it for: `NO_SHOW` at `now`, with the platform
 * event `appointment.no_show` (the spec's catalogue has none; docs/webhooks.md).
 * @param markedBy - who decided: `API` (a user) or `WORKFLOW` (the appointment workflow's deadline)
 * @returns the appointment as written
 */
export async function recordNoShow(
  uow: UnitOfWork,
  appointment: AppointmentRow,
  now: Date,
  markedBy: 'API' | 'WORKFLOW'
): Promise<AppointmentRow> {
  const marked = await uow.tx.appointment.update({
    where: { id: appointment.id },
    data: { status: 'NO_SHOW', noShowAt: now },
    include: APPOINTMENT_INCLUDE,
  })
  await recordEvent(uow, 'appointment.no_show', {
    appointmentId: appointment.id,
    childId: appointment.childId,
    providerId: appointment.providerId,
    noShowAt: now.toISOString(),
    markedBy,
  })
  return marked
}

/**
 * Records, at a user's request, that the child did not come: the appointment workflow accepts the step (when it exists),
 * then {@link recordNoShow}, and the workflow is told after commit.
 * @param deps - the clock, the notifier and (optionally) the appointment workflow's updates
 * @param id - the appointment
 * @returns the appointment marked NO_SHOW, with the workflow's answer when it was asked
 * @throws AppError `invalid_state_transition` unless CONFIRMED and started
 */
export async function markNoShow(
  { clock, notifier, workflow }: TransitionDeps,
  uow: UnitOfWork,
  id: string
): Promise<TransitionedAppointment> {
  let appointment = await lockAppointment(uow, id)
  const now = clock()
  assertTransition({ status: appointment.status, action: 'no_show', startsAt: appointment.startsAt, now })
  let accepted = {}
  if (workflow) {
    const asked = await askWorkflowThenRelock({ clock, notifier }, uow, id, 'no_show', () => workflow.noShow(uow, id))
    ;({ appointment } = asked)
    accepted = { workflow: asked.answer }
  }
  const marked = await recordNoShow(uow, appointment, now, 'API')
  notifier.changed(uow, [id])
  return { ...marked, ...accepted }
}
