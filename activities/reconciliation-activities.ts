/**
 * @module The activity of the reconciliation workflow: one tenant, one window, compared with the processor, what is
 * safe to repair repaired through the rules of the processor's own events, and every other difference recorded
 * (domain/reconciliation/reconcile.ts). It only reads the processor.
 */
import { ApplicationFailure, Context } from '@temporalio/activity'
import { ReconciliationFindingKind } from '../generated/prisma/enums.ts'
import type { OnlinePaymentProcessor } from '../domain/payments/online-processor.ts'
import { createPaymentFlows } from '../domain/payments/payment-flows.ts'
import { applyProcessorEvent } from '../domain/payments/processor-events.ts'
import type { ReconciliationSource } from '../domain/reconciliation/processor-snapshot.ts'
import { defaultWindow, reconcileTenant, type RepairRun } from '../domain/reconciliation/reconcile.ts'
import type { Repair } from '../domain/reconciliation/repairs.ts'
import { createWorkflowOutbox } from '../domain/workflow-runs/workflow-outbox.ts'
import { createLogger } from '../infra/logger.ts'
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
  /** The online processor, whose events' rules apply a repair; without it, a run repairs nothing. */
  online?: OnlinePaymentProcessor
}

/** Creates the reconciliation activity: the interface the reconciliation workflow proxies (its contract). */
export function createReconciliationActivities({
  db,
  clock = () => new Date(),
  reconciliation,
  metrics,
  online,
}: ReconciliationActivityDeps): ReconciliationActivities {
  const logger = createLogger('info', 'reconciliation')
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
      // A repair is the processor's event, rebuilt from the object as the processor holds it now and applied by the
      // same rules (once per run and object: its id names both); a success it applies may start a refund's workflow.
      // It occurred when the object was read, not now: stamped with the run's clock, a real event Stripe created
      // after the read but delivered after the repair looked older than it and was dropped as stale (issue 58).
      const flows = createPaymentFlows(
        createWorkflowOutbox({ db, temporal: context.client, taskQueue: context.info.taskQueue, logger })
      )
      const repair =
        online &&
        (async ({ objectId, event }: Repair, { runId, readAt }: RepairRun) => {
          const envelope = {
            eventId: `reconciliation:${runId}:${objectId}`,
            type: 'reconciliation.repair',
            livemode: online.livemode,
            account: null,
            occurredAt: readAt,
            objectId,
          }
          const ctx = { db, processor: online, flows, now: clock() }
          const applied = await applyProcessorEvent(ctx, { envelope, event })
          return applied.outcome
        })
      const outcome = await reconcileTenant(
        {
          db,
          source: reconciliation.source,
          now: clock,
          onFindingCreated: (kind) => metrics?.reconciliationFindings.inc({ kind }),
          onPage: () => context.heartbeat(),
          ...(repair ? { repair } : {}),
        },
        { tenantId: input.tenantId, window, runId: input.runId }
      )
      const { eventsUnavailableBefore, ...counts } = outcome
      return {
        window: { from: window.from.toISOString(), to: window.to.toISOString() },
        ...counts,
        ...(eventsUnavailableBefore ? { eventsUnavailableBefore: eventsUnavailableBefore.toISOString() } : {}),
      }
    },
  }
}
