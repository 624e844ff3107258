/**
 * @module A tenant's agent quotas (docs/rate-limits.md, "Quotas"; security review finding 7): enabled agent workflows
 * (AGENT_WORKFLOWS_PER_TENANT), refused at creation and at enabling with 409 `quota_exceeded`; and agent runs per
 * rolling hour (AGENT_RUNS_PER_TENANT_PER_HOUR). A run beyond that one is not started: it is recorded FAILED, with a
 * SKIPPED plan step named `quota` and the reason, which the centre reads at GET /v1/agent-runs/{id}.
 *
 * **What counts as a run**: a run of the tenant created in the last hour, unless it was skipped (FAILED without ever
 * beginning: by this quota, or because its workflow was disabled or deleted first). So a tenant held at its quota
 * gets runs again as its earlier ones age out, not never. Every check counts under a transaction-scoped lock of the
 * tenant, so two dispatchers (or a dispatcher and a schedule's run) never both take the last place.
 */
import { Prisma } from '../../../generated/prisma/client.ts'
import type { Tx } from '../../../infra/db.ts'
import type { UnitOfWork } from '../../../infra/unit-of-work.ts'
import { quotaExceeded } from '../../errors.ts'
import { newId } from '../../ids.ts'
import { PLAN_POSITION } from './agent-run-store.ts'

/** The name of the plan step a run skipped by the quota records. */
export const RUN_QUOTA_STEP = 'quota'

/** The condition, on `agent_runs` as `r`, of a run that counts against the hourly quota (also the metric's). */
export const COUNTED_RUN = Prisma.sql`r.created_at > now() - interval '1 hour' AND (r.status <> 'FAILED' OR r.started_at IS NOT NULL)`

/**
 * Refuses one more enabled workflow beyond the tenant's quota. Call it in the transaction that creates or enables it.
 * @throws AppError 409 `quota_exceeded` naming the quota and its limit
 */
export async function checkEnabledWorkflowQuota({ tx, tenantId }: UnitOfWork, maxEnabled: number): Promise<void> {
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`agent-workflows:${tenantId}`}))`
  const enabled = await tx.agentWorkflow.count({ where: { tenantId, enabled: true, deletedAt: null } })
  if (enabled >= maxEnabled) {
    throw quotaExceeded(
      `The tenant has ${enabled} enabled agent workflows; its quota is ${maxEnabled} (AGENT_WORKFLOWS_PER_TENANT). ` +
        'Disable or delete one first; a workflow may be created disabled.'
    )
  }
}

/** Why a run was not started. */
export const runQuotaReason = (limit: number) =>
  `Not started: the tenant's agent runs of the last hour reached its quota of ${limit} ` +
  '(AGENT_RUNS_PER_TENANT_PER_HOUR). Runs start again as earlier runs age out of the hour.'

/** Locks the tenants' run quotas (in a stable order, so two lockers never wait on each other crosswise). */
async function lockRunQuotas(tx: Tx, tenantIds: readonly string[]): Promise<void> {
  for (const tenantId of [...new Set(tenantIds)].sort())
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`agent-runs:${tenantId}`}))`
}

/** The runs each tenant has used of its hour, less `excludingRunId`'s. One grouped query. */
async function runsInLastHour(tx: Tx, tenantIds: readonly string[], excludingRunId = ''): Promise<Map<string, number>> {
  const rows = await tx.$queryRaw<Array<{ tenant_id: string; runs: bigint }>>`
    SELECT r.tenant_id, count(*) AS runs FROM agent_runs r
    WHERE r.tenant_id = ANY(${[...new Set(tenantIds)]}::text[]) AND r.id <> ${excludingRunId} AND ${COUNTED_RUN}
    GROUP BY r.tenant_id`
  return new Map(rows.map((row) => [row.tenant_id, Number(row.runs)]))
}

/** A run the dispatcher is about to create. */
interface NewRun {
  id: string
  tenantId: string
}

/**
 * Splits the runs a fan-out is about to create into those within their tenant's hour and those beyond it, in the
 * order given (the events' order). Call it in the fan-out's transaction, which then creates both.
 * @param limit - AGENT_RUNS_PER_TENANT_PER_HOUR
 */
export async function admitWithinRunQuota<R extends NewRun>(
  tx: Tx,
  runs: readonly R[],
  limit: number
): Promise<{ admitted: R[]; skipped: R[] }> {
  const admitted: R[] = []
  const skipped: R[] = []
  if (runs.length === 0) return { admitted, skipped }
  const tenantIds = runs.map((run) => run.tenantId)
  await lockRunQuotas(tx, tenantIds)
  const used = await runsInLastHour(tx, tenantIds)
  for (const run of runs) {
    const count = used.get(run.tenantId) ?? 0
    if (count >= limit) skipped.push(run)
    else {
      used.set(run.tenantId, count + 1)
      admitted.push(run)
    }
  }
  return { admitted, skipped }
}

/**
 * Records the plan step of runs skipped by the quota (whose rows the caller has just written FAILED with the reason).
 * Runs a duplicate event left uncreated are passed over.
 */
export async function recordQuotaSkips(tx: Tx, runIds: readonly string[], reason: string): Promise<void> {
  if (runIds.length === 0) return
  const runs = await tx.agentRun.findMany({ where: { id: { in: [...runIds] } }, select: { id: true, tenantId: true } })
  await tx.agentRunStep.createMany({
    data: runs.map((run) => ({
      id: newId('agentRunStep'),
      tenantId: run.tenantId,
      runId: run.id,
      position: PLAN_POSITION,
      kind: 'PLAN',
      name: RUN_QUOTA_STEP,
      status: 'SKIPPED' as const,
      output: {},
      reason,
    })),
    skipDuplicates: true,
  })
}

/**
 * Whether a scheduled run (started by its Temporal schedule, not by the dispatcher) is beyond its tenant's hour:
 * the reason when it is. Call it in the transaction that begins the run.
 * @param limit - AGENT_RUNS_PER_TENANT_PER_HOUR; undefined: none
 */
export async function scheduledRunBeyondQuota(
  { tx, tenantId }: UnitOfWork,
  runId: string,
  limit: number | undefined
): Promise<string | undefined> {
  if (limit === undefined) return undefined
  await lockRunQuotas(tx, [tenantId])
  const used = (await runsInLastHour(tx, [tenantId], runId)).get(tenantId) ?? 0
  return used >= limit ? runQuotaReason(limit) : undefined
}
