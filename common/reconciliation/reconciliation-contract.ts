/**
 * @module The contract of the reconciliation workflow (docs/payments.md, "Reconciliation"), shared by the API (its
 * daily Temporal Schedule per tenant, and runs an operator asks for) and the workflow: ids and instants only.
 */

export const RECONCILIATION_WORKFLOW = 'reconciliationWorkflow'
export const RECONCILIATION_KIND = 'reconciliation'

/** The tenant's daily schedule. Its runs' ids are this id and the scheduled instant (Temporal appends it). */
export const reconciliationScheduleId = (tenantId: string) => `reconciliation-${tenantId}`

/** A run an operator asked for (`POST /v1/reconciliation/runs`); `requestId` makes each its own. */
export const requestedRunWorkflowId = (tenantId: string, requestId: string) =>
  `reconciliation-${tenantId}-requested-${requestId}`

/** What a run's summary says in the Temporal UI: ids only. */
export const reconciliationSummary = (tenantId: string, requested: boolean) =>
  `Reconciliation with the payment processor of tenant ${tenantId}${requested ? ' (asked for)' : ' (daily)'}`

export interface ReconciliationWorkflowInput {
  tenantId: string
  /**
   * The `created` window to compare (ISO instants, `to` exclusive); absent for scheduled runs, which take the
   * worker's configured window ending half an hour before the run (RECONCILIATION_WINDOW_HOURS).
   */
  window?: { from: string; to: string }
}

export interface ReconciliationWorkflowOutcome {
  window: { from: string; to: string }
  checked: { payments: number; refunds: number; disputes: number; transfers: number }
  findings: number
  newFindings: number
  /** Differences repaired before the findings were recorded (issue 46); absent from runs before repairs existed. */
  repaired?: number
  /**
   * The processor keeps its events 30 days: the window's part before this instant (ISO) was checked by listing the
   * objects created in it alone, and a change then to an object created before the window was not looked for
   * (issue 58). Absent when the events covered the whole window.
   */
  eventsUnavailableBefore?: string
}

/** One line for the run's current details in the Temporal UI. */
export function describeOutcome(outcome: ReconciliationWorkflowOutcome): string {
  const { payments, refunds, disputes, transfers } = outcome.checked
  return (
    `Window ${outcome.window.from} to ${outcome.window.to} · checked ${payments} payments, ${refunds} refunds, ` +
    `${disputes} disputes, ${transfers} transfers · ${outcome.findings} differences (${outcome.newFindings} new); ` +
    'GET /v1/reconciliation/findings' +
    (outcome.eventsUnavailableBefore === undefined
      ? ''
      : ` · no processor events before ${outcome.eventsUnavailableBefore} (kept 30 days): that part checked by ` +
        'listing the objects created in it only')
  )
}

/**
 * The reconciliation activity (activities/reconciliation-activities.ts) as the workflow proxies it. The factory
 * declares that it returns this interface, so the compiler checks the two agree. Names, arguments and results are in
 * recorded histories: changing one breaks the replay of runs in flight.
 */
export interface ReconciliationActivities {
  /** Compares the tenant's window with the processor and records the differences. */
  reconcileWithProcessor: (
    input: ReconciliationWorkflowInput & { runId: string }
  ) => Promise<ReconciliationWorkflowOutcome>
}
