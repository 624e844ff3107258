/**
 * @module The daily reconciliation of each tenant with online payments, as Temporal Schedules (docs/payments.md,
 * "Reconciliation"): one per tenant, `reconciliation-<tenantId>`, starting `reconciliationWorkflow` on
 * RECONCILIATION_SCHEDULE. A tenant's first CARD_ONLINE payment adds its `reconciliation_schedules` row (a database
 * trigger, whatever path writes the payment); the API's loop creates the schedule of every row whose `synced_spec`
 * is not the configured cron and task queue (a new tenant, or a changed configuration), at start and then every
 * sweep interval. Creating finds an existing schedule and updates it, so any number of API instances may do this.
 */
import type { Client, ScheduleOptions } from '@temporalio/client'
import { TypedSearchAttributes } from '@temporalio/common'
import { startBackgroundLoop } from '../../infra/background-loop.ts'
import type { Db } from '../../infra/db.ts'
import type { Logger } from '../../infra/logger.ts'
import {
  RECONCILIATION_KIND,
  RECONCILIATION_WORKFLOW,
  reconciliationScheduleId,
  reconciliationSummary,
  type ReconciliationWorkflowInput,
} from '../../common/reconciliation/reconciliation-contract.ts'
import { searchAttributeKeys } from '../../common/search-attributes-contract.ts'
import { createReconciliationWorkflowCalls } from './reconciliation-workflow-calls.ts'

export interface ReconciliationSchedulesDeps {
  db: Db
  temporal: Client
  taskQueue: string
  /** RECONCILIATION_SCHEDULE: a cron spec in UTC. */
  cron: string
  logger: Logger
}

const BATCH = 100

/** The schedule of one tenant (ids only in its summary and attributes). */
export function reconciliationScheduleOptions(tenantId: string, cron: string, taskQueue: string): ScheduleOptions {
  const input: ReconciliationWorkflowInput = { tenantId }
  return {
    scheduleId: reconciliationScheduleId(tenantId),
    // Spread over half an hour: every tenant on one cron would ask the processor's API at the same instant.
    spec: { cronExpressions: [cron], jitter: '30 minutes' },
    action: {
      type: 'startWorkflow',
      workflowType: RECONCILIATION_WORKFLOW,
      workflowId: reconciliationScheduleId(tenantId),
      taskQueue,
      args: [input],
      typedSearchAttributes: new TypedSearchAttributes([
        { key: searchAttributeKeys.TenantId, value: tenantId },
        { key: searchAttributeKeys.WorkflowKind, value: RECONCILIATION_KIND },
      ]),
      staticSummary: reconciliationSummary(tenantId, false),
      staticDetails:
        'Compares payments, refunds, disputes and payout transfers; findings at GET /v1/reconciliation/findings.',
    },
    // A run still going when the next is due: skip the next (windows overlap); a worker down at the hour catches up
    // within the day.
    policies: { overlap: 'SKIP', catchupWindow: '1 day' },
    memo: { tenantId },
  }
}

/** What `synced_spec` records: the schedule changes when either changes. */
const specOf = (cron: string, taskQueue: string) => `${cron} on ${taskQueue}`

/**
 * Creates or updates the schedules that lag the configuration.
 * @returns how many were synced
 */
export async function syncReconciliationSchedules(deps: ReconciliationSchedulesDeps): Promise<number> {
  const { db, taskQueue, cron, logger } = deps
  const workflow = createReconciliationWorkflowCalls(deps)
  const spec = specOf(cron, taskQueue)
  // The platform's own connection: every tenant's rows (the table is under row-level security for tenants).
  const rows = await db.$queryRaw<Array<{ tenantId: string }>>`
    SELECT tenant_id AS "tenantId" FROM reconciliation_schedules
    WHERE synced_spec IS DISTINCT FROM ${spec} ORDER BY created_at LIMIT ${BATCH}`
  let synced = 0
  for (const { tenantId } of rows) {
    try {
      await workflow.ensureSchedule(reconciliationScheduleOptions(tenantId, cron, taskQueue))
      await db.reconciliationSchedule.update({ where: { tenantId }, data: { syncedSpec: spec, syncedAt: new Date() } })
      synced++
    } catch (error) {
      logger.warn({ tenantId, err: error }, 'reconciliation schedule not created; the next sweep retries')
    }
  }
  return synced
}

/**
 * Keeps the schedules in step, at start and every `intervalMs`; nothing without an online processor.
 * @returns a function that stops the loop
 */
export function keepReconciliationSchedules(
  deps: ReconciliationSchedulesDeps & { enabled: boolean; intervalMs: number }
): () => Promise<void> {
  if (!deps.enabled) return async () => undefined
  return startBackgroundLoop({
    run: async () => {
      await syncReconciliationSchedules(deps)
    },
    intervalMs: deps.intervalMs,
    onError: (error) => deps.logger.warn({ err: error }, 'reconciliation schedules not synced; the next sweep retries'),
  })
}
