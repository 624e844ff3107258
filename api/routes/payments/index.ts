/** @module /v1/payments: thin handlers over payments and refunds. */
import { OpenAPIHono, type RouteHandler, type z } from '@hono/zod-openapi'
import { listPayments } from '../../../domain/payments/payment-list.ts'
import { recordedPaymentProcessor, type PaymentProcessor } from '../../../domain/payments/payment-processor.ts'
import { getPayment, recordPayment, type PaymentWithRefunds } from '../../../domain/payments/payment-service.ts'
import { refundPayment } from '../../../domain/payments/refund-service.ts'
import { cancelOnlinePayment, startOnlinePayment } from '../../../domain/payments/online-payment-service.ts'
import { AppError, dependencyUnavailable, invalidStateTransition, validationError } from '../../../domain/errors.ts'
import type { RequestKey } from '../../../domain/payments/processor-keys.ts'
import type { Context } from 'hono'
import type { AppDeps, AppEnv } from '../../app-env.ts'
import { validationHook } from '../../openapi/validation-hook.ts'
import {
  cancelPaymentRoute,
  createPaymentRoute,
  createRefundRoute,
  getPaymentRoute,
  listPaymentsRoute,
  type Payment,
  type PaymentDispute,
  type Refund,
} from './payments.routes.ts'

type PaymentBody = z.infer<typeof Payment>
type RefundRow = PaymentWithRefunds['refunds'][number]
type DisputeRow = PaymentWithRefunds['disputes'][number]

/** What the processor's balance moved in the currency it keeps, when it is not the payment's (issue 58). */
const settledOf = (currency: string | null, amount: number | null, fee: number | null) =>
  currency === null ? null : { currency, amount: amount ?? 0, fee: fee ?? 0 }

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
  origin: r.origin,
  processorReference: r.processorReference,
  failureMessage: r.failureMessage,
  lines: r.lines.map((l) => ({ orderLineId: l.orderLineId, amount: l.amount })),
  succeededAt: r.succeededAt?.toISOString() ?? null,
  settled: settledOf(r.settledCurrency, r.settledAmount, 0),
  createdAt: r.createdAt.toISOString(),
})

const toDispute = (d: DisputeRow): z.infer<typeof PaymentDispute> => ({
  id: d.id,
  status: d.status,
  processorReference: d.processorReference,
  amount: d.amount,
  amountLost: d.amountLost,
  fee: d.fee,
  lostAt: d.lostAt?.toISOString() ?? null,
  reinstatedAt: d.reinstatedAt?.toISOString() ?? null,
  settled: settledOf(d.settledCurrency, d.settledAmount, d.settledFee),
  createdAt: d.createdAt.toISOString(),
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
  // Summed from the refunds read with the payment rather than its column (equal by the ledger check): the payment and
  // its refunds are two statements, and a read racing a refund's settlement must not show it SUCCEEDED and uncounted.
  amountRefunded: p.refunds.reduce((sum, r) => (r.status === 'SUCCEEDED' ? sum + r.amount : sum), 0),
  processorFee: p.processorFee,
  settled: settledOf(p.settledCurrency, p.settledAmount, p.settledFee),
  refunds: p.refunds.map(toRefund),
  receivedAt: p.receivedAt?.toISOString() ?? null,
  expiresAt: p.expiresAt?.toISOString() ?? null,
  unapplied: p.unapplied,
  disputes: p.disputes.map(toDispute),
  dispute: latestDispute(p.disputes),
  createdAt: p.createdAt.toISOString(),
  updatedAt: p.updatedAt.toISOString(),
})

/** The payment's latest dispute, as `dispute` showed the only one before a payment could have several. */
function latestDispute(disputes: DisputeRow[]): PaymentBody['dispute'] {
  const latest = disputes.at(-1)
  return latest
    ? {
        status: latest.status,
        processorReference: latest.processorReference,
        amount: latest.amount,
        amountLost: latest.amountLost,
        fee: latest.fee,
      }
    : null
}

/** The request's Idempotency-Key with who sent it: keys are each caller's own (domain/payments/processor-keys.ts). */
function requestKeyOf(c: Context<AppEnv>): RequestKey | undefined {
  const key = c.req.header('Idempotency-Key')
  return key === undefined ? undefined : { caller: c.var.principal.actorId, key }
}

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

export function paymentRoutes({
  db,
  clock,
  onlinePayments,
  paymentFlows,
}: Pick<AppDeps, 'db' | 'clock' | 'onlinePayments' | 'paymentFlows'>) {
  return new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
    .openapi(createPaymentRoute, async (c) => {
      const { receivedAt, ...input } = c.req.valid('json')
      if (input.method === 'CARD_ONLINE' && onlinePayments) {
        assertOnlineFields(input.failure, receivedAt)
        const started = await startOnlinePayment(
          c.var.uow,
          { ...input, requestKey: requestKeyOf(c) },
          onlinePayments,
          paymentFlows,
          clock()
        )
        // The client secret lets whoever holds it pay: the stored answer of this request is kept sealed.
        c.set('sealStoredResponse', true)
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
      const online = onlinePayments && {
        processor: onlinePayments,
        flows: paymentFlows,
        db,
        now: clock,
        requestKey: requestKeyOf(c),
      }
      const { refund, awaitingProcessor } = await refundPayment(
        c.var.uow,
        c.req.valid('param').id,
        c.req.valid('json'),
        PROCESSORS,
        clock(),
        online
      )
      c.header('Location', `/v1/payments/${refund.paymentId}`)
      return awaitingProcessor ? c.json(toRefund(refund), 202) : c.json(toRefund(refund), 201)
    })
    .openapi(cancelPaymentRoute, async (c) => {
      const { id } = c.req.valid('param')
      const uow = c.var.uow
      const payment = await getPayment(uow, id)
      if (!onlinePayments || payment.method !== 'CARD_ONLINE') {
        throw invalidStateTransition(`Payment ${id} is not an online payment; only those are cancelled.`)
      }
      if (payment.status === 'PENDING' || payment.status === 'FAILED') {
        try {
          await uow.release(() => cancelOnlinePayment(db, uow.tenantId, id, onlinePayments, paymentFlows, clock))
        } catch (error) {
          if (error instanceof AppError) throw error
          throw dependencyUnavailable('The payment processor', error)
        }
      } else if (payment.status === 'SUCCEEDED') {
        throw invalidStateTransition(`Payment ${id} has SUCCEEDED; refund it instead.`)
      }
      return c.json(toPayment(await getPayment(uow, id)), 200)
    })
}
