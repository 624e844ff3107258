/**
 * @module The agent run workflow: plan → context → agent → each configured action → outcome, every step an
 * activity that records itself (docs/agents.md). Started by the agent trigger dispatcher once per (agent workflow,
 * event) under a deterministic id, or by the workflow's Temporal Schedule once per scheduled time.
 */
import { ActivityFailure, isCancellation, proxyActivities } from '@temporalio/workflow'
import type { AgentRunActivities, AgentRunInput, AgentRunResult } from '../common/agents/agent-run-contract.ts'
import { tenantPriority } from '../common/tenant-priority.ts'

const retry = { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 10 }

/** One run of an agent workflow. */
export async function agentRunWorkflow(input: AgentRunInput): Promise<AgentRunResult> {
  // A run started by the dispatcher carries its tenant's fairness key already; a scheduled run is started by a Temporal
  // Schedule, whose action cannot carry one, so the run gives it to its activities itself (common/tenant-priority.ts).
  const priority = tenantPriority(input.tenantId)
  const steps = proxyActivities<AgentRunActivities>({ startToCloseTimeout: '30 seconds', retry, priority })
  // Actions may wait on a receiver (10 s at most per call): a crashed worker's attempt is retried after 15 s.
  const actions = proxyActivities<AgentRunActivities>({
    startToCloseTimeout: '15 seconds',
    retry: { ...retry, maximumAttempts: 6 },
    priority,
  })
  const begun = await steps.beginAgentRun(input)
  if (begun.skipped) return { runId: begun.runId, status: 'FAILED', summary: begun.skipped }
  const ref = { tenantId: input.tenantId, runId: begun.runId }
  await steps.loadAgentRunContext(ref)
  await steps.decideAgentRun(ref)
  // In configured order: a later action may depend on an earlier one having happened (a task after a message).
  for (const position of begun.positions) {
    try {
      await actions.executeAgentAction({ ...ref, position })
    } catch (error) {
      // A cancelled action is an ActivityFailure too, but it is the run's cancellation, not the action's failure.
      if (isCancellation(error) || !(error instanceof ActivityFailure)) throw error
      await steps.recordAgentActionFailure({ ...ref, position, message: error.cause?.message ?? error.message })
    }
  }
  return await steps.completeAgentRun(ref)
}
