/**
 * @module A run's last step: its outcome and summary, from its steps (agent-run-plan.ts says what the steps of a run share).
 */
import type { AgentRunResult } from '../../../common/agents/agent-run-contract.ts'
import { runInUnitOfWork } from '../../../infra/unit-of-work.ts'
import { clockOf, type AgentRunnerDeps, type RunRef } from './agent-run-plan.ts'

/** Sets the run's outcome and summary from its steps. */
export async function completeAgentRun(
  deps: Pick<AgentRunnerDeps, 'db' | 'now'>,
  { tenantId, runId }: RunRef
): Promise<AgentRunResult> {
  const now = clockOf(deps)
  return runInUnitOfWork(deps.db, tenantId, async (uow) => {
    const run = await uow.tx.agentRun.findFirstOrThrow({
      where: { id: runId, tenantId },
      include: { steps: { orderBy: { position: 'asc' } } },
    })
    const actions = run.steps.filter((step) => step.kind === 'ACTION')
    const count = (status: string) => actions.filter((step) => step.status === status).length
    const troubled = actions.filter((step) => step.status === 'REFUSED' || step.status === 'FAILED')
    const status = troubled.length === 0 ? 'SUCCEEDED' : troubled.length === actions.length ? 'FAILED' : 'PARTIAL'
    const parts = [
      `${count('SUCCEEDED')} succeeded`,
      `${count('SKIPPED')} skipped`,
      `${count('REFUSED')} refused`,
      `${count('FAILED')} failed`,
    ]
    const summary = `${actions.length} action(s): ${parts.join(', ')}${troubled.length ? ` (${troubled.map((s) => `${s.name}: ${s.status}`).join('; ')})` : ''}.`
    if (!run.completedAt) {
      await uow.tx.agentRun.update({ where: { id: run.id }, data: { status, summary, completedAt: now() } })
    }
    return {
      runId,
      status: run.completedAt ? (run.status as AgentRunResult['status']) : status,
      summary: run.completedAt ? (run.summary ?? summary) : summary,
    }
  })
}
