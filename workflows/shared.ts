/**
 * @module Message contracts shared by the API and the workflows: signals, queries and the inputs of each workflow.
 */
import { defineQuery, defineSignal } from '@temporalio/workflow'
import type { AppointmentStatus } from '../domain/appointments/appointment-status.ts'

/** The workflow id of an appointment's booking workflow: derived from the appointment id, so starts are idempotent. */
export const bookingWorkflowId = (appointmentId: string) => `booking-${appointmentId}`

export interface BookingWorkflowInput {
  tenantId: string
  appointmentId: string
}

/** The appointment's status as the booking workflow holds it: the appointment's own list, not a copy of it. */
export type BookingState = AppointmentStatus

export interface BookingStatus {
  appointmentId: string
  state: BookingState
}

export const cancelBookingSignal = defineSignal<[{ reason?: string }]>('cancelBooking')
export const completeBookingSignal = defineSignal<[]>('completeBooking')
/**
 * The appointment changed through the API (rescheduled, cancelled, completed, no-show): the workflow reloads it from
 * the database, which is the source of truth, so the signal carries no data and a duplicate is harmless.
 */
export const bookingChangedSignal = defineSignal<[]>('bookingChanged')
export const bookingStatusQuery = defineQuery<BookingStatus>('bookingStatus')
