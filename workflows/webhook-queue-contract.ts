/**
 * @module Contracts of the webhook delivery pumps and the failing endpoints' retry workflows, shared by the API and
 * the worker (which start them) and the workflows: inputs, deterministic ids and kinds for the `WorkflowKind` search
 * attribute. Ids only, never payloads.
 */
import type { RetryPolicy } from '../domain/webhooks/retry-schedule.ts'

export const WEBHOOK_PUMP_WORKFLOW = 'webhookDeliveryPumpWorkflow'
export const WEBHOOK_PUMP_KIND = 'webhook-delivery-pump'
export const WEBHOOK_ENDPOINT_RETRY_WORKFLOW = 'webhookEndpointRetryWorkflow'
export const WEBHOOK_ENDPOINT_RETRY_KIND = 'webhook-endpoint-retry'
/** The signal that wakes an endpoint's retry workflow (new deliveries held, or the breaker opened again). */
export const WAKE_ENDPOINT_RETRY_SIGNAL = 'wake'

/** One pump per partition and task queue (a deployment's worker fleet): a second start finds the running one. */
export const deliveryPumpWorkflowId = (taskQueue: string, partition: number) =>
  `webhook-delivery-pump-${taskQueue}-${partition}`

/** One retry workflow per failing endpoint. */
export const endpointRetryWorkflowId = (endpointId: string) => `webhook-endpoint-retry-${endpointId}`

export interface DeliveryPumpInput {
  partition: number
}

export interface DeliveryPumpRunInput {
  partition: number
  runForMs: number
}

export interface DeliveryPumpRunResult {
  /** This partition is beyond the configured number of pumps: its workflow ends. */
  retired: boolean
  attempted: number
}

export interface EndpointRetryInput {
  tenantId: string
  endpointId: string
  /** The retry rules, fixed when the workflow starts. */
  retry: RetryPolicy
  /** Probes failed so far (carried over continue-as-new). */
  failures?: number
}

export type EndpointRetryOutcome = 'closed' | 'disabled' | 'idle'
