/**
 * @module The appointment workflow: the durable state of one appointment. It starts when the appointment is created and
 * stays open until the appointment reaches a final state, so reminders and follow-ups (later work) hang off it and
 * survive worker crashes. Orchestration only: every side effect is an activity.
 *
 * The database is the source of truth. The API changes an appointment (reschedule, cancel, complete, no-show) and
 * then signals `bookingChanged`; the workflow re-reads the appointment and ends when it is final. A lost signal
 * (Temporal unreachable at that moment) only delays this: the workflow also re-reads the appointment an hour after
 * its end and daily after that. The older `cancelBooking` / `completeBooking` signals still work for operators: the
 * workflow then writes the final status itself, unless the appointment already reached another final state.
 *
 * From `booking-lifecycle-v2` on, new runs go through workflows/appointment-lifecycle.ts (reminders, update-driven
 * reschedule/cancel/complete/no-show, the no-show deadline); runs started earlier keep the loop below.
 */
import { condition, log, patched, proxyActivities, setHandler, upsertSearchAttributes } from '@temporalio/workflow'
import { standardActivityOptions } from './activity-options.ts'
import { nextReconcileAt } from '../common/appointments/reminder-schedule.ts'
import { appointmentLifecycle } from './appointment-lifecycle.ts'
import {
  APPOINTMENT_LIFECYCLE_PATCH,
  type AppointmentActivities,
  appointmentChangedSignal,
  type AppointmentWorkflowState,
  appointmentStatusQuery,
  type AppointmentWorkflowInput,
  cancelAppointmentSignal,
  cancelAppointmentUpdate,
  completeAppointmentSignal,
  completeAppointmentUpdate,
  noShowAppointmentUpdate,
  OPERATOR_STEP_REFUSED_PATCH,
  rescheduleAppointmentUpdate,
} from '../common/appointments/appointment-workflow-contract.ts'
import { searchAttributeKeys } from '../common/search-attributes-contract.ts'

const activities = proxyActivities<AppointmentActivities>(standardActivityOptions('30 seconds'))

/** Outcome of a finished appointment workflow. */
export interface AppointmentOutcome {
  appointmentId: string
  state: AppointmentWorkflowState
}

/**
 * Milliseconds until the next unprompted re-read of the appointment. Before the end one timer suffices (a workflow of
 * a booking months ahead records no daily wake-ups); a reschedule it missed is found at the old end and the timer
 * re-armed for the new one.
 */
function untilReconcile(endsAt: string): number {
  const now = Date.now()
  return nextReconcileAt(endsAt, now) - now
}

export async function appointmentWorkflow(input: AppointmentWorkflowInput): Promise<AppointmentOutcome> {
  // Runs started before the lifecycle replay the loop below unchanged (test/replay-histories/bookingWorkflow-cancelled).
  if (patched(APPOINTMENT_LIFECYCLE_PATCH)) return appointmentLifecycle(input)
  return legacyAppointmentLoop(input)
}

/** The appointment workflow before `booking-lifecycle-v2`: wait for the appointment to become final, nothing else. */
async function legacyAppointmentLoop(input: AppointmentWorkflowInput): Promise<AppointmentOutcome> {
  let appointment = await activities.loadBooking(input)
  let state: AppointmentWorkflowState = appointment.status
  let changed = false

  setHandler(appointmentStatusQuery, () => ({ appointmentId: input.appointmentId, state }))
  setHandler(cancelAppointmentSignal, () => {
    if (state === 'CONFIRMED') state = 'CANCELLED'
  })
  setHandler(completeAppointmentSignal, () => {
    if (state === 'CONFIRMED') state = 'COMPLETED'
  })
  setHandler(appointmentChangedSignal, () => {
    changed = true
  })
  // A run of the old code knows no reminders: it accepts the API's step and re-reads the appointment after it.
  const legacyAnswer = (next: AppointmentWorkflowState) => () => {
    changed = true
    return { state: next, nextReminderAt: null, remindersSent: 0, noShowAt: null, checkedIn: false }
  }
  setHandler(cancelAppointmentUpdate, legacyAnswer('CANCELLED'))
  setHandler(completeAppointmentUpdate, legacyAnswer('COMPLETED'))
  setHandler(noShowAppointmentUpdate, legacyAnswer('NO_SHOW'))
  setHandler(rescheduleAppointmentUpdate, legacyAnswer('CONFIRMED'))

  while (state === 'CONFIRMED') {
    await condition(() => changed || state !== 'CONFIRMED', untilReconcile(appointment.endsAt))
    // TypeScript keeps the narrowing from the loop test across the await; the handlers may have changed `state`.
    const signalled = state as AppointmentWorkflowState
    if (signalled !== 'CONFIRMED') {
      // An operator's signal: made through the appointment's transitions, unless the API already moved the appointment
      // to another final state. Refused by the state machine (completing before the start), nothing changed.
      state = await activities.recordAppointmentStatus({ ...input, status: signalled })
      if (state === 'CONFIRMED' && patched(OPERATOR_STEP_REFUSED_PATCH)) continue
      break
    }
    changed = false
    const previous = appointment
    appointment = await activities.loadBooking(input)
    state = appointment.status
    if (appointment.providerId !== previous.providerId || appointment.locationId !== previous.locationId) {
      // Rescheduled to another provider: operators find the workflow by the appointment's current parties.
      upsertSearchAttributes([
        { key: searchAttributeKeys.ProviderId, value: appointment.providerId },
        { key: searchAttributeKeys.LocationId, value: appointment.locationId },
      ])
    }
  }
  log.info('booking closed', { appointmentId: input.appointmentId, state })
  return { appointmentId: input.appointmentId, state }
}
