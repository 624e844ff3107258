/**
 * @module Activities of the online-payment workflows (workflows/refund.ts, workflows/payment-expiry.ts), over the
 * worker's database and the configured processor. Each is idempotent: a refund already answered is not asked again,
 * an expired payment already settled is left alone.
 */
import { ApplicationFailure, Context } from '@temporalio/activity'
import { AppError } from '../domain/errors.ts'
import { cancelOnlinePayment } from '../domain/payments/online-payment-service.ts'
import { giveUpRefund, sendRefund } from '../domain/payments/online-refunds.ts'
import { createPaymentFlows } from '../domain/payments/payment-flows.ts'
import type { OnlinePaymentProcessor } from '../domain/payments/online-processor.ts'
import { createWorkflowOutbox } from '../domain/workflow-runs/workflow-outbox.ts'
import type { Clock } from '../infra/clock.ts'
import type { Db } from '../infra/db.ts'
import { createLogger } from '../infra/logger.ts'
import type {
  OnlinePaymentActivities,
  PaymentExpiryOutcome,
  PaymentExpiryWorkflowInput,
  RefundWorkflowInput,
} from '../common/payments/online-payment-contract.ts'

export interface OnlinePaymentActivityDeps {
  db: Db
  clock: Clock
  /** The online processor; without one these workflows cannot have been started, and they fail for good. */
  online?: OnlinePaymentProcessor
}

/** The configured processor, or a failure no retry can mend. */
function processorOf(online: OnlinePaymentProcessor | undefined): OnlinePaymentProcessor {
  if (!online) throw ApplicationFailure.nonRetryable('No online payment processor is configured on this worker.')
  return online
}

/** Expected refusals (a record that no longer exists) are final; anything else is retried. */
const final = <T>(work: () => Promise<T>): Promise<T> =>
  work().catch((error: unknown) => {
    if (error instanceof AppError && error.status < 500) throw ApplicationFailure.nonRetryable(error.message)
    throw error
  })

/** Creates the online-payment activities: the interface the refund and expiry workflows proxy (their contract). */
export function createOnlinePaymentActivities({
  db,
  clock,
  online,
}: OnlinePaymentActivityDeps): OnlinePaymentActivities {
  const logger = createLogger('info', 'online-payments')
  return {
    /** Asks the processor for a PENDING refund with its stored key (unless answered), and records the answer. */
    async sendRefundToProcessor({ tenantId, refundId }: RefundWorkflowInput): Promise<void> {
      await final(() => sendRefund(db, tenantId, refundId, processorOf(online), clock))
    },

    /**
     * Records the refund the processor made for a refund it never answered, or marks it FAILED when it made none,
     * releasing its hold.
     */
    async giveUpRefund({ tenantId, refundId, reason }: RefundWorkflowInput & { reason: string }): Promise<void> {
      await giveUpRefund(db, tenantId, refundId, processorOf(online), reason, clock)
    },

    /** Cancels a payment its payer never completed, or finds that it settled. */
    async expireOnlinePayment({ tenantId, paymentId }: PaymentExpiryWorkflowInput): Promise<PaymentExpiryOutcome> {
      const { client, info } = Context.current()
      // A success applied here to an order that can no longer take it starts the refund's workflow, through the outbox.
      const flows = createPaymentFlows(
        createWorkflowOutbox({ db, temporal: client, taskQueue: info.taskQueue, logger })
      )
      const status = await final(() => cancelOnlinePayment(db, tenantId, paymentId, processorOf(online), flows, clock))
      return status === 'SUCCEEDED' ? 'SETTLED' : status
    },
  }
}
