/**
 * @module A run's actions: one configured action performed if its guard rail allows it, or recorded as failed once its
 * activity gave up (agent-run-plan.ts says what the steps of a run share).
 */
import { runInUnitOfWork, type UnitOfWork } from '../../../infra/unit-of-work.ts'
import { actionName, refusalOf } from './action-catalogue.ts'
import { applyEffect, postWebhookEffect, type EffectInput, type EffectOutcome } from './agent-action-effects.ts'
import type { AgentContext } from './agent-context.ts'
import type { Decision } from './agent-proposal.ts'
import { clockOf, planOf, type AgentRunnerDeps, type RunRef } from './agent-run-plan.ts'
import { AGENT_POSITION, CONTEXT_POSITION, FIRST_ACTION_POSITION, recordStep, stepAt } from './agent-run-store.ts'
import { agentSecretAt } from '../../sealed-secrets.ts'

/** Performs one configured action if its guard rail allows it; records the step. */
export async function executeAgentAction(
  deps: AgentRunnerDeps,
  { tenantId, runId, position }: RunRef & { position: number }
): Promise<{ status: string }> {
  const now = clockOf(deps)
  const loaded = await runInUnitOfWork(deps.db, tenantId, async (uow) => {
    const plan = await planOf(uow, runId)
    const assistant = await uow.tx.assistant.findFirst({
      where: { id: plan.assistantId, tenantId },
      select: { tools: true },
    })
    // The secret as it is now (a rotation applies to calls not yet made), also for a workflow deleted since.
    const workflow = await uow.tx.agentWorkflow.findFirst({
      where: { id: plan.agentWorkflowId, tenantId },
      select: { webhookSecret: true },
    })
    return {
      webhookSecret: workflow?.webhookSecret,
      done: await stepAt(uow, runId, position),
      plan,
      assistantTools: assistant?.tools ?? [],
      context: (await stepAt(uow, runId, CONTEXT_POSITION))?.output as unknown as AgentContext,
      decision: (await stepAt(uow, runId, AGENT_POSITION))?.output as unknown as Decision,
    }
  })
  if (loaded.done) return { status: loaded.done.status }
  const index = position - FIRST_ACTION_POSITION
  const action = loaded.plan.actions[index]!
  const name = actionName(action, index)
  const record = (outcome: EffectOutcome) => (uow: UnitOfWork) =>
    recordStep(uow, runId, position, { kind: 'ACTION', name, ...outcome }).then((step) => ({ status: step.status }))
  const refusal = refusalOf(action, loaded.plan.tools, loaded.assistantTools, loaded.plan.creatorScopes)
  if (refusal) {
    return runInUnitOfWork(
      deps.db,
      tenantId,
      record({ status: 'REFUSED', output: { code: refusal.code, type: action.type }, reason: refusal.message })
    )
  }
  const input: EffectInput = {
    action,
    name,
    params: loaded.decision.params[position] ?? {},
    context: loaded.context,
    agentWorkflowId: loaded.plan.agentWorkflowId,
    runId,
    key: `${runId}:${position}`,
    now: now(),
    webhookSecret:
      loaded.webhookSecret === undefined
        ? undefined
        : deps.secrets.open(loaded.webhookSecret, agentSecretAt(loaded.plan.agentWorkflowId)),
  }
  if (action.type === 'call_webhook') {
    const outcome = await postWebhookEffect(deps.poster, input)
    return runInUnitOfWork(deps.db, tenantId, record(outcome))
  }
  // The effect and its step commit together: exactly once, however often the activity is retried.
  return runInUnitOfWork(deps.db, tenantId, async (uow) => record(await applyEffect(uow, deps.care(), input))(uow))
}

/** Records an action whose activity gave up (retries exhausted). */
export async function recordActionFailure(
  deps: Pick<AgentRunnerDeps, 'db'>,
  { tenantId, runId, position, message }: RunRef & { position: number; message: string }
) {
  await runInUnitOfWork(deps.db, tenantId, async (uow) => {
    const plan = await planOf(uow, runId)
    const index = position - FIRST_ACTION_POSITION
    await recordStep(uow, runId, position, {
      kind: 'ACTION',
      name: actionName(plan.actions[index]!, index),
      status: 'FAILED',
      output: {},
      reason: message.slice(0, 500),
    })
  })
}
