/**
 * @module The steps of one agent run, each called by one activity of `agentRunWorkflow`: one function per step, each
 * in its own file (agent-run-plan.ts says what they share); this gives them the worker's dependencies.
 */
import type { AgentRunInput } from '../../../common/agents/agent-run-contract.ts'
import type { AgentRunnerDeps, RunRef } from './agent-run-plan.ts'
import { beginAgentRun } from './begin-agent-run.ts'
import { completeAgentRun } from './complete-agent-run.ts'
import { decideAgentRun } from './decide-agent-run.ts'
import { executeAgentAction, recordActionFailure } from './execute-agent-action.ts'
import { recordRunContext } from './record-run-context.ts'

/** Creates the run steps over the worker's dependencies. */
export function createAgentRunner(deps: AgentRunnerDeps) {
  return {
    /** @see beginAgentRun */
    begin: (input: AgentRunInput, workflowId: string) => beginAgentRun(deps, input, workflowId),
    /** @see recordRunContext */
    context: (ref: RunRef) => recordRunContext(deps, ref),
    /** @see decideAgentRun */
    decide: (ref: RunRef) => decideAgentRun(deps, ref),
    /** @see executeAgentAction */
    execute: (ref: RunRef & { position: number }) => executeAgentAction(deps, ref),
    /** @see recordActionFailure */
    recordFailure: (ref: RunRef & { position: number; message: string }) => recordActionFailure(deps, ref),
    /** @see completeAgentRun */
    complete: (ref: RunRef) => completeAgentRun(deps, ref),
  }
}
