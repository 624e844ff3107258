/**
 * @module A delivery as a claim hands it out (delivery-queue.ts) and an attempt takes it (attempt-delivery.ts): the
 * data passed from the one step of a delivery's walk to the next, so neither imports the other (docs/webhooks.md,
 * "The walk of a delivery").
 */
import type { DeliveryEndpoint, DeliveryEvent } from './delivery-endpoint.ts'

/** A delivery claimed for an attempt, with what the attempt needs of its event and endpoint. */
export interface QueuedDelivery {
  id: string
  tenantId: string
  endpointId: string
  kind: 'EVENT' | 'REDELIVERY'
  /** Attempts made so far. */
  attemptCount: number
  firstAttemptAt: Date | null
  event: DeliveryEvent
  endpoint: DeliveryEndpoint
}
