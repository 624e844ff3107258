/**
 * @module What the API asks of Temporal for reconciliation (the shape every domain file that calls Temporal has:
 * docs/workflows.md, "Calls into Temporal"): a tenant's daily schedule created or brought to its options, and the
 * status of a run an operator asked for.
 */
import { ScheduleAlreadyRunning, WorkflowNotFoundError, type Client, type ScheduleOptions } from '@temporalio/client'

const CALL_DEADLINE_MS = 5000

/** Creates the calls over a Temporal client. */
export function createReconciliationWorkflowCalls({ temporal }: { temporal: Client }) {
  return {
    /** Creates the tenant's schedule, or brings an existing one to these options. */
    async ensureSchedule(options: ScheduleOptions): Promise<void> {
      await temporal.withDeadline(Date.now() + CALL_DEADLINE_MS, async () => {
        try {
          await temporal.schedule.create(options)
        } catch (error) {
          if (!(error instanceof ScheduleAlreadyRunning)) throw error
          await temporal.schedule.getHandle(options.scheduleId).update((previous) => ({
            spec: options.spec,
            action: options.action,
            policies: options.policies,
            // An operator may have paused a tenant's schedule in the UI: that stays as they left it.
            state: previous.state,
          }))
        }
      })
    },

    /** A run's status (RUNNING, COMPLETED...); undefined when Temporal no longer has it (past retention: long ended). */
    async runStatus(workflowId: string): Promise<string | undefined> {
      try {
        return (await temporal.workflow.getHandle(workflowId).describe()).status.name
      } catch (error) {
        if (error instanceof WorkflowNotFoundError) return undefined
        throw error
      }
    },
  }
}

export type ReconciliationWorkflowCalls = ReturnType<typeof createReconciliationWorkflowCalls>
