/**
 * @module Contracts of the webhook delivery pumps and the failing endpoints' retry workflows, shared by the API and
 * the worker (which start them) and the workflows: inputs, deterministic ids and kinds for the `WorkflowKind` search
 * attribute. Ids only, never payloads.
 */
import type { RetryPolicy } from './retry-schedule.ts'
import type { WebhookAttemptInput, WebhookAttemptResult } from './webhook-delivery-contract.ts'

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

/** One step of a failing endpoint's retry workflow. */
export interface EndpointRetryStepInput {
  tenantId: string
  endpointId: string
  /** Probe now (the schedule's time has come); otherwise only end expired deliveries. */
  probe: boolean
}

/** Where the endpoint stands after a step. */
export type EndpointRetryStepResult =
  /** The breaker is closed (this probe succeeded, or something else closed it): the workflow ends. */
  | { state: 'closed' }
  /** The endpoint is disabled (410, five days of failures, or by hand): the workflow ends. */
  | { state: 'disabled' }
  /** Nothing is held any more: the workflow ends unless woken meanwhile. */
  | { state: 'idle' }
  /**
   * Still failing. `retryAfterMs`: what the receiver asked for; `nextExpiryAt`: when the oldest held delivery's window
   * ends (ms since the epoch), so the workflow wakes to end it on time.
   */
  | { state: 'failing'; retryAfterMs?: number; nextExpiryAt?: number }

/**
 * The webhook activities (activities/webhook-activities.ts) as the delivery pump, the endpoint retry workflow and the
 * delivery workflow of the earlier design (webhook-delivery-contract.ts) proxy them. The factory declares that it
 * returns this interface, so the compiler checks the two agree. Names, arguments and results are in recorded
 * histories: changing one breaks the replay of runs in flight.
 */
export interface WebhookActivities {
  /** Runs the pump of one partition for `runForMs`, heartbeating; a partition beyond the configured ones retires. */
  runWebhookDeliveryPump: (input: DeliveryPumpRunInput) => Promise<DeliveryPumpRunResult>
  /** One step of a failing endpoint's retry workflow. */
  webhookEndpointRetryStep: (input: EndpointRetryStepInput) => Promise<EndpointRetryStepResult>
  /** One attempt of a delivery workflow of the earlier design. Receiver failures are results, not errors. */
  attemptWebhookDelivery: (input: WebhookAttemptInput) => Promise<WebhookAttemptResult>
}
