/**
 * @module Completing an appointment: it took place. `COMPLETED`, its session ensured (the one opened at check-in, or a
 * new one), `appointment.completed` with the session's id, and the appointment's follow-up workflow queued.
 */
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import {
  APPOINTMENT_FOLLOW_UP_KIND,
  APPOINTMENT_FOLLOW_UP_WORKFLOW,
  appointmentFollowUpWorkflowId,
  type AppointmentFollowUpInput,
} from '../../common/appointments/appointment-follow-up-contract.ts'
import { recordEvent } from '../events/record-event.ts'
import { ensureSessionForAppointment } from '../sessions/ensure-session.ts'
import type { WorkflowOutbox } from '../workflow-runs/workflow-outbox.ts'
import { APPOINTMENT_INCLUDE, lockAppointment, type AppointmentRow } from './appointment-row.ts'
import { assertTransition } from './appointment-state.ts'
import { askWorkflowThenRelock, type TransitionDeps, type TransitionedAppointment } from './appointment-transitions.ts'

/**
 * Records that the appointment took place: `COMPLETED`, its session ensured, `appointment.completed` recorded, the
 * follow-up queued (when `deps.outbox` is given), the appointment workflow told after commit.
 * @param deps - the clock, the notifier, (optionally) the appointment workflow's updates and the outbox
 * @param id - the appointment
 * @returns the completed appointment, with the workflow's answer when it was asked
 * @throws AppError `not_found`, `invalid_state_transition` unless CONFIRMED and started
 */
export async function completeAppointment(
  { clock, notifier, workflow, outbox }: TransitionDeps,
  uow: UnitOfWork,
  id: string
): Promise<TransitionedAppointment> {
  let appointment = await lockAppointment(uow, id)
  const now = clock()
  assertTransition({ status: appointment.status, action: 'complete', startsAt: appointment.startsAt, now })
  let accepted = {}
  if (workflow) {
    const asked = await askWorkflowThenRelock({ clock, notifier }, uow, id, 'complete', () =>
      workflow.complete(uow, id)
    )
    ;({ appointment } = asked)
    accepted = { workflow: asked.answer }
  }
  const completed = await uow.tx.appointment.update({
    where: { id },
    data: { status: 'COMPLETED', completedAt: now },
    include: APPOINTMENT_INCLUDE,
  })
  // The session the appointment became: opened at check-in already, or created now (sessions own that rule).
  const { id: sessionId } = await ensureSessionForAppointment(uow, { appointmentId: id })
  await recordEvent(uow, 'appointment.completed', {
    appointmentId: id,
    childId: appointment.childId,
    providerId: appointment.providerId,
    sessionId,
    completedAt: now.toISOString(),
  })
  if (outbox) await enqueueFollowUp(outbox, uow, appointment, sessionId)
  notifier.changed(uow, [id])
  return { ...completed, ...accepted }
}

/** Queues the appointment's follow-up workflow (note deadline, provider nudges, the family's follow-up). */
async function enqueueFollowUp(
  outbox: WorkflowOutbox,
  uow: UnitOfWork,
  appointment: AppointmentRow,
  sessionId: string
) {
  const input: AppointmentFollowUpInput = { tenantId: uow.tenantId, appointmentId: appointment.id }
  await outbox.enqueue(uow, {
    workflowType: APPOINTMENT_FOLLOW_UP_WORKFLOW,
    workflowId: appointmentFollowUpWorkflowId(appointment.id),
    args: [input],
    searchAttributes: {
      TenantId: uow.tenantId,
      WorkflowKind: APPOINTMENT_FOLLOW_UP_KIND,
      AppointmentId: appointment.id,
      ProviderId: appointment.providerId,
      ChildId: appointment.childId,
    },
    summary: `Appointment follow-up: appointment ${appointment.id}`,
    details: [
      `Follow-up of appointment \`${appointment.id}\` (session \`${sessionId}\`, tenant \`${uow.tenantId}\`): waits until the`,
      "session's note is due (the location's noteDueHours), nudges the provider daily while it is unsigned, and",
      "records the family's follow-up once it is signed.",
      '',
      `State: \`GET /v1/appointments/${appointment.id}/workflow\``,
    ].join('\n'),
  })
}
