/**
 * @module A reconciliation run an operator asks for (`POST /v1/reconciliation/runs`; docs/payments.md,
 * "Reconciliation"): the same workflow as the daily schedule's, started through the workflow outbox with the
 * request's window (default: the configured length, ending now), so it runs once the request commits, or from the
 * outbox sweep after a crash. A window older than the processor's events is run all the same, and the answer says
 * from when its events are missing (event-retention.ts).
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
import { validationError } from '../errors.ts'
import type { WorkflowOutbox } from '../workflow-runs/workflow-outbox.ts'
import { eventsUnavailableBefore } from './event-retention.ts'

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
 * @throws AppError `validation_error` for a window that ends before it starts or spans more than {@link MAX_WINDOW_DAYS}
 */
export async function requestReconciliationRun(
  uow: UnitOfWork,
  outbox: WorkflowOutbox,
  request: RunRequest,
  options: { now: Date; windowHours: number }
): Promise<RequestedRun> {
  const createdTo = request.createdTo ?? options.now
  const createdFrom = request.createdFrom ?? new Date(createdTo.getTime() - options.windowHours * 3_600_000)
  if (createdFrom >= createdTo) {
    throw validationError([{ path: 'createdTo', code: 'before_start', message: 'Must be after createdFrom.' }])
  }
  if (createdTo.getTime() - createdFrom.getTime() > MAX_WINDOW_DAYS * 86_400_000) {
    throw validationError([
      { path: 'createdFrom', code: 'range_too_long', message: `At most ${MAX_WINDOW_DAYS} days before createdTo.` },
    ])
  }
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
