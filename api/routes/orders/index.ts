/** @module /v1/orders: thin handlers over the order service. */
import { OpenAPIHono, type z } from '@hono/zod-openapi'
import { listOrders } from '../../../domain/orders/order-list.ts'
import {
  createOrder,
  finalizeOrder,
  getOrder,
  updateOrder,
  voidOrder,
  type OrderWithLines,
} from '../../../domain/orders/order-service.ts'
import type { AppDeps, AppEnv } from '../../app-env.ts'
import { validationHook } from '../../openapi/validation-hook.ts'
import {
  createOrderRoute,
  finalizeOrderRoute,
  getOrderRoute,
  listOrdersRoute,
  updateOrderRoute,
  voidOrderRoute,
  type Order,
} from './orders.routes.ts'

type OrderBody = z.infer<typeof Order>
const iso = (d: Date | null) => d?.toISOString() ?? null

export const toOrder = (o: OrderWithLines): OrderBody => ({
  id: o.id,
  status: o.status,
  locationId: o.locationId,
  clientId: o.clientId,
  childId: o.childId,
  currency: o.currency,
  lines: o.lines.map((l) => ({
    id: l.id,
    kind: l.kind,
    description: l.description,
    service: l.service as OrderBody['lines'][number]['service'],
    quantity: l.quantity,
    unitAmount: l.unitAmount,
    discountAmount: l.discountAmount,
    taxAmount: l.taxAmount,
    lineTotal: l.lineTotal,
    priceId: l.priceId,
    appointmentId: l.appointmentId,
    sessionId: l.sessionId,
  })),
  subtotal: o.subtotal,
  discountTotal: o.discountTotal,
  taxTotal: o.taxTotal,
  total: o.total,
  amountPaid: o.amountPaid,
  amountRefunded: o.amountRefunded,
  amountChargedBack: o.amountChargedBack,
  balance: o.balance,
  openedAt: iso(o.openedAt),
  paidAt: iso(o.paidAt),
  voidedAt: iso(o.voidedAt),
  createdAt: o.createdAt.toISOString(),
  updatedAt: o.updatedAt.toISOString(),
})

const instant = (value: string | undefined) => (value === undefined ? undefined : new Date(value))

export function orderRoutes({ clock }: Pick<AppDeps, 'clock'>) {
  return new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
    .openapi(createOrderRoute, async (c) => {
      const order = await createOrder(c.var.uow, c.req.valid('json'), clock())
      c.header('Location', `/v1/orders/${order.id}`)
      return c.json(toOrder(order), 201)
    })
    .openapi(listOrdersRoute, async (c) => {
      const query = c.req.valid('query')
      const page = await listOrders(c.var.uow, {
        ...query,
        createdFrom: instant(query.createdFrom),
        createdTo: instant(query.createdTo),
      })
      return c.json({ data: page.data.map(toOrder), nextCursor: page.nextCursor }, 200)
    })
    .openapi(getOrderRoute, async (c) => c.json(toOrder(await getOrder(c.var.uow, c.req.valid('param').id)), 200))
    .openapi(updateOrderRoute, async (c) =>
      c.json(toOrder(await updateOrder(c.var.uow, c.req.valid('param').id, c.req.valid('json'))), 200)
    )
    .openapi(finalizeOrderRoute, async (c) =>
      c.json(toOrder(await finalizeOrder(c.var.uow, c.req.valid('param').id, clock())), 200)
    )
    .openapi(voidOrderRoute, async (c) =>
      c.json(toOrder(await voidOrder(c.var.uow, c.req.valid('param').id, clock())), 200)
    )
}
