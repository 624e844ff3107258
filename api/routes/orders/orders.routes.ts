/** @module Route table of /v1/orders (spec row 7): orders with line items (docs/payments.md). */
import { z } from '@hono/zod-openapi'
import { LOCATION_ID_RULE } from '../../../domain/locations/resolve-location.ts'
import { OrderLineKind } from '../../../generated/prisma/enums.ts'
import { DisciplineSchema } from '../../../domain/catalogue/disciplines.ts'
import { listQuerySchema } from '../../../domain/listing.ts'
import { ORDER_SORTS } from '../../../domain/orders/order-list.ts'
import { ORDER_STATUSES } from '../../../domain/orders/order-status.ts'
import { COMMON_ERRORS, problemResponses, protectedRoute } from '../../openapi/routes.ts'
import { IdParam, pageOf, UtcDateTime } from '../../openapi/schemas.ts'
import { Amount, Currency, QueryInstant } from '../prices/money-schemas.ts'
import { resourceId } from '../../../domain/id-schema.ts'
import { CurrencyCode } from '../../../domain/pricing/currency-schema.ts'

/** A filter of the list: an id that names nothing lists nothing. */
const Id = z.string().min(1).max(64)
const OrderStatusSchema = z
  .enum(ORDER_STATUSES)
  .openapi('OrderStatus', { description: 'See the state machine in docs/payments.md.' })
const LineKind = z.enum(OrderLineKind).openapi('OrderLineKind')

export const OrderLineInput = z
  .strictObject({
    kind: LineKind,
    description: z
      .string()
      .trim()
      .min(1)
      .max(200)
      .optional()
      .openapi({ description: "Defaults to the price's description." }),
    service: DisciplineSchema.optional().openapi({ description: "The discipline delivered; defaults to the price's." }),
    quantity: z.number().int().min(1).max(10_000).default(1),
    unitAmount: Amount.optional().openapi({
      description: "Defaults to the price's amount (`priceId`), else the service's price at the order's location.",
    }),
    discountAmount: Amount.optional().openapi({
      description: 'Off this line, at most quantity × unitAmount. Default 0.',
    }),
    taxAmount: Amount.optional().openapi({ description: 'Tax on this line, computed by the centre. Default 0.' }),
    currency: Currency.optional().openapi({
      description: "If given, must be the order's currency (one currency per order).",
    }),
    priceId: resourceId('price').optional(),
    appointmentId: resourceId('appointment').optional(),
    sessionId: resourceId('session').optional(),
  })
  .openapi('OrderLineInput')

const Lines = z.array(OrderLineInput).min(1).max(100)

export const OrderCreate = z
  .strictObject({
    locationId: resourceId('location').optional().openapi({ description: LOCATION_ID_RULE }),
    clientId: resourceId('client').optional().openapi({ description: 'The payer.' }),
    childId: resourceId('child').optional(),
    currency: CurrencyCode.optional().openapi({ description: "Defaults to the location's currency." }),
    status: z
      .enum(['DRAFT', 'OPEN'])
      .optional()
      .openapi({ description: 'DRAFT (default) stays editable; OPEN finalizes at once.' }),
    lines: Lines,
  })
  .openapi('OrderCreate')

export const OrderPatch = z
  .strictObject({
    clientId: resourceId('client').nullable().optional(),
    childId: resourceId('child').nullable().optional(),
    currency: CurrencyCode.optional(),
    lines: Lines.optional().openapi({ description: 'Replaces every line.' }),
  })
  .openapi('OrderPatch', {
    description: 'A JSON merge patch (RFC 7396) of a DRAFT order; null removes clientId or childId',
  })

export const OrderLine = z
  .object({
    id: z.string(),
    kind: LineKind,
    description: z.string(),
    service: DisciplineSchema.nullable(),
    quantity: z.number().int(),
    unitAmount: Amount,
    discountAmount: Amount,
    taxAmount: Amount,
    lineTotal: Amount.openapi({ description: 'quantity × unitAmount − discountAmount + taxAmount' }),
    priceId: z.string().nullable(),
    appointmentId: z.string().nullable(),
    sessionId: z.string().nullable(),
    refundable: Amount.openapi({
      description:
        'What a refund may still name on this line: lineTotal less what refunds took from it (their named amounts, ' +
        'or their share by weight) and its share by weight of lost disputes, in the order the money went back — the ' +
        "rule refunds and provider settlements apply (docs/payments.md). A refund as a whole is also at most its payment's refundable amount.",
    }),
  })
  .openapi('OrderLine')

export const Order = z
  .object({
    id: resourceId('order'),
    status: OrderStatusSchema,
    locationId: z.string(),
    clientId: z.string().nullable(),
    childId: z.string().nullable(),
    currency: Currency,
    lines: z.array(OrderLine),
    subtotal: Amount.openapi({ description: 'Σ quantity × unitAmount' }),
    discountTotal: Amount,
    taxTotal: Amount,
    total: Amount.openapi({ description: 'subtotal − discountTotal + taxTotal' }),
    amountPaid: Amount.openapi({ description: 'Sum of succeeded payments' }),
    amountRefunded: Amount.openapi({ description: 'Sum of refunds' }),
    amountChargedBack: Amount.openapi({
      description: "What lost disputes of its payments took back (chargebacks); the order's status is unchanged",
    }),
    balance: Amount.openapi({ description: 'total − amountPaid: still to be collected' }),
    openedAt: UtcDateTime.nullable(),
    paidAt: UtcDateTime.nullable(),
    voidedAt: UtcDateTime.nullable(),
    createdAt: UtcDateTime,
    updatedAt: UtcDateTime,
  })
  .openapi('Order')

const json = <T extends z.ZodTypeAny>(schema: T) => ({ 'application/json': { schema } })
const orderParam = IdParam('order')

export const createOrderRoute = protectedRoute('orders', {
  method: 'post',
  path: '/v1/orders',
  tags: ['Orders'],
  summary: 'Create an order with line items',
  description: `\`locationId\`: ${LOCATION_ID_RULE}`,
  request: { body: { required: true, content: json(OrderCreate) } },
  responses: {
    201: { description: 'The order', content: json(Order) },
    ...problemResponses(400, 409, 413, 415, 422, ...COMMON_ERRORS),
  },
})

export const listOrdersRoute = protectedRoute('orders.read', {
  method: 'get',
  path: '/v1/orders',
  tags: ['Orders'],
  summary: 'List orders',
  request: {
    query: listQuerySchema(ORDER_SORTS, '-createdAt').extend({
      status: OrderStatusSchema.optional(),
      clientId: Id.optional(),
      childId: Id.optional(),
      locationId: Id.optional(),
      createdFrom: QueryInstant.optional().openapi({ description: 'Created at or after this instant.' }),
      createdTo: QueryInstant.optional().openapi({ description: 'Created before this instant.' }),
    }),
  },
  responses: {
    200: { description: 'A page of orders', content: json(pageOf(Order, 'OrderPage')) },
    ...problemResponses(400, ...COMMON_ERRORS),
  },
})

export const getOrderRoute = protectedRoute('orders.read', {
  method: 'get',
  path: '/v1/orders/{id}',
  tags: ['Orders'],
  summary: 'Retrieve an order',
  request: { params: orderParam },
  responses: {
    200: { description: 'The order', content: json(Order) },
    ...problemResponses(404, ...COMMON_ERRORS),
  },
})

export const updateOrderRoute = protectedRoute('orders', {
  method: 'patch',
  path: '/v1/orders/{id}',
  tags: ['Orders'],
  summary: 'Edit a DRAFT order',
  request: {
    params: orderParam,
    body: { required: true, content: { 'application/merge-patch+json': { schema: OrderPatch }, ...json(OrderPatch) } },
  },
  responses: {
    200: { description: 'The order', content: json(Order) },
    ...problemResponses(400, 404, 409, 413, 415, 422, ...COMMON_ERRORS),
  },
})

export const finalizeOrderRoute = protectedRoute('orders', {
  method: 'post',
  path: '/v1/orders/{id}/finalize',
  tags: ['Orders'],
  summary: 'Finalize a DRAFT order: OPEN for payment (PAID at once when its total is 0)',
  request: { params: orderParam },
  responses: {
    200: { description: 'The order', content: json(Order) },
    ...problemResponses(404, 409, 422, ...COMMON_ERRORS),
  },
})

export const voidOrderRoute = protectedRoute('orders', {
  method: 'post',
  path: '/v1/orders/{id}/void',
  tags: ['Orders'],
  summary: 'Void an order nothing was paid on',
  request: { params: orderParam },
  responses: {
    200: { description: 'The order', content: json(Order) },
    ...problemResponses(404, 409, 422, ...COMMON_ERRORS),
  },
})
