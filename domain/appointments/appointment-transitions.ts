/**
 * @module What the lifecycle operations on an existing appointment share. They are one function per change, each in
 * its own file and given its dependencies ({@link TransitionDeps}) first: cancel-appointment.ts,
 * complete-appointment.ts, mark-no-show.ts, reschedule-appointment.ts and update-appointment.ts (edits of its
 * descriptive fields). Each locks the appointment's row, asks the state machine (appointment-state.ts) whether the
 * action is legal, asks the appointment workflow to accept the step (a Temporal update whose answer — the next reminder,
 * the no-show deadline — the response carries as `workflow`) holding no transaction (`UnitOfWork.release`: the read
 * commits first), then locks the row again in the unit's next transaction, checks the step against the row as it is
 * now (another request may have changed it during the call: {@link askWorkflowThenRelock}), writes the change with
 * its event, and tells the appointment workflow after commit (`bookingChanged`: it re-reads and confirms, which also
 * undoes an accepted step that was then refused here). Temporal unreachable: 503, nothing written
 * (appointment-workflow-calls.ts). Series cancellations go without the update (the signal only), so cancelling a long
 * series is not one round trip per occurrence.
 */
import type { Clock } from '../../infra/clock.ts'
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import type { AppointmentLifecycleView } from '../../common/appointments/appointment-workflow-contract.ts'
import type { WorkflowOutbox } from '../workflow-runs/workflow-outbox.ts'
import { lockAppointment, type AppointmentRow } from './appointment-row.ts'
import { assertTransition, type AppointmentAction } from './appointment-state.ts'
import type { AppointmentNotifier, AppointmentWorkflowCalls } from './appointment-workflow-calls.ts'

/** What every transition is given, explicitly, as its first argument. */
export interface TransitionDeps {
  clock: Clock
  notifier: AppointmentNotifier
  /** The appointment lifecycle's updates; absent: changes are only signalled (as before the lifecycle). */
  workflow?: AppointmentWorkflowCalls
  /** Starts the appointment follow-up at completion; absent: no follow-up. */
  outbox?: WorkflowOutbox
}

/**
 * An appointment after a lifecycle operation, with the appointment workflow's accepted result: null when the workflow
 * does not exist (yet), absent when it was not asked (edits of descriptive fields, series cancellations).
 */
export type TransitionedAppointment = AppointmentRow & { workflow?: AppointmentLifecycleView | null }

/**
 * Asks the appointment workflow to accept a step, holding no transaction, then locks the appointment again in the unit's
 * next transaction and checks the step against it as it is now. A step the workflow accepted that is refused here
 * is not written; the workflow is told to re-read after commit, and follows the row.
 * @param deps - the clock the step is checked at and the notifier that tells the workflow to re-read
 * @param ask - the workflow call; the query it needs must be made before (a released unit refuses queries)
 * @returns the workflow's answer and the appointment as locked now
 */
export async function askWorkflowThenRelock<A>(
  { clock, notifier }: Pick<TransitionDeps, 'clock' | 'notifier'>,
  uow: UnitOfWork,
  id: string,
  action: AppointmentAction,
  ask: () => Promise<A>
): Promise<{ answer: A; appointment: AppointmentRow }> {
  const answer = await uow.release(ask)
  try {
    const appointment = await lockAppointment(uow, id)
    assertTransition({ status: appointment.status, action, startsAt: appointment.startsAt, now: clock() })
    return { answer, appointment }
  } catch (error) {
    notifier.changed(uow, [id])
    throw error
  }
}
