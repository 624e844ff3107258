/**
 * @module The delivery log: every delivery of an event to an endpoint with all its attempts (time, status code,
 * latency, error), per endpoint or per event, newest first by default. Read the attempts with `attemptsOf`: a
 * successful first attempt is kept on the delivery row, not in an attempt row.
 */
import type { Prisma } from '../../generated/prisma/client.ts'
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import { notFound } from '../errors.ts'
import { keysetOrderBy, keysetWhere, parseList, toSortedPage, type Page, type SortParam } from '../listing.ts'

const withAttempts = { attempts: { orderBy: { number: 'asc' } } } as const satisfies Prisma.WebhookDeliveryInclude

export type DeliveryRow = Prisma.WebhookDeliveryGetPayload<{ include: typeof withAttempts }>

/** One attempt as the log shows it. */
export interface LoggedAttempt {
  number: number
  attemptedAt: Date
  statusCode: number | null
  latencyMs: number
  error: string | null
  succeeded: boolean
}

/**
 * A delivery's attempts, first to last. A first attempt that succeeded has no attempt row: the delivery row keeps it
 * (delivery-queue.ts `recordAttempts`; its time is `firstAttemptAt`, its status code `lastStatusCode`, its error
 * `lastError`), and it is shown from there as attempt 1, exactly as its own row would have read.
 */
export function attemptsOf(delivery: DeliveryRow): LoggedAttempt[] {
  const { attempts, firstAttemptAt, firstAttemptLatencyMs } = delivery
  if (firstAttemptAt === null || firstAttemptLatencyMs === null || attempts.some((a) => a.number === 1)) return attempts
  const first: LoggedAttempt = {
    number: 1,
    attemptedAt: firstAttemptAt,
    statusCode: delivery.lastStatusCode,
    latencyMs: firstAttemptLatencyMs,
    error: delivery.lastError,
    succeeded: true,
  }
  return [first, ...attempts]
}

export const DELIVERY_SORTS = ['createdAt'] as const

export interface ListDeliveriesQuery {
  limit: number
  cursor?: string
  sort: SortParam<(typeof DELIVERY_SORTS)[number]>
  status?: 'PENDING' | 'SUCCEEDED' | 'FAILED'
  eventType?: string
}

/** Whose deliveries: one endpoint's, or one event's. */
export type DeliveryScope = { endpointId: string } | { eventId: string }

/** A page of deliveries of an endpoint or of an event (which must exist for the tenant). @throws AppError `not_found` */
export async function listDeliveries(
  { tx, tenantId }: UnitOfWork,
  scope: DeliveryScope,
  query: ListDeliveriesQuery
): Promise<Page<DeliveryRow>> {
  const owner =
    'endpointId' in scope
      ? await tx.webhookEndpoint.findFirst({ where: { id: scope.endpointId, tenantId }, select: { id: true } })
      : await tx.event.findFirst({ where: { id: scope.eventId, tenantId }, select: { id: true } })
  if (!owner)
    throw 'endpointId' in scope ? notFound('webhook endpoint', scope.endpointId) : notFound('event', scope.eventId)
  const list = parseList(query)
  const rows = await tx.webhookDelivery.findMany({
    where: { AND: [{ tenantId, ...scope, status: query.status, eventType: query.eventType }, keysetWhere(list)] },
    orderBy: keysetOrderBy(list),
    take: list.limit + 1,
    include: withAttempts,
  })
  return toSortedPage(rows, list)
}

/** One delivery of an endpoint. @throws AppError `not_found` */
export async function getDelivery(
  { tx, tenantId }: UnitOfWork,
  endpointId: string,
  deliveryId: string
): Promise<DeliveryRow> {
  const delivery = await tx.webhookDelivery.findFirst({
    where: { id: deliveryId, endpointId, tenantId },
    include: withAttempts,
  })
  if (!delivery) throw notFound('webhook delivery', deliveryId)
  return delivery
}
