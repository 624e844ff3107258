/**
 * @module Calls from the API into an appointment's workflows: the booking lifecycle's updates (the API waits for the
 * workflow's accepted result holding no transaction, then writes the change in a new one: appointment-transitions.ts),
 * the lifecycle's view, the follow-up's view, and the `noteSigned` signal after a note's signature commits. Callers
 * inside a unit of work make these calls through `UnitOfWork.release`.
 *
 * Failures (domain/care-workflows/workflow-calls.ts): the workflow's refusal is a 409 `invalid_state_transition`;
 * Temporal unreachable or too slow is a 503 `dependency_unavailable` and the request's last transaction rolls back, so
 * nothing changed and the client may retry. A booking workflow that does not exist (its start still waits in the
 * outbox, e.g. Temporal was down when the appointment was booked) is not an error: the change is written alone and
 * the answer says `workflow: null`; the workflow reads the appointment when it starts.
 */
import {
  isGrpcServiceError,
  QueryNotRegisteredError,
  QueryRejectedError,
  ServiceError,
  WorkflowClient,
  WorkflowNotFoundError,
  type Client,
  type WorkflowHandle,
} from '@temporalio/client'
import { status } from '@grpc/grpc-js'
import type { Logger } from '../../infra/logger.ts'
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import {
  appointmentFollowUpWorkflowId,
  followUpViewQuery,
  noteSignedSignal,
  type FollowUpView,
} from '../../workflows/appointment-follow-up-contract.ts'
import {
  bookingViewQuery,
  bookingWorkflowId,
  type BookingWorkflowView,
  cancelBookingUpdate,
  completeBookingUpdate,
  noShowBookingUpdate,
  rescheduleBookingUpdate,
  type RescheduleRequest,
} from '../../workflows/booking-contract.ts'
import { callWorkflow } from '../care-workflows/workflow-calls.ts'

export interface BookingWorkflowCallsDeps {
  temporal: Client
  logger: Logger
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
  lifecycle: BookingWorkflowView | null
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
 * A query's failure because the workflow is still in its start delay: it has never run, so it cannot answer, and
 * Temporal says FAILED_PRECONDITION ("Workflow task is not scheduled yet").
 */
const stillDelayed = (error: unknown) =>
  error instanceof ServiceError && isGrpcServiceError(error.cause) && error.cause.code === status.FAILED_PRECONDITION

/** Creates the calls over a Temporal client. */
export function createBookingWorkflowCalls({ temporal, logger }: BookingWorkflowCallsDeps) {
  const booking = (appointmentId: string) => temporal.workflow.getHandle(bookingWorkflowId(appointmentId))
  const ask = (appointmentId: string, call: (handle: WorkflowHandle) => Promise<BookingWorkflowView>) =>
    callWorkflow(temporal, 'booking workflow', () => orNull(() => call(booking(appointmentId))))

  // The same client asking only open workflows (see lifecycleView).
  const openOnly = new WorkflowClient({
    connection: temporal.connection,
    namespace: temporal.options.namespace,
    dataConverter: temporal.options.dataConverter,
    interceptors: temporal.workflow.options.interceptors,
    queryRejectCondition: 'NOT_OPEN',
  })

  async function followUpView(appointmentId: string) {
    const workflowId = appointmentFollowUpWorkflowId(appointmentId)
    const view = await callWorkflow(temporal, 'appointment follow-up', () =>
      orNull(() => temporal.workflow.getHandle(workflowId).query(followUpViewQuery))
    )
    return view ? { ...view, workflowId } : null
  }

  /**
   * The lifecycle's view and the state of its run, in one query for the usual case (a running workflow): asked with
   * `NOT_OPEN`, Temporal answers a running workflow's query and refuses a closed one's, which says which it is without
   * the describe this took before (the view is polled: bookings beside 16 view loops were 3.0× slower at the median
   * with the describe, 2.2–3.0× without it, docs/benchmarks.md). The rare cases pay a second call: a closed
   * workflow's view is asked again (a worker replays it), a delayed one's start time is described.
   */
  async function lifecycleView(workflowId: string): Promise<Omit<AppointmentWorkflowView, 'workflowId' | 'followUp'>> {
    const idle = { runsFrom: null, lifecycle: null }
    // null: a run of the code before the lifecycle, which has no view.
    const viewOf = async (client: WorkflowClient) => {
      try {
        return await client.getHandle(workflowId).query(bookingViewQuery)
      } catch (error) {
        if (error instanceof QueryNotRegisteredError) return null
        throw error
      }
    }
    try {
      const lifecycle = await viewOf(openOnly)
      return lifecycle ? { execution: 'RUNNING', runsFrom: null, lifecycle } : { execution: 'LEGACY', ...idle }
    } catch (error) {
      if (error instanceof WorkflowNotFoundError) return { execution: 'NOT_STARTED', ...idle }
      if (error instanceof QueryRejectedError) {
        const lifecycle = await viewOf(temporal.workflow)
        return lifecycle ? { execution: 'CLOSED', runsFrom: null, lifecycle } : { execution: 'LEGACY', ...idle }
      }
      if (!stillDelayed(error)) throw error
      // Only a run whose start time is still ahead has never run; any other FAILED_PRECONDITION (a workflow task that
      // keeps failing) is the failure it says.
      const { status: run, executionTime } = await temporal.workflow.getHandle(workflowId).describe()
      if (run.name !== 'RUNNING' || !executionTime || executionTime.getTime() <= Date.now()) throw error
      return { execution: 'SCHEDULED', runsFrom: executionTime.toISOString(), lifecycle: null }
    }
  }

  return {
    /** Asks the lifecycle to accept a reschedule the API has checked; null when the workflow does not exist. */
    reschedule: (appointmentId: string, request: RescheduleRequest) =>
      ask(appointmentId, (h) => h.executeUpdate(rescheduleBookingUpdate, { args: [request] })),
    cancel: (appointmentId: string) => ask(appointmentId, (h) => h.executeUpdate(cancelBookingUpdate)),
    complete: (appointmentId: string) => ask(appointmentId, (h) => h.executeUpdate(completeBookingUpdate)),
    noShow: (appointmentId: string) => ask(appointmentId, (h) => h.executeUpdate(noShowBookingUpdate)),

    /**
     * The lifecycle and follow-up as their workflows hold them now.
     * @param completed - whether the appointment is COMPLETED: only completion starts a follow-up, so the follow-up
     *   of any other appointment is not asked for (one call to Temporal fewer on most views)
     * @throws AppError `dependency_unavailable`
     */
    async view(appointmentId: string, completed: boolean): Promise<AppointmentWorkflowView> {
      const workflowId = bookingWorkflowId(appointmentId)
      const [lifecycle, followUp] = await Promise.all([
        callWorkflow(temporal, 'booking workflow', () => lifecycleView(workflowId)),
        completed ? followUpView(appointmentId) : null,
      ])
      return { workflowId, ...lifecycle, followUp }
    },

    /** After the unit commits, tells the appointment's follow-up that its note was signed (best effort). */
    noteSigned(uow: UnitOfWork, appointmentId: string): void {
      uow.afterCommit(async () => {
        try {
          await temporal.withDeadline(Date.now() + 2000, () =>
            temporal.workflow.getHandle(appointmentFollowUpWorkflowId(appointmentId)).signal(noteSignedSignal)
          )
        } catch (error) {
          // No follow-up (not completed yet) or Temporal down: the follow-up re-reads the note at its next timer.
          logger.debug({ appointmentId, err: error }, 'appointment follow-up not signalled')
        }
      })
    },
  }
}

export type BookingWorkflowCalls = ReturnType<typeof createBookingWorkflowCalls>
