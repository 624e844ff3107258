/**
 * @module Scheduled agent workflows as Temporal Schedules: one schedule per workflow (`agent-schedule-<id>`) that
 * starts `agentRunWorkflow`, paused while the workflow is disabled, deleted with it or when its trigger stops being a
 * schedule. The database is the truth: every change bumps the workflow's `version`, and {@link syncPendingSchedules}
 * brings Temporal to each row whose `schedule_synced_version` lags (after the change commits, and from the
 * dispatcher's sweep, so a crash between the commit and the Temporal call is repaired).
 */
import type { Client } from '@temporalio/client'
import { TypedSearchAttributes } from '@temporalio/common'
import type { Db } from '../../../infra/db.ts'
import type { Logger } from '../../../infra/logger.ts'
import {
  AGENT_RUN_KIND,
  AGENT_RUN_WORKFLOW,
  agentScheduleId,
  scheduledRunWorkflowIdPrefix,
  type AgentRunInput,
} from '../../../common/agents/agent-run-contract.ts'
import { searchAttributeKeys } from '../../../common/search-attributes-contract.ts'
import type { AgentTrigger } from './agent-workflow-schema.ts'
import { createAgentWorkflowCalls, type AgentWorkflowCalls } from './agent-workflow-calls.ts'

export interface AgentSchedulesDeps {
  db: Db
  temporal: Client
  taskQueue: string
  logger: Logger
}

interface ScheduleRow {
  id: string
  tenantId: string
  enabled: boolean
  deletedAt: Date | null
  trigger: unknown
  version: number
}

type ScheduleTrigger = Extract<AgentTrigger, { type: 'schedule' }>

const isSchedule = (trigger: unknown): trigger is ScheduleTrigger =>
  typeof trigger === 'object' && trigger !== null && (trigger as { type?: unknown }).type === 'schedule'

/** The Temporal schedule for a row (ids only in the summary and attributes). */
function optionsOf(
  row: ScheduleRow,
  trigger: ScheduleTrigger,
  taskQueue: string
): Parameters<AgentWorkflowCalls['putSchedule']>[0] {
  const input: AgentRunInput = { tenantId: row.tenantId, agentWorkflowId: row.id, trigger: 'SCHEDULE' }
  return {
    scheduleId: agentScheduleId(row.id),
    spec: {
      ...(trigger.cron
        ? { cronExpressions: [trigger.cron] }
        : { intervals: [{ every: (trigger.intervalSeconds ?? 3600) * 1000 }] }),
      timezone: trigger.timeZone,
    },
    action: {
      type: 'startWorkflow',
      workflowType: AGENT_RUN_WORKFLOW,
      workflowId: scheduledRunWorkflowIdPrefix(row.id),
      taskQueue,
      args: [input],
      typedSearchAttributes: new TypedSearchAttributes([
        { key: searchAttributeKeys.TenantId, value: row.tenantId },
        { key: searchAttributeKeys.WorkflowKind, value: AGENT_RUN_KIND },
      ]),
      staticSummary: `Agent run (scheduled) of agent workflow ${row.id}`,
    },
    // A run still going when the next is due: skip the next rather than pile runs up.
    policies: { overlap: 'SKIP', catchupWindow: '10 minutes' },
    state: { paused: !row.enabled, note: row.enabled ? 'enabled' : 'agent workflow disabled' },
  }
}

/** Creates the schedule synchroniser. */
export function createAgentSchedules({ db, temporal, taskQueue, logger }: AgentSchedulesDeps) {
  const workflow = createAgentWorkflowCalls({ temporal, taskQueue })

  async function apply(row: ScheduleRow): Promise<void> {
    if (row.deletedAt || !isSchedule(row.trigger)) return workflow.removeSchedule(agentScheduleId(row.id))
    return workflow.putSchedule(optionsOf(row, row.trigger, taskQueue))
  }

  /**
   * Syncs every workflow whose schedule lags its version (all, or the given ids).
   * @returns how many were synced
   */
  async function syncPendingSchedules(ids?: string[]): Promise<number> {
    const rows = await db.$queryRaw<ScheduleRow[]>`
      SELECT id, tenant_id AS "tenantId", enabled, deleted_at AS "deletedAt", trigger, version FROM agent_workflows
      WHERE schedule_synced_version IS DISTINCT FROM version
      ORDER BY updated_at LIMIT 100`
    let synced = 0
    for (const row of rows.filter((r) => !ids || ids.includes(r.id))) {
      try {
        await apply(row)
        // Only the version synced: a change that landed meanwhile keeps the row pending.
        await db.agentWorkflow.updateMany({
          where: { id: row.id, version: row.version },
          data: { scheduleSyncedVersion: row.version },
        })
        synced++
      } catch (error) {
        logger.warn({ agentWorkflowId: row.id, err: error }, 'agent schedule not synced; the sweep retries')
      }
    }
    return synced
  }

  return { syncPendingSchedules }
}

export type AgentSchedules = ReturnType<typeof createAgentSchedules>
