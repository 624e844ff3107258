/**
 * @module What the API, the agent trigger dispatcher and the agent run workflow share: the workflow type, its input,
 * the workflow ids and the search-attribute kind. Free of Node imports so the workflow bundle can use it.
 */

export const AGENT_RUN_WORKFLOW_TYPE = 'agentRunWorkflow'
/** `WorkflowKind` of every agent run (the AI analytics count runs with `WorkflowKind = "agent-run"`). */
export const AGENT_RUN_KIND = 'agent-run'

/** Input of one run: ids only (docs/conventions.md); everything else is loaded by the activities. */
export interface AgentRunInput {
  tenantId: string
  agentWorkflowId: string
  /** The run row created by the dispatcher for an event; absent for a scheduled run, whose first activity creates it. */
  runId?: string
  trigger: 'EVENT' | 'SCHEDULE'
  eventId?: string
}

export interface AgentRunResult {
  runId: string
  status: 'SUCCEEDED' | 'PARTIAL' | 'FAILED'
  summary: string
}

/** One run per (agent workflow, event): the id is the idempotency key of the run. */
export const eventRunWorkflowId = (agentWorkflowId: string, eventId: string) =>
  `agent-run-${agentWorkflowId}-${eventId}`

/** The Temporal schedule of a scheduled agent workflow. */
export const agentScheduleId = (agentWorkflowId: string) => `agent-schedule-${agentWorkflowId}`

/**
 * The workflow id a schedule starts with; Temporal appends the scheduled time (`-2026-11-21T08:00:00Z`), so each
 * scheduled time gets one run.
 */
export const scheduledRunWorkflowIdPrefix = (agentWorkflowId: string) => `agent-run-${agentWorkflowId}-scheduled`
