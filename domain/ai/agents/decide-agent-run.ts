/**
 * @module A run's decision: the agent (offline or the configured model) over the plan and context, and what of its
 * proposal was accepted (agent-run-plan.ts says what the steps of a run share).
 */
import { runInUnitOfWork } from '../../../infra/unit-of-work.ts'
import { actionName, openParameters } from './action-catalogue.ts'
import type { AgentContext } from './agent-context.ts'
import { acceptProposal, type Decision, type DecisionInput } from './agent-proposal.ts'
import { planOf, type AgentRunnerDeps, type RunRef } from './agent-run-plan.ts'
import { AGENT_POSITION, CONTEXT_POSITION, FIRST_ACTION_POSITION, recordStep, stepAt } from './agent-run-store.ts'

/** Runs the agent (offline or the configured model) over the plan and context, and records what was accepted. */
export async function decideAgentRun(
  deps: Pick<AgentRunnerDeps, 'db' | 'decider'>,
  { tenantId, runId }: RunRef
): Promise<{ ignored: number }> {
  const loaded = await runInUnitOfWork(deps.db, tenantId, async (uow) => ({
    done: await stepAt(uow, runId, AGENT_POSITION),
    plan: await planOf(uow, runId),
    context: (await stepAt(uow, runId, CONTEXT_POSITION))?.output as unknown as AgentContext,
  }))
  if (loaded.done) return { ignored: ((loaded.done.output as unknown as Partial<Decision>).ignored ?? []).length }
  const { plan, context: ctx } = loaded
  const input: DecisionInput = {
    workflowName: plan.name,
    instructions: plan.instructions,
    context: ctx,
    actions: plan.actions.map((action, index) => ({
      position: FIRST_ACTION_POSITION + index,
      name: actionName(action, index),
      type: action.type,
      open: openParameters(action),
    })),
  }
  // The model is called outside any transaction; its answer only proposes values.
  const raw = await deps.decider.propose(input)
  const allowedUrls = plan.actions.flatMap((action) => (action.type === 'call_webhook' ? [action.url] : []))
  const decision = acceptProposal(input, raw, allowedUrls)
  await runInUnitOfWork(deps.db, tenantId, (uow) =>
    recordStep(uow, runId, AGENT_POSITION, {
      kind: 'AGENT',
      name: 'agent',
      status: 'SUCCEEDED',
      output: { model: deps.decider.id, params: decision.params, ignored: decision.ignored },
    })
  )
  return { ignored: decision.ignored.length }
}
