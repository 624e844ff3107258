/**
 * @module Activities of the booking workflow. Built by a factory that receives its dependencies, so the worker wires
 * real ones and tests can wire their own. Every query runs in a unit of work scoped to the workflow's tenant.
 */
import { ApplicationFailure } from '@temporalio/common'
import type { Db } from '../infra/db.ts'
import { runInUnitOfWork } from '../infra/unit-of-work.ts'
import type { BookingState, BookingWorkflowInput } from '../workflows/shared.ts'

export interface BookingActivityDeps {
  db: Db
}

export interface RecordStatusInput extends BookingWorkflowInput {
  status: Exclude<BookingState, 'CONFIRMED'>
}

/** Creates the booking activities. */
export function createBookingActivities({ db }: BookingActivityDeps) {
  return {
    /** Loads the appointment's status, schedule and parties (ids only); a missing appointment is a permanent failure. */
    async loadBooking({ tenantId, appointmentId }: BookingWorkflowInput) {
      const appointment = await runInUnitOfWork(db, tenantId, ({ tx }) =>
        tx.appointment.findFirst({
          where: { id: appointmentId, tenantId },
          select: { status: true, startsAt: true, endsAt: true, providerId: true, locationId: true },
        })
      )
      if (!appointment) {
        throw ApplicationFailure.create({
          type: 'AppointmentNotFound',
          message: `Appointment ${appointmentId} not found`,
          nonRetryable: true,
        })
      }
      return {
        status: appointment.status as BookingState,
        startsAt: appointment.startsAt.toISOString(),
        endsAt: appointment.endsAt.toISOString(),
        providerId: appointment.providerId,
        locationId: appointment.locationId,
      }
    },

    /**
     * Persists a final status asked for by an operator's signal, only over CONFIRMED (the state machine's rule: a
     * final state is never left), and answers the status the appointment has afterwards. Idempotent: re-running it
     * after a crash finds the status already written.
     */
    async recordAppointmentStatus({ tenantId, appointmentId, status }: RecordStatusInput): Promise<BookingState> {
      return runInUnitOfWork(db, tenantId, async ({ tx }) => {
        await tx.appointment.updateMany({ where: { id: appointmentId, tenantId, status: 'CONFIRMED' }, data: { status } })
        const row = await tx.appointment.findFirst({ where: { id: appointmentId, tenantId }, select: { status: true } })
        return (row?.status ?? status) as BookingState
      })
    },
  }
}

export type BookingActivities = ReturnType<typeof createBookingActivities>
