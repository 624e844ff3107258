/**
 * @module Activities of the settlement workflow, over the worker's database. Each runs in a unit of work scoped to
 * the settlement's tenant and is idempotent (see domain/settlements/settle-provider.ts and settlement-runs.ts).
 */
import { ApplicationFailure } from '@temporalio/activity'
import { whileBeating } from './heartbeat.ts'
import { AppError } from '../domain/errors.ts'
import { beginRun, completeRun, failRun, settleRunProvider } from '../domain/settlements/settlement-runs.ts'
import type { PayoutProcessor } from '../domain/payouts/payout-processor.ts'
import { sendPayout } from '../domain/payouts/payout-sending.ts'
import { preparePayouts } from '../domain/payouts/payout-transfers.ts'
import type { Clock } from '../infra/clock.ts'
import type { Db } from '../infra/db.ts'
import { runInUnitOfWork, type UnitOfWork } from '../infra/unit-of-work.ts'
import type { SettlementActivities, SettlementWorkflowInput } from '../common/settlements/settlement-contract.ts'

/** How often a payout's send says it is alive (its heartbeat timeout, in workflows/settlement.ts, is 10 s). */
const PAYOUT_HEARTBEAT_MS = 3000

export interface SettlementActivityDeps {
  db: Db
  clock?: Clock
  /** Marketplace payouts (Stripe Connect); without one, settlements post the books and move no money. */
  payouts?: PayoutProcessor
}

/** A settlement of many lines writes thousands of rows; far below the activity's timeout. */
const WRITE_TIMEOUT_MS = 60_000

/** Expected refusals (a provider that no longer exists) are final; anything else is retried. */
function final<T>(work: () => Promise<T>): Promise<T> {
  return work().catch((error: unknown) => {
    if (error instanceof AppError && error.status < 500)
      throw ApplicationFailure.create({ message: error.message, nonRetryable: true })
    throw error
  })
}

/** Creates the settlement activities: the interface the settlement workflow proxies (its contract). */
export function createSettlementActivities({
  db,
  clock = () => new Date(),
  payouts,
}: SettlementActivityDeps): SettlementActivities {
  const inTenant = <T>(tenantId: string, work: (uow: UnitOfWork) => Promise<T>) =>
    runInUnitOfWork(db, tenantId, work, { timeoutMs: WRITE_TIMEOUT_MS, maxWaitMs: 30_000 })
  return {
    /** Marks the run RUNNING and lists the providers to settle, in id order. */
    async beginSettlement({ tenantId, settlementId }: SettlementWorkflowInput): Promise<string[]> {
      return final(() => inTenant(tenantId, (uow) => beginRun(uow, settlementId, clock())))
    },

    /** Settles one provider of the run (or answers what was recorded for it). */
    async settleSettlementProvider({
      tenantId,
      settlementId,
      providerId,
    }: SettlementWorkflowInput & { providerId: string }) {
      // With a payout processor, the payout waits in transit until its transfer is paid (domain/payouts), and is only
      // what the processor can transfer (the rest is carried to the next settlement).
      const options = {
        payoutsInTransit: payouts !== undefined,
        payoutUnit: payouts ? (currency: string) => payouts.transferUnit(currency) : undefined,
      }
      return final(() =>
        inTenant(tenantId, (uow) => settleRunProvider(uow, settlementId, providerId, clock(), options))
      )
    },

    /**
     * Records a transfer for every payout of the run (BLOCKED for providers without an active payout account) and
     * lists those to send; none when no payout processor is configured.
     */
    async prepareSettlementPayouts({ tenantId, settlementId }: SettlementWorkflowInput): Promise<string[]> {
      if (!payouts) return []
      return final(() =>
        inTenant(tenantId, (uow) =>
          preparePayouts(uow, settlementId, (currency) => payouts.transferUnit(currency), clock())
        )
      )
    },

    /** Sends one payout transfer (again, with the same idempotency key, after a crash or a retry). */
    async sendSettlementPayout({ tenantId, transferId }: SettlementWorkflowInput & { transferId: string }) {
      if (!payouts)
        throw ApplicationFailure.create({ message: 'No payout processor is configured.', nonRetryable: true })
      return whileBeating(PAYOUT_HEARTBEAT_MS, () =>
        final(() => sendPayout(db, tenantId, transferId, payouts, clock()))
      )
    },

    /** Marks the run COMPLETED. */
    async completeSettlement({ tenantId, settlementId }: SettlementWorkflowInput): Promise<void> {
      await inTenant(tenantId, (uow) => completeRun(uow, settlementId, clock()))
    },

    /** Marks the run FAILED with the reason (unless it completed meanwhile). */
    async failSettlement({
      tenantId,
      settlementId,
      reason,
    }: SettlementWorkflowInput & { reason: string }): Promise<void> {
      await inTenant(tenantId, (uow) => failRun(uow, settlementId, reason, clock()))
    },
  }
}
