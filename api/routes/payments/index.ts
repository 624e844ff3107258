/** @module /v1/payments: thin handlers over payments and refunds. */
import { OpenAPIHono, type RouteHandler, type z } from '@hono/zod-openapi'
import { listPayments } from '../../../domain/payments/payment-list.ts'
import { recordedPaymentProcessor, type PaymentProcessor } from '../../../domain/payments/payment-processor.ts'
import { getPayment, recordPayment, type PaymentWithRefunds } from '../../../domain/payments/payment-service.ts'
import { refundPayment } from '../../../domain/payments/refund-service.ts'
import { startOnlinePayment } from '../../../domain/payments/online-payment-service.ts'
import { validationError } from '../../../domain/errors.ts'
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
  status: r.status,
  processorReference: r.processorReference,
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

/** An online payment's outcome and time come from the processor, never from the request. */
function assertOnlineFields(failure: unknown, receivedAt: string | undefined) {
  const errors = [
    ...(failure === undefined
      ? []
      : [{ path: 'failure', code: 'not_allowed', message: 'Not for CARD_ONLINE payments.' }]),
    ...(receivedAt === undefined
      ? []
      : [{ path: 'receivedAt', code: 'not_allowed', message: 'Not for CARD_ONLINE payments.' }]),
  ]
  if (errors.length > 0) throw validationError(errors)
}

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
 * The processors recorded payments use. The online processor (Stripe), when configured, takes CARD_ONLINE through
 * the two-phase flow of domain/payments/online-payment-service.ts instead.
 */
const PROCESSORS: readonly PaymentProcessor[] = [recordedPaymentProcessor]

export function paymentRoutes({ clock, onlinePayments }: Pick<AppDeps, 'clock' | 'onlinePayments'>) {
  return new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
    .openapi(createPaymentRoute, async (c) => {
      const { receivedAt, ...input } = c.req.valid('json')
      if (input.method === 'CARD_ONLINE' && onlinePayments) {
        assertOnlineFields(input.failure, receivedAt)
        const idempotencyKey = c.req.header('Idempotency-Key')
        const started = await startOnlinePayment(c.var.uow, { ...input, idempotencyKey }, onlinePayments)
        c.header('Location', `/v1/payments/${started.payment.id}`)
        return c.json({ ...toPayment(started.payment), clientSecret: started.clientSecret }, 201)
      }
      const payment = await recordPayment(c.var.uow, { ...input, receivedAt: instant(receivedAt) }, PROCESSORS, clock())
      c.header('Location', `/v1/payments/${payment.id}`)
      return c.json({ ...toPayment(payment), clientSecret: null }, 201)
    })
    .openapi(listPaymentsRoute, readPayments)
    .openapi(getPaymentRoute, async (c) => c.json(toPayment(await getPayment(c.var.uow, c.req.valid('param').id)), 200))
    .openapi(createRefundRoute, async (c) => {
      const online = onlinePayments && { processor: onlinePayments, idempotencyKey: c.req.header('Idempotency-Key') }
      const { refund } = await refundPayment(
        c.var.uow,
        c.req.valid('param').id,
        c.req.valid('json'),
        PROCESSORS,
        clock(),
        online
      )
      c.header('Location', `/v1/payments/${refund.paymentId}`)
      return c.json(toRefund(refund), 201)
    })
}
