/**
 * @module A run's first step: finds (event) or creates (schedule) its row, freezes the plan, marks the run RUNNING
 * (agent-run-plan.ts says what the steps of a run share). A run whose workflow was disabled or deleted meanwhile, or
 * a scheduled run beyond its tenant's hourly quota (agent-quotas.ts), is skipped instead: a SKIPPED plan step with
 * the reason, the run FAILED.
 */
import type { AgentRunInput } from '../../../common/agents/agent-run-contract.ts'
import { Prisma } from '../../../generated/prisma/client.ts'
import { runInUnitOfWork, type UnitOfWork } from '../../../infra/unit-of-work.ts'
import { grantHoldsSql } from '../../auth/credential-grants.ts'
import { newId } from '../../ids.ts'
import type { AgentAction } from './action-catalogue.ts'
import { clockOf, findPlan, type AgentRunnerDeps, type BegunRun } from './agent-run-plan.ts'
import { FIRST_ACTION_POSITION, PLAN_POSITION, recordStep } from './agent-run-store.ts'
import { RUN_QUOTA_STEP, scheduledRunBeyondQuota } from './agent-quotas.ts'

/**
 * Why a run may not act on its workflow's grant: the client, user or key that configured the workflow no longer grants
 * it `agents` (revoked, disabled, demoted or expired: domain/auth/credential-grants.ts); undefined while it does.
 */
async function grantLapsed(uow: UnitOfWork, grantor: string, now: Date): Promise<string | undefined> {
  const [row] = await uow.query<{ holds: boolean }>(
    Prisma.sql`SELECT ${grantHoldsSql(Prisma.sql`${uow.tenantId}::text`, Prisma.sql`${grantor}::text`, now, 'agents')} AS holds`
  )
  return row?.holds
    ? undefined
    : `The agent workflow's grantor (${grantor}) no longer grants it: revoked, disabled, or without the agents ` +
        'scope. Someone who holds it can take the workflow over by updating it.'
}

/** Finds (event) or creates (schedule) the run row, freezes the plan, marks the run RUNNING. */
export async function beginAgentRun(
  deps: Pick<AgentRunnerDeps, 'db' | 'now' | 'runsPerTenantPerHour'>,
  input: AgentRunInput,
  workflowId: string
): Promise<BegunRun> {
  const now = clockOf(deps)
  return runInUnitOfWork(deps.db, input.tenantId, async (uow) => {
    if (!input.runId) {
      await uow.tx.agentRun.createMany({
        data: [
          {
            id: newId('agentRun'),
            tenantId: uow.tenantId,
            agentWorkflowId: input.agentWorkflowId,
            workflowId,
            triggerType: 'SCHEDULE',
            workflowStartedAt: now(),
          },
        ],
        skipDuplicates: true,
      })
    }
    const run = await uow.tx.agentRun.findFirstOrThrow({
      where: input.runId ? { id: input.runId, tenantId: uow.tenantId } : { workflowId, tenantId: uow.tenantId },
    })
    let plan = await findPlan(uow, run.id)
    if (!plan) {
      const row = await uow.tx.agentWorkflow.findFirst({
        where: { id: input.agentWorkflowId, tenantId: uow.tenantId },
      })
      // A scheduled run is started by its Temporal schedule, not by the dispatcher that keeps event runs to the quota.
      const beyondQuota =
        row && !input.runId ? await scheduledRunBeyondQuota(uow, run.id, deps.runsPerTenantPerHour) : undefined
      const lapsed = row ? await grantLapsed(uow, row.createdBy, now()) : undefined
      if (!row || row.deletedAt || !row.enabled || beyondQuota || lapsed) {
        const reason =
          !row || row.deletedAt
            ? 'The agent workflow was deleted before the run began.'
            : !row.enabled
              ? 'The agent workflow is disabled.'
              : (lapsed ?? beyondQuota!)
        await recordStep(uow, run.id, PLAN_POSITION, {
          kind: 'PLAN',
          name: reason === beyondQuota ? RUN_QUOTA_STEP : reason === lapsed ? 'grant' : 'configuration',
          status: 'SKIPPED',
          output: {},
          reason,
        })
        await uow.tx.agentRun.update({
          where: { id: run.id },
          data: { status: 'FAILED', error: reason, summary: reason, completedAt: now() },
        })
        return { runId: run.id, positions: [], skipped: reason }
      }
      plan = {
        agentWorkflowId: row.id,
        version: row.version,
        name: row.name,
        instructions: row.instructions,
        assistantId: row.assistantId,
        tools: row.tools,
        actions: row.actions as AgentAction[],
        creatorScopes: row.creatorScopes,
      }
      await recordStep(uow, run.id, PLAN_POSITION, {
        kind: 'PLAN',
        name: 'configuration',
        status: 'SUCCEEDED',
        output: { ...plan },
      })
    }
    const skipped = run.status === 'FAILED' && run.completedAt ? (run.error ?? 'skipped') : undefined
    if (!skipped)
      await uow.tx.agentRun.update({
        where: { id: run.id },
        data: { status: 'RUNNING', startedAt: run.startedAt ?? now() },
      })
    return {
      runId: run.id,
      positions: skipped ? [] : plan.actions.map((_, index) => FIRST_ACTION_POSITION + index),
      ...(skipped ? { skipped } : {}),
    }
  })
}
