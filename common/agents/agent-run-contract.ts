/**
 * @module What the API, the agent trigger dispatcher and the agent run workflow share: the workflow type, its input,
 * the workflow ids and the search-attribute kind. Free of Node imports so the workflow bundle can use it.
 */

export const AGENT_RUN_WORKFLOW = 'agentRunWorkflow'
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

/** The run an activity works on. */
export interface AgentRunRef {
  tenantId: string
  runId: string
}

/** The run as its first step found or created it. */
export interface BegunAgentRun {
  runId: string
  /** Action positions in order; empty when the run was skipped. */
  positions: number[]
  /** Why the run was skipped, when it was. */
  skipped?: string
}

/**
 * The agent run activities (activities/agent-run-activities.ts) as the workflow proxies them. The factory declares that it returns this
 * interface, so the compiler checks the two agree. Names, arguments and results are in recorded histories: changing
 * one breaks the replay of runs in flight.
 */
export interface AgentRunActivities {
  /** Finds or creates the run, freezes its plan. */
  beginAgentRun: (input: AgentRunInput) => Promise<BegunAgentRun>
  /** Loads and records the run's context. */
  loadAgentRunContext: (ref: AgentRunRef) => Promise<{ inScope: boolean }>
  /** The agent step; answers how many proposed actions it ignored. */
  decideAgentRun: (ref: AgentRunRef) => Promise<{ ignored: number }>
  /** One action; a receiver that may recover is retried by Temporal, anything else is recorded as the step. */
  executeAgentAction: (ref: AgentRunRef & { position: number }) => Promise<{ status: string }>
  /** An action whose retries ran out. */
  recordAgentActionFailure: (input: AgentRunRef & { position: number; message: string }) => Promise<void>
  /** The run's outcome. */
  completeAgentRun: (ref: AgentRunRef) => Promise<AgentRunResult>
}
