/** @module /v1/payments: thin handlers over payments and refunds. */
import { OpenAPIHono, type RouteHandler, type z } from '@hono/zod-openapi'
import { listPayments } from '../../../domain/payments/payment-list.ts'
import { recordedPaymentProcessor, type PaymentProcessor } from '../../../domain/payments/payment-processor.ts'
import { getPayment, recordPayment, type PaymentWithRefunds } from '../../../domain/payments/payment-service.ts'
import { refundPayment } from '../../../domain/payments/refund-service.ts'
import type { AppDeps, AppEnv } from '../../app-env.ts'
import { validationHook } from '../../openapi/validation-hook.ts'
import {
  createPaymentRoute,
  createRefundRoute,
  getPaymentRoute,
  listPaymentsRoute,
  type Payment,
  type Refund,
} from './payments.routes.ts'

type PaymentBody = z.infer<typeof Payment>
type RefundRow = PaymentWithRefunds['refunds'][number]

const toRefund = (r: RefundRow): z.infer<typeof Refund> => ({
  id: r.id,
  paymentId: r.paymentId,
  orderId: r.orderId,
  amount: r.amount,
  currency: r.currency,
  reason: r.reason,
  method: r.method,
  reference: r.reference,
  createdAt: r.createdAt.toISOString(),
})

export const toPayment = (p: PaymentWithRefunds): PaymentBody => ({
  id: p.id,
  orderId: p.orderId,
  locationId: p.locationId,
  clientId: p.clientId,
  amount: p.amount,
  currency: p.currency,
  status: p.status,
  method: p.method,
  processor: p.processor,
  processorReference: p.processorReference,
  reference: p.reference,
  failureCode: p.failureCode as PaymentBody['failureCode'],
  failureMessage: p.failureMessage,
  amountRefunded: p.amountRefunded,
  refunds: p.refunds.map(toRefund),
  receivedAt: p.receivedAt?.toISOString() ?? null,
  createdAt: p.createdAt.toISOString(),
  updatedAt: p.updatedAt.toISOString(),
})

const instant = (value: string | undefined) => (value === undefined ? undefined : new Date(value))

/** GET /v1/payments; also serves its deprecated alias /v0/payments. */
export const readPayments: RouteHandler<typeof listPaymentsRoute, AppEnv> = async (c) => {
  const query = c.req.valid('query')
  const page = await listPayments(c.var.uow, {
    ...query,
    createdFrom: instant(query.createdFrom),
    createdTo: instant(query.createdTo),
  })
  return c.json({ data: page.data.map(toPayment), nextCursor: page.nextCursor }, 200)
}

/**
 * The processors payments can use. Only the recorded processor ships; an online one would join through the
 * two-phase seam in domain/payments/payment-processor.ts, not this synchronous list.
 */
const PROCESSORS: readonly PaymentProcessor[] = [recordedPaymentProcessor]

export function paymentRoutes({ clock }: Pick<AppDeps, 'clock'>) {
  return new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
    .openapi(createPaymentRoute, async (c) => {
      const { receivedAt, ...input } = c.req.valid('json')
      const payment = await recordPayment(c.var.uow, { ...input, receivedAt: instant(receivedAt) }, PROCESSORS, clock())
      c.header('Location', `/v1/payments/${payment.id}`)
      return c.json(toPayment(payment), 201)
    })
    .openapi(listPaymentsRoute, readPayments)
    .openapi(getPaymentRoute, async (c) => c.json(toPayment(await getPayment(c.var.uow, c.req.valid('param').id)), 200))
    .openapi(createRefundRoute, async (c) => {
      const { refund } = await refundPayment(
        c.var.uow,
        c.req.valid('param').id,
        c.req.valid('json'),
        PROCESSORS,
        clock()
      )
      c.header('Location', `/v1/payments/${refund.paymentId}`)
      return c.json(toRefund(refund), 201)
    })
}
