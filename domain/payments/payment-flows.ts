/**
 * @module The durable side of online payments: what the API and the processor's webhook hand to Temporal through the
 * workflow outbox, in the same transaction as the record it is about (docs/payments.md). A refund's workflow makes
 * sure the processor is asked for it whatever became of the request that recorded it; a payment's expiry workflow
 * cancels an intent the payer never completed.
 */
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import {
  PAYMENT_EXPIRY_KIND,
  PAYMENT_EXPIRY_WORKFLOW,
  paymentExpiryWorkflowId,
  REFUND_KIND,
  REFUND_WORKFLOW,
  refundWorkflowId,
  type PaymentExpiryWorkflowInput,
  type RefundWorkflowInput,
} from '../../common/payments/online-payment-contract.ts'
import type { WorkflowOutbox } from '../workflow-runs/workflow-outbox.ts'

export interface PaymentFlowSettings {
  /** How long a PENDING online payment waits for its payer before its intent is cancelled (default 24 hours). */
  expirySeconds: number
  /**
   * How long after an API request recorded a refund its workflow takes the processor call over. The request makes
   * the call itself first (the usual case: the answer is in the response); the workflow, started with this delay,
   * finds it answered and ends, or makes it when the request could not (the processor down, a crash).
   */
  refundTakeoverSeconds: number
}

export const DEFAULT_PAYMENT_FLOW_SETTINGS: PaymentFlowSettings = { expirySeconds: 86_400, refundTakeoverSeconds: 60 }

export interface PaymentFlows {
  settings: PaymentFlowSettings
  /** Records the refund's workflow start in the unit; it runs `delaySeconds` after now. */
  enqueueRefund(uow: UnitOfWork, refundId: string, now: Date, delaySeconds?: number): Promise<void>
  /** Records the payment's expiry workflow start in the unit; it runs at `expiresAt`. */
  enqueueExpiry(uow: UnitOfWork, paymentId: string, expiresAt: Date): Promise<void>
}

/** The flows over the outbox. */
export function createPaymentFlows(
  outbox: WorkflowOutbox,
  settings: PaymentFlowSettings = DEFAULT_PAYMENT_FLOW_SETTINGS
): PaymentFlows {
  return {
    settings,
    async enqueueRefund(uow, refundId, now, delaySeconds = 0) {
      const input: RefundWorkflowInput = { tenantId: uow.tenantId, refundId }
      await outbox.enqueue(uow, {
        workflowType: REFUND_WORKFLOW,
        workflowId: refundWorkflowId(refundId),
        args: [input],
        searchAttributes: { TenantId: uow.tenantId, WorkflowKind: REFUND_KIND },
        summary: `Refund ${refundId}`,
        startAt: delaySeconds > 0 ? now.getTime() + delaySeconds * 1000 : null,
      })
    },
    async enqueueExpiry(uow, paymentId, expiresAt) {
      const input: PaymentExpiryWorkflowInput = { tenantId: uow.tenantId, paymentId }
      await outbox.enqueue(uow, {
        workflowType: PAYMENT_EXPIRY_WORKFLOW,
        workflowId: paymentExpiryWorkflowId(paymentId),
        args: [input],
        searchAttributes: { TenantId: uow.tenantId, WorkflowKind: PAYMENT_EXPIRY_KIND },
        summary: `Online payment ${paymentId}: expires unless paid`,
        startAt: expiresAt.getTime(),
      })
    },
  }
}
