/**
 * @module Contracts of the webhook delivery workflow of the earlier design (one workflow per delivery), kept while such
 * workflows may still run (docs/webhooks.md, "Migration"); nothing starts new ones, and a running one hands its
 * delivery to the queue at its next attempt (domain/webhooks/legacy-handover.ts). Shared with the worker: its input,
 * its deterministic id, and its kind for the `WorkflowKind` search attribute. Ids only, never payloads: the activity
 * loads the event and the endpoint from the database at each attempt.
 */
import type { RetryPolicy } from './retry-schedule.ts'

export const WEBHOOK_DELIVERY_WORKFLOW = 'webhookDeliveryWorkflow'
export const WEBHOOK_DELIVERY_KIND = 'webhook-delivery'

/**
 * The workflow id of the automatic delivery of `eventId` to `endpointId`: derived from both, so a second fan-out of
 * the same event (a crash between starting and recording the start, two dispatchers racing) is refused by Temporal
 * instead of delivering twice.
 */
export const eventDeliveryWorkflowId = (eventId: string, endpointId: string) => `webhook-${eventId}-${endpointId}`

export interface WebhookDeliveryInput {
  tenantId: string
  deliveryId: string
  /** The retry rules, fixed at dispatch (WEBHOOK_RETRY_* of the dispatching API). */
  retry: RetryPolicy
}

/**
 * How a delivery workflow ended: with its delivery (SUCCEEDED, FAILED; ABANDONED when the delivery was deleted), or
 * QUEUED: it handed its delivery to the delivery pumps, which make the rest of its attempts.
 */
export type WebhookDeliveryOutcome = 'SUCCEEDED' | 'FAILED' | 'ABANDONED' | 'QUEUED'

/** One attempt of a delivery: the workflow's input with the attempt's number. */
export interface WebhookAttemptInput extends WebhookDeliveryInput {
  /** 1 for the first attempt. */
  attempt: number
  /** ms since the epoch of attempt 1, as the activity reported it; absent for attempt 1 itself. */
  firstAttemptAt?: number
}

/**
 * What the workflow does after an attempt: end with the outcome, or wait `retryInMs` and attempt again (what the
 * earlier design's activity answered; recorded histories hold it, so it stays in the contract).
 */
export type WebhookAttemptResult =
  | { outcome: WebhookDeliveryOutcome }
  /** `firstAttemptAt`: when attempt 1 was made; the retry window runs from there. */
  | { outcome: 'RETRY'; retryInMs: number; firstAttemptAt: number }
