/**
 * @module The agent trigger dispatcher: turns committed events into agent runs, in the API process, with the same
 * two-outbox pattern as the webhook dispatcher (domain/webhooks/webhook-dispatcher.ts), on its own marker:
 * 1. **Fan-out.** Events with `agent_dispatched_at` null (every event starts so: `recordEvent` writes it in the causing
 *    transaction) are claimed `FOR UPDATE SKIP LOCKED`; one `agent_runs` row per enabled workflow of the tenant whose
 *    trigger lists the type (and that existed when the event happened) is inserted, `UNIQUE (agent_workflow_id,
 *    event_id)` skipping duplicates, and the events marked — one short transaction. A run beyond its tenant's
 *    hourly quota (agent-quotas.ts) is created already FAILED with the reason and its start settled
 *    (`workflow_started_at` set, `started_at` null): it is never started.
 * 2. **Start.** Runs with `workflow_started_at` null are claimed under a lease and started on Temporal under the
 *    deterministic id `agent-run-<workflow>-<event>` with `REJECT_DUPLICATE`, then marked.
 * Woken by the in-process "events recorded" signal and swept every interval (events the worker recorded, a crash
 * between any two steps, Temporal down). The sweep also syncs lagging Temporal schedules (agent-schedules.ts).
 */
import type { Client } from '@temporalio/client'
import type { SearchAttributePair } from '@temporalio/common'
import type { Db } from '../../../infra/db.ts'
import { startBackgroundLoop } from '../../../infra/background-loop.ts'
import type { Logger } from '../../../infra/logger.ts'
import { AGENT_RUN_KIND, eventRunWorkflowId, type AgentRunInput } from '../../../common/agents/agent-run-contract.ts'
import { searchAttributeKeys } from '../../../common/search-attributes-contract.ts'
import { onEventsRecorded } from '../../events/events-recorded-signal.ts'
import { newId } from '../../ids.ts'
import { admitWithinRunQuota, recordQuotaSkips, runQuotaReason } from './agent-quotas.ts'
import type { AgentSchedules } from './agent-schedules.ts'
import { createAgentWorkflowCalls, type AgentWorkflowCalls } from './agent-workflow-calls.ts'

export interface AgentTriggerDispatcherDeps {
  db: Db
  temporal: Client
  taskQueue: string
  logger: Logger
  schedules: AgentSchedules
  intervalMs: number
  /** AGENT_RUNS_PER_TENANT_PER_HOUR: runs beyond it are recorded skipped, not started. */
  runsPerTenantPerHour: number
}

const BATCH = 200
/** How long a wake-up by the events-recorded signal waits for the events committed with it (infra/background-loop.ts). */
const AGENT_WAKE_COALESCE_MS = 50
const LEASE_MS = 30_000

interface StartRow {
  id: string
  tenantId: string
  agentWorkflowId: string
  eventId: string
  eventType: string
  workflowId: string
  childId: string | null
}

/**
 * Claims a batch of events and creates their runs.
 * @param runsPerHour - each tenant's hourly run quota
 * @returns how many events were claimed, and runs created to be started
 */
async function fanOutBatch(db: Db, runsPerHour: number): Promise<{ claimed: number; runs: number }> {
  return db.$transaction(async (tx) => {
    const events = await tx.$queryRaw<
      Array<{ id: string; tenant_id: string; type: string; created_at: Date; data: unknown }>
    >`
      SELECT id, tenant_id, type, created_at, data FROM events
      WHERE agent_dispatched_at IS NULL ORDER BY created_at LIMIT ${BATCH} FOR UPDATE SKIP LOCKED`
    if (events.length === 0) return { claimed: 0, runs: 0 }
    const workflows = await tx.agentWorkflow.findMany({
      where: {
        tenantId: { in: [...new Set(events.map((e) => e.tenant_id))] },
        enabled: true,
        deletedAt: null,
        eventTypes: { hasSome: [...new Set(events.map((e) => e.type))] },
      },
      select: { id: true, tenantId: true, eventTypes: true, createdAt: true },
    })
    const rows = events.flatMap((event) =>
      workflows
        // A workflow reacts to what happens after it was created, never to the tenant's history.
        .filter(
          (w) => w.tenantId === event.tenant_id && w.eventTypes.includes(event.type) && w.createdAt <= event.created_at
        )
        .map((w) => ({
          id: newId('agentRun'),
          tenantId: event.tenant_id,
          agentWorkflowId: w.id,
          workflowId: eventRunWorkflowId(w.id, event.id),
          triggerType: 'EVENT',
          eventId: event.id,
          eventType: event.type,
        }))
    )
    const { admitted, skipped } = await admitWithinRunQuota(tx, rows, runsPerHour)
    const runs =
      admitted.length > 0 ? (await tx.agentRun.createMany({ data: admitted, skipDuplicates: true })).count : 0
    if (skipped.length > 0) {
      const reason = runQuotaReason(runsPerHour)
      const now = new Date()
      // Settled, never started: out of the start outbox (`workflow_started_at`), with `started_at` left null.
      const done = {
        status: 'FAILED' as const,
        error: reason,
        summary: reason,
        completedAt: now,
        workflowStartedAt: now,
      }
      await tx.agentRun.createMany({ data: skipped.map((run) => ({ ...run, ...done })), skipDuplicates: true })
      await recordQuotaSkips(
        tx,
        skipped.map((run) => run.id),
        reason
      )
    }
    await tx.event.updateMany({
      where: { id: { in: events.map((e) => e.id) } },
      data: { agentDispatchedAt: new Date() },
    })
    return { claimed: events.length, runs }
  })
}

/** Claims runs nobody has started, under a lease. */
async function claimUnstarted(db: Db): Promise<StartRow[]> {
  return db.$queryRaw<StartRow[]>`
    UPDATE agent_runs r SET start_lease_until = now() + make_interval(secs => ${LEASE_MS / 1000})
    FROM events e
    WHERE r.id IN (
      SELECT id FROM agent_runs
      WHERE workflow_started_at IS NULL AND trigger_type = 'EVENT'
        AND (start_lease_until IS NULL OR start_lease_until < now())
      ORDER BY created_at LIMIT ${BATCH} FOR UPDATE SKIP LOCKED)
      AND e.id = r.event_id
    RETURNING r.id, r.tenant_id AS "tenantId", r.agent_workflow_id AS "agentWorkflowId", r.event_id AS "eventId",
      r.event_type AS "eventType", r.workflow_id AS "workflowId", e.data->>'childId' AS "childId"`
}

/** Starts one run's workflow (once: a started run's id is refused) and records it started. */
async function startRun(db: Db, workflow: AgentWorkflowCalls, row: StartRow): Promise<void> {
  const input: AgentRunInput = {
    tenantId: row.tenantId,
    agentWorkflowId: row.agentWorkflowId,
    runId: row.id,
    trigger: 'EVENT',
    eventId: row.eventId,
  }
  // Ids only (docs/conventions.md): the event's child id is an id, never a name.
  const attributes: SearchAttributePair[] = [
    { key: searchAttributeKeys.TenantId, value: row.tenantId },
    { key: searchAttributeKeys.WorkflowKind, value: AGENT_RUN_KIND },
    { key: searchAttributeKeys.EventId, value: row.eventId },
    { key: searchAttributeKeys.EventType, value: row.eventType },
    ...(row.childId ? [{ key: searchAttributeKeys.ChildId, value: row.childId }] : []),
  ]
  // Started before: the one run of this (workflow, event) exists, which is all this step promises.
  await workflow.startRun({
    workflowId: row.workflowId,
    input,
    attributes,
    summary: `Agent run ${row.id} of agent workflow ${row.agentWorkflowId} on ${row.eventType} ${row.eventId}`,
    details: `Steps, outputs and refusals: \`GET /v1/agent-runs/${row.id}\``,
  })
  await db.agentRun.update({ where: { id: row.id }, data: { workflowStartedAt: new Date() } })
}

/** Creates the dispatcher. */
export function createAgentTriggerDispatcher(deps: AgentTriggerDispatcherDeps) {
  const { db, logger } = deps
  const workflow = createAgentWorkflowCalls(deps)

  /**
   * Fans out every pending event and starts the unstarted runs: every one when `sweep`, else only if this fan-out made
   * some (runs are made only by fan-outs, so the others are another process's, being started, or a failed start's,
   * which the sweep retries). @returns events fanned out and runs started
   */
  async function dispatchPending(sweep = true): Promise<{ fannedOut: number; started: number }> {
    let fannedOut = 0
    let created = 0
    // recordEvent marks the events no workflow listens to: what is left here is (nearly) all events with runs to make.
    for (;;) {
      const { claimed, runs } = await fanOutBatch(db, deps.runsPerTenantPerHour)
      fannedOut += claimed
      created += runs
      if (claimed < BATCH) break
    }
    let started = 0
    while (sweep || created > 0) {
      const rows = await claimUnstarted(db)
      const results = await Promise.allSettled(rows.map((row) => startRun(db, workflow, row)))
      for (const [index, result] of results.entries()) {
        if (result.status === 'fulfilled') started++
        else logger.warn({ agentRunId: rows[index]!.id, err: result.reason }, 'agent run start deferred to the sweep')
      }
      if (rows.length < BATCH) break
    }
    return { fannedOut, started }
  }

  /** Listens and sweeps; returns a function that stops both and awaits the run in progress. */
  function start(): () => Promise<void> {
    return startBackgroundLoop({
      run: async (sweep) => {
        await dispatchPending(sweep)
        if (sweep) await deps.schedules.syncPendingSchedules()
      },
      intervalMs: deps.intervalMs,
      subscribe: onEventsRecorded,
      // Every committed event signals: at tens of bookings a second, one claim transaction (six statements on the
      // API's pool, the embedded database's only connection) per event was a large part of a booking's database work
      // (issue 22). Events of the same 50 ms share one; an agent run starts that much later.
      coalesceMs: AGENT_WAKE_COALESCE_MS,
      onError: (error) => logger.error({ err: error }, 'agent trigger dispatch failed'),
    })
  }

  return { dispatchPending, start }
}
