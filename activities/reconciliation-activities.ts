/**
 * @module The activity of the reconciliation workflow: one tenant, one window, compared with the processor and every
 * difference recorded (domain/reconciliation/reconcile.ts). It reads the processor and writes only findings.
 */
import { ApplicationFailure, Context } from '@temporalio/activity'
import { ReconciliationFindingKind } from '../generated/prisma/enums.ts'
import type { ReconciliationSource } from '../domain/reconciliation/processor-snapshot.ts'
import { defaultWindow, reconcileTenant } from '../domain/reconciliation/reconcile.ts'
import type { Clock } from '../infra/clock.ts'
import type { Db } from '../infra/db.ts'
import type { Metrics } from '../infra/metrics/metrics-registry.ts'
import type {
  ReconciliationActivities,
  ReconciliationWorkflowInput,
  ReconciliationWorkflowOutcome,
} from '../common/reconciliation/reconciliation-contract.ts'

export interface ReconciliationActivityDeps {
  db: Db
  clock?: Clock
  /** The processor's side (Stripe), when one is configured. */
  reconciliation?: {
    source: ReconciliationSource
    /** Length of a scheduled run's window (RECONCILIATION_WINDOW_HOURS). */
    windowHours: number
  }
  metrics?: Metrics
}

/** Creates the reconciliation activity: the interface the reconciliation workflow proxies (its contract). */
export function createReconciliationActivities({
  db,
  clock = () => new Date(),
  reconciliation,
  metrics,
}: ReconciliationActivityDeps): ReconciliationActivities {
  // Every kind at 0 from the start, so an alert on the counter's increase sees a kind's first finding too.
  for (const kind of Object.values(ReconciliationFindingKind)) metrics?.reconciliationFindings.inc({ kind }, 0)
  return {
    /** Compares the tenant's window with the processor and records the differences. */
    async reconcileWithProcessor(
      input: ReconciliationWorkflowInput & { runId: string }
    ): Promise<ReconciliationWorkflowOutcome> {
      if (!reconciliation) {
        throw ApplicationFailure.create({
          message: 'No online payment processor is configured (ONLINE_PAYMENT_PROCESSOR): nothing to reconcile with.',
          nonRetryable: true,
        })
      }
      const window = input.window
        ? { from: new Date(input.window.from), to: new Date(input.window.to) }
        : defaultWindow(clock(), reconciliation.windowHours)
      const context = Context.current()
      const outcome = await reconcileTenant(
        {
          db,
          source: reconciliation.source,
          now: clock,
          onFindingCreated: (kind) => metrics?.reconciliationFindings.inc({ kind }),
          onPage: () => context.heartbeat(),
        },
        { tenantId: input.tenantId, window, runId: input.runId }
      )
      return { window: { from: window.from.toISOString(), to: window.to.toISOString() }, ...outcome }
    },
  }
}
