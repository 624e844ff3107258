/**
 * @module Manual redelivery: one event to one endpoint again, or every event whose delivery to the endpoint failed
 * in a time range (after the receiver is fixed). Each redelivery is a new delivery, retried
 * like any other; the rows are written in the request's transaction, due at once, and the delivery pumps take them
 * (a redelivery is attempted even while the endpoint's circuit breaker is open: someone asked for it).
 */
import { Prisma } from '../../generated/prisma/client.ts'
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import { conflict, notFound, validationError } from '../errors.ts'
import { newId } from '../ids.ts'
import { getDelivery, type DeliveryRow } from './delivery-log.ts'
import { getEndpoint } from './endpoint-service.ts'

/** Most events redelivered by one recovery request; the answer says whether more are left. */
export const MAX_RECOVERED = 1000

async function enabledEndpoint(uow: UnitOfWork, endpointId: string) {
  const endpoint = await getEndpoint(uow, endpointId)
  if (!endpoint.enabled) throw conflict('The endpoint is disabled; enable it before redelivering.')
  return endpoint
}

function deliveryRow(uow: UnitOfWork, endpointId: string, event: { id: string; type: string }) {
  const id = newId('webhookDelivery')
  return {
    id,
    tenantId: uow.tenantId,
    eventId: event.id,
    endpointId,
    eventType: event.type,
    kind: 'REDELIVERY' as const,
    nextAttemptAt: new Date(),
  }
}

/**
 * Delivers `eventId` to the endpoint again.
 * @throws AppError `not_found` (endpoint or event), `conflict` (endpoint disabled)
 */
export async function redeliverEvent(uow: UnitOfWork, endpointId: string, eventId: string): Promise<DeliveryRow> {
  const endpoint = await enabledEndpoint(uow, endpointId)
  const event = await uow.tx.event.findFirst({
    where: { id: eventId, tenantId: uow.tenantId },
    select: { id: true, type: true },
  })
  if (!event) throw notFound('event', eventId)
  const row = deliveryRow(uow, endpoint.id, event)
  await uow.tx.webhookDelivery.create({ data: row })
  return getDelivery(uow, endpoint.id, row.id)
}

/** The outcome of a recovery. */
export interface RecoveryResult {
  /** Deliveries created. */
  redelivered: number
  /** Whether more failed events are left in the range: the same request again redelivers the next ones. */
  hasMore: boolean
}

/**
 * Redelivers every event created in [`from`, `to`) whose delivery to the endpoint failed and was not delivered
 * since (no later success, none in progress).
 * @throws AppError `not_found`, `conflict` (endpoint disabled), `validation_error` (empty range)
 */
export async function recoverFailed(
  uow: UnitOfWork,
  endpointId: string,
  from: Date,
  to: Date
): Promise<RecoveryResult> {
  if (from.getTime() >= to.getTime()) {
    throw validationError([{ path: 'to', code: 'invalid_range', message: '`to` must be later than `from`.' }])
  }
  const endpoint = await enabledEndpoint(uow, endpointId)
  const events = await uow.tx.$queryRaw<Array<{ id: string; type: string }>>(Prisma.sql`
    SELECT e.id, e.type FROM events e
    WHERE e.tenant_id = ${uow.tenantId} AND e.created_at >= ${from} AND e.created_at < ${to}
      AND EXISTS (SELECT 1 FROM webhook_deliveries d
                  WHERE d.event_id = e.id AND d.endpoint_id = ${endpoint.id} AND d.status = 'FAILED')
      AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d
                      WHERE d.event_id = e.id AND d.endpoint_id = ${endpoint.id} AND d.status IN ('PENDING', 'SUCCEEDED'))
    ORDER BY e.created_at, e.id
    LIMIT ${MAX_RECOVERED + 1}`)
  const chosen = events.slice(0, MAX_RECOVERED)
  if (chosen.length > 0) {
    await uow.tx.webhookDelivery.createMany({ data: chosen.map((event) => deliveryRow(uow, endpoint.id, event)) })
  }
  return { redelivered: chosen.length, hasMore: events.length > MAX_RECOVERED }
}
