/**
 * @module What the platform asks of Temporal for agent workflows (the shape every domain file that calls Temporal has:
 * docs/workflows.md, "Calls into Temporal"): an event's run started once, and a scheduled agent workflow's Temporal
 * Schedule brought to its options or removed.
 */
import {
  ScheduleNotFoundError,
  WorkflowExecutionAlreadyStartedError,
  type Client,
  type ScheduleOptions,
} from '@temporalio/client'
import { TypedSearchAttributes, type SearchAttributePair } from '@temporalio/common'
import { AGENT_RUN_WORKFLOW, type AgentRunInput } from '../../../common/agents/agent-run-contract.ts'
import { tenantPriority } from '../../../common/tenant-priority.ts'

const START_DEADLINE_MS = 5000

/** An event's run as it is started: ids only in its attributes and summary (docs/conventions.md). */
export interface AgentRunStart {
  workflowId: string
  input: AgentRunInput
  attributes: SearchAttributePair[]
  summary: string
  details: string
}

/** Creates the calls over a Temporal client. */
export function createAgentWorkflowCalls({ temporal, taskQueue }: { temporal: Client; taskQueue: string }) {
  return {
    /** Starts an event's run, once: a start of a run already started is refused, and is the start already made. */
    async startRun(run: AgentRunStart): Promise<void> {
      try {
        await temporal.withDeadline(Date.now() + START_DEADLINE_MS, () =>
          temporal.workflow.start(AGENT_RUN_WORKFLOW, {
            workflowId: run.workflowId,
            taskQueue,
            args: [run.input],
            workflowIdReusePolicy: 'REJECT_DUPLICATE',
            typedSearchAttributes: new TypedSearchAttributes(run.attributes),
            staticSummary: run.summary,
            staticDetails: run.details,
            priority: tenantPriority(run.input.tenantId),
          })
        )
      } catch (error) {
        if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error
      }
    },

    /** Brings a schedule to these options (its paused state included), creating it when it does not exist. */
    async putSchedule(options: ScheduleOptions & { state: NonNullable<ScheduleOptions['state']> }): Promise<void> {
      const { spec, action, policies, state } = options
      try {
        await temporal.schedule.getHandle(options.scheduleId).update(() => ({ spec, action, policies, state }))
      } catch (error) {
        if (!(error instanceof ScheduleNotFoundError)) throw error
        await temporal.schedule.create(options)
      }
    },

    /** Deletes a schedule; one that does not exist is deleted already. */
    async removeSchedule(scheduleId: string): Promise<void> {
      try {
        await temporal.schedule.getHandle(scheduleId).delete()
      } catch (error) {
        if (!(error instanceof ScheduleNotFoundError)) throw error
      }
    },
  }
}

export type AgentWorkflowCalls = ReturnType<typeof createAgentWorkflowCalls>
