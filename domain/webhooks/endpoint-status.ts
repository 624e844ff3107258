/**
 * @module When the platform disables an endpoint: a run of failures starts a clock (`failingSince`, kept by the
 * batch's record, attempt-records.ts), any success stops it, and an endpoint still failing after
 * WEBHOOK_DISABLE_AFTER_MS (5 days) is disabled (record-batch.ts); a 410 Gone disables it at once. Either way the tenant is told: the endpoint shows `enabled: false` with
 * the reason, and a `webhook_endpoint.disabled` event goes to the tenant's other endpoints.
 */
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import { recordEvent } from '../events/record-event.ts'

export type AutomaticDisableReason = 'GONE' | 'FAILING'

/**
 * Disables an enabled endpoint and tells the tenant with a `webhook_endpoint.disabled` event.
 * @returns whether it was enabled until now
 */
export async function disableEndpoint(
  uow: UnitOfWork,
  endpointId: string,
  reason: AutomaticDisableReason,
  at: Date,
  condition: { failingSince?: { lte: Date } } = {}
): Promise<boolean> {
  const { count } = await uow.tx.webhookEndpoint.updateMany({
    where: { id: endpointId, enabled: true, ...condition },
    data: { enabled: false, disabledReason: reason, disabledAt: at },
  })
  if (count === 0) return false
  await recordEvent(uow, 'webhook_endpoint.disabled', { endpointId, reason, disabledAt: at.toISOString() })
  return true
}

/** Ends every queued delivery an endpoint still holds (it was disabled): they fail with `reason`, redeliverable. */
export async function failHeldDeliveries({ tx }: UnitOfWork, endpointId: string, reason: string, at: Date) {
  await tx.webhookDelivery.updateMany({
    where: { endpointId, status: 'PENDING', workflowStartedAt: null },
    data: { status: 'FAILED', lastError: reason, completedAt: at, nextAttemptAt: null, dispatchLeaseUntil: null },
  })
}
