/**
 * @module A run's context: loaded within the assistant's scope and recorded (agent-run-plan.ts says what the steps of a run share).
 */
import { runInUnitOfWork } from '../../../infra/unit-of-work.ts'
import { loadAgentContext, type AgentContext } from './agent-context.ts'
import { planOf, type AgentRunnerDeps, type RunRef } from './agent-run-plan.ts'
import { CONTEXT_POSITION, recordStep, stepAt } from './agent-run-store.ts'

/** Loads the context within the assistant's scope and records it. */
export async function recordRunContext(
  deps: Pick<AgentRunnerDeps, 'db' | 'ai'>,
  { tenantId, runId }: RunRef
): Promise<{ inScope: boolean }> {
  return runInUnitOfWork(deps.db, tenantId, async (uow) => {
    const done = await stepAt(uow, runId, CONTEXT_POSITION)
    if (done) return { inScope: (done.output as unknown as AgentContext).inScope }
    const plan = await planOf(uow, runId)
    const run = await uow.tx.agentRun.findFirstOrThrow({ where: { id: runId, tenantId } })
    const assistant = await uow.tx.assistant.findFirst({
      where: { id: plan.assistantId, tenantId },
      select: { id: true, locationId: true, tools: true },
    })
    if (!assistant) {
      await recordStep(uow, runId, CONTEXT_POSITION, {
        kind: 'CONTEXT',
        name: 'context',
        status: 'REFUSED',
        reason: 'The assistant was deleted.',
        output: {
          trigger: run.triggerType === 'SCHEDULE' ? 'SCHEDULE' : 'EVENT',
          subject: {},
          inScope: false,
          outOfScopeReason: 'The assistant was deleted.',
          familyClientIds: [],
          facts: [],
          passages: [],
        } satisfies AgentContext,
      })
      return { inScope: false }
    }
    const loaded = await loadAgentContext(uow, deps.ai, {
      trigger: run.triggerType === 'SCHEDULE' ? 'SCHEDULE' : 'EVENT',
      ...(run.eventId ? { eventId: run.eventId } : {}),
      assistant,
      agentTools: plan.tools,
      instructions: plan.instructions,
    })
    await recordStep(uow, runId, CONTEXT_POSITION, {
      kind: 'CONTEXT',
      name: 'context',
      status: loaded.inScope ? 'SUCCEEDED' : 'REFUSED',
      output: loaded as unknown as Record<string, unknown>,
      ...(loaded.outOfScopeReason ? { reason: loaded.outOfScopeReason } : {}),
    })
    return { inScope: loaded.inScope }
  })
}
