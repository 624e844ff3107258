/**
 * @module Telling an appointment's appointment workflow that the appointment changed. The API writes the change first
 * (the database is the source of truth) and signals `bookingChanged` after the commit, so a rolled-back change never
 * reaches the workflow. The signal is best effort: when Temporal is unreachable or the workflow has not started yet
 * (its start still waits in the outbox), the workflow catches up by itself: it reads the appointment when it starts
 * and re-reads it on a timer (workflows/appointment.ts), so it never stays open past an appointment that has ended.
 */
import type { Client } from '@temporalio/client'
import type { Logger } from '../../infra/logger.ts'
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import {
  appointmentChangedSignal,
  appointmentWorkflowId,
} from '../../common/appointments/appointment-workflow-contract.ts'

export interface AppointmentNotifierDeps {
  temporal: Client
  logger: Logger
  /** Longest the signals of one request may delay its response. */
  timeoutMs?: number
  /** Waits for this process's start of a workflow still on its way after its booking's answer (WorkflowOutbox). */
  started?: (workflowId: string) => Promise<void>
}

export interface AppointmentNotifier {
  /** After the unit commits, signals the appointment workflows of these appointments. */
  changed(uow: UnitOfWork, appointmentIds: readonly string[]): void
}

/** Creates the notifier over a Temporal client. */
export function createAppointmentNotifier({
  temporal,
  logger,
  timeoutMs = 2000,
  started = async () => undefined,
}: AppointmentNotifierDeps): AppointmentNotifier {
  async function signalOne(appointmentId: string): Promise<void> {
    try {
      await started(appointmentWorkflowId(appointmentId))
      await temporal.withDeadline(Date.now() + timeoutMs, () =>
        temporal.workflow.getHandle(appointmentWorkflowId(appointmentId)).signal(appointmentChangedSignal)
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
