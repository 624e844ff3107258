/**
 * @module A reconciliation run an operator asks for (`POST /v1/reconciliation/runs`; docs/payments.md,
 * "Reconciliation"): the same workflow as the daily schedule's, started through the workflow outbox with the
 * request's window (default: the configured length, ending now), so it runs once the request commits, or from the
 * outbox sweep after a crash. A window older than the processor's events is run all the same, and the answer says
 * from when its events are missing (event-retention.ts).
 *
 * One run of a tenant's at a time (issue 76): every run pages the platform's shared Stripe account, so a tenant asking
 * for runs faster than they end would spend everyone's Stripe rate limit. A request while the tenant's last requested
 * run is waiting to start or running answers 409 `reconciliation_run_in_progress` with that run's id; requests take
 * turns on a transaction lock of the tenant, so two at once start one run. And at most `runsPerHour` requested runs
 * of a tenant in any hour (RECONCILIATION_RUNS_PER_TENANT_PER_HOUR), counted from its outbox rows on the database's
 * clock: past it, 429 `rate_limited` with the seconds until the oldest of them is an hour old.
 */
import { randomUUID } from 'node:crypto'
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import {
  RECONCILIATION_KIND,
  RECONCILIATION_WORKFLOW,
  reconciliationSummary,
  requestedRunWorkflowId,
  type ReconciliationWorkflowInput,
} from '../../common/reconciliation/reconciliation-contract.ts'
import { rateLimited, reconciliationRunInProgress, validationError } from '../errors.ts'
import type { WorkflowOutbox } from '../workflow-runs/workflow-outbox.ts'
import { eventsUnavailableBefore } from './event-retention.ts'
import type { Client } from '@temporalio/client'
import { createReconciliationWorkflowCalls, type ReconciliationWorkflowCalls } from './reconciliation-workflow-calls.ts'
import { DAY_MS } from '../../common/time/calendar.ts'

/** The longest window one run compares: a month and a day. */
export const MAX_WINDOW_DAYS = 32

export interface RunRequest {
  createdFrom?: Date
  createdTo?: Date
}

export interface RequestedRun {
  workflowId: string
  createdFrom: Date
  createdTo: Date
  /**
   * The window's part before this instant has no processor events left (kept 30 days): the run checks it by listing
   * the objects created in it alone. Null when the events cover the whole window.
   */
  eventsUnavailableBefore: Date | null
}

/**
 * Starts a run for the unit's tenant.
 * @param windowHours - the default window's length (RECONCILIATION_WINDOW_HOURS)
 * @throws AppError `validation_error` for a window that ends before it starts or spans more than {@link MAX_WINDOW_DAYS},
 *   `reconciliation_run_in_progress` while the tenant's last requested run has not ended, `rate_limited` past
 *   `runsPerHour` requested runs in the last hour
 */
export async function requestReconciliationRun(
  uow: UnitOfWork,
  outbox: WorkflowOutbox,
  temporal: Client,
  request: RunRequest,
  options: { now: Date; windowHours: number; runsPerHour: number }
): Promise<RequestedRun> {
  const createdTo = request.createdTo ?? options.now
  const createdFrom = request.createdFrom ?? new Date(createdTo.getTime() - options.windowHours * 3_600_000)
  if (createdFrom >= createdTo) {
    throw validationError([{ path: 'createdTo', code: 'before_start', message: 'Must be after createdFrom.' }])
  }
  if (createdTo.getTime() - createdFrom.getTime() > MAX_WINDOW_DAYS * DAY_MS) {
    throw validationError([
      { path: 'createdFrom', code: 'range_too_long', message: `At most ${MAX_WINDOW_DAYS} days before createdTo.` },
    ])
  }
  const running = await runInProgress(uow, createReconciliationWorkflowCalls({ temporal }))
  if (running) throw reconciliationRunInProgress(running)
  await refuseBeyondHourlyRuns(uow, options.runsPerHour)
  const workflowId = requestedRunWorkflowId(uow.tenantId, randomUUID())
  const input: ReconciliationWorkflowInput = {
    tenantId: uow.tenantId,
    window: { from: createdFrom.toISOString(), to: createdTo.toISOString() },
  }
  await outbox.enqueue(uow, {
    workflowType: RECONCILIATION_WORKFLOW,
    workflowId,
    args: [input],
    searchAttributes: { TenantId: uow.tenantId, WorkflowKind: RECONCILIATION_KIND },
    summary: reconciliationSummary(uow.tenantId, true),
    details: `Window ${input.window?.from} to ${input.window?.to}; findings at GET /v1/reconciliation/findings.`,
  })
  const window = { from: createdFrom, to: createdTo }
  return {
    workflowId,
    createdFrom,
    createdTo,
    eventsUnavailableBefore: eventsUnavailableBefore(window, options.now) ?? null,
  }
}

/**
 * The workflow id of the tenant's last requested run while it waits to start (its outbox row) or runs (Temporal says),
 * under the tenant's lock, which this unit then holds until it commits its own run's row.
 */
async function runInProgress(
  uow: UnitOfWork,
  workflow: Pick<ReconciliationWorkflowCalls, 'runStatus'>
): Promise<string | undefined> {
  const last = async () => {
    await uow.tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`reconciliation-run:${uow.tenantId}`}))`
    return uow.tx.workflowOutbox.findFirst({
      where: { tenantId: uow.tenantId, workflowType: RECONCILIATION_WORKFLOW },
      orderBy: { createdAt: 'desc' },
      select: { workflowId: true, state: true },
    })
  }
  const seen = await last()
  if (!seen) return undefined
  if (seen.state === 'PENDING') return seen.workflowId
  // Asked holding no transaction; a run requested meanwhile is found by looking again under the lock.
  const status = await uow.release(() => workflow.runStatus(seen.workflowId))
  const now = await last()
  if (now && now.workflowId !== seen.workflowId) return now.workflowId
  return status === 'RUNNING' ? seen.workflowId : undefined
}

/** Refuses a request when the tenant has asked for `runsPerHour` runs in the last hour (under the tenant's lock). */
async function refuseBeyondHourlyRuns(uow: UnitOfWork, runsPerHour: number): Promise<void> {
  const [recent] = await uow.tx.$queryRaw<Array<{ runs: number; retryAfter: number | null }>>`
    SELECT count(*)::int AS runs,
           ceil(extract(epoch FROM min(created_at) + interval '1 hour' - now()))::int AS "retryAfter"
    FROM (SELECT created_at FROM workflow_outbox
          WHERE tenant_id = ${uow.tenantId} AND workflow_type = ${RECONCILIATION_WORKFLOW}
            AND created_at > now() - interval '1 hour'
          ORDER BY created_at DESC LIMIT ${runsPerHour}) latest`
  if (recent!.runs < runsPerHour) return
  throw rateLimited(
    Math.max(1, recent!.retryAfter ?? 1),
    `A tenant may ask for ${runsPerHour} reconciliation runs an hour (each pages the platform's shared Stripe ` +
      'account); the daily run needs no request.'
  )
}
