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
import { refundableByLine } from '../../../domain/payments/money-given-back.ts'
import type { UnitOfWork } from '../../../infra/unit-of-work.ts'
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

/**
 * @param refundable - what each line can still give back (domain/payments/money-given-back.ts), by line id
 */
const toOrder = (o: OrderWithLines, refundable: ReadonlyMap<string, number> | undefined): OrderBody => ({
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
    refundable: refundable?.get(l.id) ?? l.lineTotal,
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

/** Orders as the API shows them, each line with what it can still give back. */
async function ordersView(uow: UnitOfWork, orders: OrderWithLines[]): Promise<OrderBody[]> {
  const refundable = await refundableByLine(uow, orders)
  return orders.map((o) => toOrder(o, refundable.get(o.id)))
}
const orderView = async (uow: UnitOfWork, order: OrderWithLines) => (await ordersView(uow, [order]))[0]!

const instant = (value: string | undefined) => (value === undefined ? undefined : new Date(value))

export function orderRoutes({ clock }: Pick<AppDeps, 'clock'>) {
  return new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
    .openapi(createOrderRoute, async (c) => {
      const order = await createOrder(c.var.uow, c.req.valid('json'), clock())
      c.header('Location', `/v1/orders/${order.id}`)
      return c.json(await orderView(c.var.uow, order), 201)
    })
    .openapi(listOrdersRoute, async (c) => {
      const query = c.req.valid('query')
      const page = await listOrders(c.var.uow, {
        ...query,
        createdFrom: instant(query.createdFrom),
        createdTo: instant(query.createdTo),
      })
      return c.json({ data: await ordersView(c.var.uow, page.data), nextCursor: page.nextCursor }, 200)
    })
    .openapi(getOrderRoute, async (c) =>
      c.json(await orderView(c.var.uow, await getOrder(c.var.uow, c.req.valid('param').id)), 200)
    )
    .openapi(updateOrderRoute, async (c) =>
      c.json(
        await orderView(c.var.uow, await updateOrder(c.var.uow, c.req.valid('param').id, c.req.valid('json'))),
        200
      )
    )
    .openapi(finalizeOrderRoute, async (c) =>
      c.json(await orderView(c.var.uow, await finalizeOrder(c.var.uow, c.req.valid('param').id, clock())), 200)
    )
    .openapi(voidOrderRoute, async (c) =>
      c.json(await orderView(c.var.uow, await voidOrder(c.var.uow, c.req.valid('param').id, clock())), 200)
    )
}
