/**
 * @module Telling an appointment's booking workflow that the appointment changed. The API writes the change first
 * (the database is the source of truth) and signals `bookingChanged` after the commit, so a rolled-back change never
 * reaches the workflow. The signal is best effort: when Temporal is unreachable or the workflow has not started yet
 * (its start still waits in the outbox), the workflow catches up by itself: it reads the appointment when it starts
 * and re-reads it on a timer (workflows/booking.ts), so it never stays open past an appointment that has ended.
 */
import type { Client } from '@temporalio/client'
import type { Logger } from '../../infra/logger.ts'
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import { bookingChangedSignal, bookingWorkflowId } from '../../common/appointments/booking-contract.ts'

export interface BookingNotifierDeps {
  temporal: Client
  logger: Logger
  /** Longest the signals of one request may delay its response. */
  timeoutMs?: number
  /** Waits for this process's start of a workflow still on its way after its booking's answer (WorkflowOutbox). */
  started?: (workflowId: string) => Promise<void>
}

export interface BookingNotifier {
  /** After the unit commits, signals the booking workflows of these appointments. */
  changed(uow: UnitOfWork, appointmentIds: readonly string[]): void
}

/** Creates the notifier over a Temporal client. */
export function createBookingNotifier({
  temporal,
  logger,
  timeoutMs = 2000,
  started = async () => undefined,
}: BookingNotifierDeps): BookingNotifier {
  async function signalOne(appointmentId: string): Promise<void> {
    try {
      await started(bookingWorkflowId(appointmentId))
      await temporal.withDeadline(Date.now() + timeoutMs, () =>
        temporal.workflow.getHandle(bookingWorkflowId(appointmentId)).signal(bookingChangedSignal)
      )
    } catch (error) {
      // Ids only in the log line (never health data); the workflow reconciles on its own.
      logger.warn({ appointmentId, err: error }, 'booking workflow not signalled; it will reconcile')
    }
  }

  return {
    changed(uow, appointmentIds) {
      if (!appointmentIds.length) return
      const ids = [...new Set(appointmentIds)]
      uow.afterCommit(async () => {
        await Promise.all(ids.map(signalOne))
      })
    },
  }
}
