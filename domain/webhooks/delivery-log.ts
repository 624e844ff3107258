/**
 * @module The delivery log: every delivery of an event to an endpoint with all its attempts (time, status code,
 * latency, error), per endpoint or per event, newest first by default.
 */
import type { Prisma } from '../../generated/prisma/client.ts'
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import { notFound } from '../errors.ts'
import { keysetOrderBy, keysetWhere, parseList, toSortedPage, type Page, type SortParam } from '../listing.ts'

const withAttempts = { attempts: { orderBy: { number: 'asc' } } } as const satisfies Prisma.WebhookDeliveryInclude

export type DeliveryRow = Prisma.WebhookDeliveryGetPayload<{ include: typeof withAttempts }>

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
