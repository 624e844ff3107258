/**
 * @module Calls from the API into an appointment's workflows: the appointment lifecycle's updates (the API waits for the
 * workflow's accepted result holding no transaction, then writes the change in a new one: appointment-transitions.ts),
 * the lifecycle's view, the follow-up's view, and the signals after commit: `bookingChanged` after any change of the
 * appointment, `noteSigned` after a note's signature. Callers
 * inside a unit of work make these calls through `UnitOfWork.release`.
 *
 * Failures (domain/workflow-runs/workflow-calls.ts): the workflow's refusal is a 409 `invalid_state_transition`;
 * Temporal unreachable or too slow is a 503 `dependency_unavailable` and the request's last transaction rolls back, so
 * nothing changed and the client may retry. An appointment workflow that does not exist (its start still waits in the
 * outbox, e.g. Temporal was down when the appointment was booked) is not an error: the change is written alone and
 * the answer says `workflow: null`; the workflow reads the appointment when it starts.
 */
import {
  QueryNotRegisteredError,
  WorkflowNotFoundError,
  type Client,
  type WorkflowExecutionDescription,
  type WorkflowHandle,
} from '@temporalio/client'
import type { QueryDefinition } from '@temporalio/common'
import type { Logger } from '../../infra/logger.ts'
import { refusedAsNotYetRunning } from '../../infra/temporal-errors.ts'
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import {
  appointmentFollowUpWorkflowId,
  followUpViewQuery,
  noteSignedSignal,
  type FollowUpView,
} from '../../common/appointments/appointment-follow-up-contract.ts'
import {
  appointmentLifecycleQuery,
  appointmentWorkflowId,
  type AppointmentLifecycleView,
  appointmentChangedSignal,
  cancelAppointmentUpdate,
  completeAppointmentUpdate,
  noShowAppointmentUpdate,
  rescheduleAppointmentUpdate,
  type RescheduleRequest,
} from '../../common/appointments/appointment-workflow-contract.ts'
import { createQueryAnswersByHistory } from '../workflow-runs/query-answers-by-history.ts'
import { callWorkflow, updateIdFor } from '../workflow-runs/workflow-calls.ts'

export interface AppointmentWorkflowCallsDeps {
  temporal: Client
  logger: Logger
  /** Waits for this process's start of a workflow still on its way after its booking's answer (WorkflowOutbox). */
  started?: (workflowId: string) => Promise<void>
  /** Longest the change signals of one request may delay its response. */
  signalTimeoutMs?: number
}

/** What GET /v1/appointments/{id}/workflow shows. */
export interface AppointmentWorkflowView {
  workflowId: string
  /**
   * NOT_STARTED: its start still waits in the outbox; SCHEDULED: started with a start delay, its first task not run
   * yet (until `runsFrom`); LEGACY: a run of the code before the lifecycle (no view).
   */
  execution: 'NOT_STARTED' | 'SCHEDULED' | 'RUNNING' | 'CLOSED' | 'LEGACY'
  /** When a SCHEDULED workflow's first task runs (ISO 8601), unless an update runs it earlier; null otherwise. */
  runsFrom: string | null
  lifecycle: AppointmentLifecycleView | null
  followUp: (FollowUpView & { workflowId: string }) | null
}

/** A missing workflow as null; every other failure goes on to callWorkflow's mapping. */
async function orNull<T>(call: () => Promise<T>): Promise<T | null> {
  try {
    return await call()
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return null
    throw error
  }
}

/**
 * After the unit commits, tells the workflows of these appointments that they changed (`bookingChanged`). The API
 * writes the change first (the database is the source of truth), so a rolled-back change never reaches a workflow.
 * Best effort: when Temporal is unreachable or a workflow has not started yet (its start still waits in the outbox),
 * the workflow catches up by itself: it reads the appointment when it starts and re-reads it on a timer
 * (workflows/appointment.ts), so it never stays open past an appointment that has ended.
 */
function signalChangedAfterCommit(
  { temporal, logger, started, signalTimeoutMs }: Required<AppointmentWorkflowCallsDeps>,
  uow: UnitOfWork,
  appointmentIds: readonly string[]
): void {
  if (!appointmentIds.length) return
  const signal = async (appointmentId: string) => {
    const workflowId = appointmentWorkflowId(appointmentId)
    try {
      await started(workflowId)
      await temporal.withDeadline(Date.now() + signalTimeoutMs, () =>
        temporal.workflow.getHandle(workflowId).signal(appointmentChangedSignal)
      )
    } catch (error) {
      // Ids only in the log line (never health data); the workflow reconciles on its own.
      logger.warn({ appointmentId, err: error }, 'booking workflow not signalled; it will reconcile')
    }
  }
  const ids = [...new Set(appointmentIds)]
  uow.afterCommit(async () => {
    await Promise.all(ids.map(signal))
  })
}

async function signalNoteSigned(
  { temporal, logger }: Pick<AppointmentWorkflowCallsDeps, 'temporal' | 'logger'>,
  appointmentId: string
) {
  try {
    await temporal.withDeadline(Date.now() + 2000, () =>
      temporal.workflow.getHandle(appointmentFollowUpWorkflowId(appointmentId)).signal(noteSignedSignal)
    )
  } catch (error) {
    // No follow-up (not completed yet) or Temporal down: the follow-up re-reads the note at its next timer.
    logger.debug({ appointmentId, err: error }, 'appointment follow-up not signalled')
  }
}

/** Creates the calls over a Temporal client. */
export function createAppointmentWorkflowCalls({
  temporal,
  logger,
  started = async () => undefined,
  signalTimeoutMs = 2000,
}: AppointmentWorkflowCallsDeps) {
  const handleOf = (appointmentId: string) => temporal.workflow.getHandle(appointmentWorkflowId(appointmentId))
  const ask = async (appointmentId: string, call: (handle: WorkflowHandle) => Promise<AppointmentLifecycleView>) => {
    await started(appointmentWorkflowId(appointmentId))
    return callWorkflow(temporal, 'booking workflow', () => orNull(() => call(handleOf(appointmentId))))
  }
  const answers = createQueryAnswersByHistory()

  /**
   * A query's answer from the described run: the answer kept for the run's history length, or the query to a worker
   * when the history has grown since it was last asked, one for however many views ask at that moment
   * (query-answers-by-history.ts). A view is polled, and a query wakes the workflow on a worker: beside 16 view loops,
   * views waited 1.4 s at the median on the niced worker (docs/benchmarks.md, "Reading the figures of bookings beside
   * workflow-view loops").
   * @returns null for a query the run does not have (a run of older code)
   */
  async function answerOf<T>(description: WorkflowExecutionDescription, query: QueryDefinition<T>) {
    const { workflowId, runId, historyLength } = description
    return answers.answer<T | null>(workflowId, query.name, { runId, historyLength }, async () => {
      try {
        return await temporal.workflow.getHandle(workflowId, runId).query(query)
      } catch (error) {
        if (error instanceof QueryNotRegisteredError) return null
        throw error
      }
    })
  }
  const describe = (workflowId: string) => temporal.workflow.getHandle(workflowId).describe()

  async function followUpView(appointmentId: string) {
    const workflowId = appointmentFollowUpWorkflowId(appointmentId)
    const view = await callWorkflow(temporal, 'appointment follow-up', () =>
      orNull(async () => answerOf(await describe(workflowId), followUpViewQuery))
    )
    return view ? { ...view, workflowId } : null
  }

  /**
   * The lifecycle's view and the state of its run: a describe, and the view kept for the run's history length or asked
   * of the workflow. A run still in its start delay cannot answer a query, and says so with FAILED_PRECONDITION.
   */
  async function lifecycleView(workflowId: string): Promise<Omit<AppointmentWorkflowView, 'workflowId' | 'followUp'>> {
    const idle = { runsFrom: null, lifecycle: null }
    try {
      const description = await describe(workflowId)
      const { status: run, executionTime, historyLength } = description
      const delayedUntil =
        run.name === 'RUNNING' && executionTime && executionTime.getTime() > Date.now() ? executionTime : null
      // A delayed start's history is its start event alone until its first task is scheduled (by the delay's end, an
      // update, or a signal's arrival): no query could be answered yet.
      if (delayedUntil && historyLength === 1)
        return { execution: 'SCHEDULED', runsFrom: delayedUntil.toISOString(), lifecycle: null }
      try {
        const lifecycle = await answerOf(description, appointmentLifecycleQuery)
        if (!lifecycle) return { execution: 'LEGACY', ...idle }
        return { execution: description.status.name === 'RUNNING' ? 'RUNNING' : 'CLOSED', runsFrom: null, lifecycle }
      } catch (error) {
        // Only a run whose start time is still ahead has never run; any other FAILED_PRECONDITION (a workflow task
        // that keeps failing) is the failure it says.
        if (!refusedAsNotYetRunning(error) || !delayedUntil) throw error
        return { execution: 'SCHEDULED', runsFrom: delayedUntil.toISOString(), lifecycle: null }
      }
    } catch (error) {
      if (error instanceof WorkflowNotFoundError) return { execution: 'NOT_STARTED', ...idle }
      throw error
    }
  }

  return {
    /**
     * Asks the lifecycle to accept a reschedule the API has checked; null when the workflow does not exist.
     * @param uow - the request's unit: its operation names the update, so that a retry is answered, not run again
     */
    reschedule: (uow: UnitOfWork, appointmentId: string, request: RescheduleRequest) =>
      ask(appointmentId, (h) =>
        h.executeUpdate(rescheduleAppointmentUpdate, {
          args: [request],
          updateId: updateIdFor(uow, rescheduleAppointmentUpdate),
        })
      ),
    cancel: (uow: UnitOfWork, appointmentId: string) =>
      ask(appointmentId, (h) =>
        h.executeUpdate(cancelAppointmentUpdate, { updateId: updateIdFor(uow, cancelAppointmentUpdate) })
      ),
    complete: (uow: UnitOfWork, appointmentId: string) =>
      ask(appointmentId, (h) =>
        h.executeUpdate(completeAppointmentUpdate, { updateId: updateIdFor(uow, completeAppointmentUpdate) })
      ),
    noShow: (uow: UnitOfWork, appointmentId: string) =>
      ask(appointmentId, (h) =>
        h.executeUpdate(noShowAppointmentUpdate, { updateId: updateIdFor(uow, noShowAppointmentUpdate) })
      ),

    /**
     * The lifecycle and follow-up as their workflows hold them now.
     * @param completed - whether the appointment is COMPLETED: only completion starts a follow-up, so the follow-up
     *   of any other appointment is not asked for (one call to Temporal fewer on most views)
     * @throws AppError `dependency_unavailable`
     */
    async view(appointmentId: string, completed: boolean): Promise<AppointmentWorkflowView> {
      const workflowId = appointmentWorkflowId(appointmentId)
      await started(workflowId)
      const [lifecycle, followUp] = await Promise.all([
        callWorkflow(temporal, 'booking workflow', () => lifecycleView(workflowId)),
        completed ? followUpView(appointmentId) : null,
      ])
      return { workflowId, ...lifecycle, followUp }
    },

    /** @see signalChangedAfterCommit */
    changed: (uow: UnitOfWork, appointmentIds: readonly string[]) =>
      signalChangedAfterCommit({ temporal, logger, started, signalTimeoutMs }, uow, appointmentIds),

    /** After the unit commits, tells the appointment's follow-up that its note was signed (best effort). */
    noteSigned: (uow: UnitOfWork, appointmentId: string) =>
      uow.afterCommit(() => signalNoteSigned({ temporal, logger }, appointmentId)),
  }
}

export type AppointmentWorkflowCalls = ReturnType<typeof createAppointmentWorkflowCalls>
/** What a change of an appointment needs of its workflow: to be told, after commit. */
export type AppointmentNotifier = Pick<AppointmentWorkflowCalls, 'changed'>
