/**
 * @module The booking workflow: the durable state of one appointment. It starts when the appointment is created and
 * stays open until the appointment reaches a final state, so reminders, reschedules, cancellation and completion
 * (later work) hang off it and survive worker crashes. Orchestration only: every side effect is an activity.
 */
import { condition, log, proxyActivities, setHandler } from '@temporalio/workflow'
import type { createBookingActivities } from '../activities/booking-activities.ts'
import {
  bookingStatusQuery,
  cancelBookingSignal,
  completeBookingSignal,
  type BookingState,
  type BookingWorkflowInput,
} from './shared.ts'

const activities = proxyActivities<ReturnType<typeof createBookingActivities>>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
})

/** Outcome of a finished booking workflow. */
export interface BookingOutcome {
  appointmentId: string
  state: BookingState
}

export async function bookingWorkflow(input: BookingWorkflowInput): Promise<BookingOutcome> {
  const booking = await activities.loadBooking(input)
  let state: BookingState = booking.status

  setHandler(bookingStatusQuery, () => ({ appointmentId: input.appointmentId, state }))
  setHandler(cancelBookingSignal, () => {
    if (state === 'CONFIRMED') state = 'CANCELLED'
  })
  setHandler(completeBookingSignal, () => {
    if (state === 'CONFIRMED') state = 'COMPLETED'
  })

  if (state === 'CONFIRMED') {
    await condition(() => state !== 'CONFIRMED')
    // TypeScript keeps the narrowing from the `if` across the await; the handlers have changed `state` by now.
    const finalState = state as Exclude<BookingState, 'CONFIRMED'>
    await activities.recordAppointmentStatus({ ...input, status: finalState })
  }
  log.info('booking closed', { appointmentId: input.appointmentId, state })
  return { appointmentId: input.appointmentId, state }
}
