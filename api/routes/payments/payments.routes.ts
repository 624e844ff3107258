/** @module Route table of /v1/payments (spec row 9): payments against orders and their refunds (docs/payments.md). */
import { z } from '@hono/zod-openapi'
import {
  PaymentDisputeStatus,
  PaymentMethod,
  PaymentStatus,
  RefundOrigin,
  RefundReason,
  RefundStatus,
} from '../../../generated/prisma/enums.ts'
import { listQuerySchema } from '../../../domain/listing.ts'
import { PAYMENT_SORTS } from '../../../domain/payments/payment-list.ts'
import { PAYMENT_FAILURE_CODES } from '../../../domain/payments/payment-processor.ts'
import { COMMON_ERRORS, problemResponses, protectedRoute } from '../../openapi/routes.ts'
import { IdParam, pageOf, UtcDateTime } from '../../openapi/schemas.ts'
import { Amount, Currency, OffsetInstant, PositiveAmount, QueryInstant } from '../prices/money-schemas.ts'
import { resourceId } from '../../../domain/id-schema.ts'
import { CurrencyCode } from '../../../domain/pricing/currency-schema.ts'
import { orNull } from '../../../domain/nullable.ts'

/** A filter of the list: an id that names nothing lists nothing. */
const Id = z.string().min(1).max(64)
const Method = z.enum(PaymentMethod).openapi('PaymentMethod')
const Status = z.enum(PaymentStatus).openapi('PaymentStatus', {
  description:
    'SUCCEEDED or FAILED for recorded payments. An online payment (CARD_ONLINE) is PENDING until the processor ' +
    'confirms it; a FAILED one can still succeed when the payer tries its intent again; CANCELED when it expired ' +
    '(`expiresAt`) or was cancelled before the payer completed it (final: it holds and takes nothing).',
})
const RefundStatusSchema = z.enum(RefundStatus).openapi('RefundStatus', {
  description:
    'SUCCEEDED for recorded refunds. An online refund is PENDING until the processor confirms it (its amount held, ' +
    'not yet counted in `amountRefunded`), SUCCEEDED when it does, FAILED when it could not return the money (it ' +
    'counts for nothing; a SUCCEEDED refund that fails later is taken out of `amountRefunded` again).',
})
const Origin = z.enum(RefundOrigin).openapi('RefundOrigin', {
  description:
    'API: asked for through this API. AUTOMATIC: made by the platform for money the processor confirmed for an ' +
    "order that could no longer take it (an `unapplied` payment). PROCESSOR: made in the processor's dashboard and " +
    'recorded from its event.',
})
const DisputeStatus = z.enum(PaymentDisputeStatus).openapi('PaymentDisputeStatus', {
  description:
    'OPEN: the payer disputed the payment with their card issuer; WON or LOST: decided (WON also when a lost ' +
    "dispute's funds were reinstated); CLOSED: an inquiry closed, or the charge refunded, with nothing charged back.",
})
const FailureCode = z.enum(PAYMENT_FAILURE_CODES).openapi('PaymentFailureCode')
const Reason = z.enum(RefundReason).openapi('RefundReason')
const Reference = z.string().trim().min(1).max(100)

export const PaymentCreate = z
  .strictObject({
    orderId: resourceId('order'),
    amount: PositiveAmount.openapi({ description: "Integer minor units; at most the order's balance." }),
    currency: CurrencyCode.openapi({ description: "Must be the order's currency." }),
    method: Method,
    reference: Reference.optional().openapi({
      description: 'Receipt, terminal slip, cheque or remittance-advice number.',
    }),
    receivedAt: OffsetInstant.optional().openapi({ description: 'When the money was received; default now.' }),
    failure: z
      .strictObject({ code: FailureCode, message: z.string().trim().min(1).max(200).optional() })
      .optional()
      .openapi({ description: 'Records a failed attempt (e.g. a declined card): status FAILED, no money moves.' }),
  })
  .openapi('PaymentCreate')

/** One order line a refund gives back (issue 58). */
const RefundLine = z
  .strictObject({
    orderLineId: resourceId('orderLine').openapi({ description: "A line of the payment's order." }),
    amount: PositiveAmount.openapi({
      description:
        'What the refund gives back of this line, in minor units: at most its total less what earlier refunds of ' +
        'the order took from it (their named amounts; for refunds without lines, their share by weight).',
    }),
  })
  .openapi('RefundLine')

export const RefundCreate = z
  .strictObject({
    amount: PositiveAmount.optional().openapi({
      description:
        'Default: the sum of `lines` when given, else everything not yet refunded. With `lines`, it must be their sum.',
    }),
    currency: Currency.optional().openapi({ description: "If given, must be the payment's currency." }),
    reason: Reason,
    method: Method.optional().openapi({ description: "How the money went back; default the payment's method." }),
    reference: Reference.optional(),
    lines: z
      .array(RefundLine)
      .min(1)
      .max(100)
      .optional()
      .openapi({
        description:
          'The order lines the refund gives back, each once. Settlements take it from those lines only (a ' +
          "session line's provider gives back what its line gave back, with the platform fee on it returned); " +
          "without lines, the refund is shared among the order's lines in proportion to what they still hold.",
      }),
  })
  .openapi('RefundCreate')

/**
 * What the processor's balance moved for a payment, refund or dispute, when the balance keeps another currency than
 * the payment's (Stripe converted it: issue 58, docs/marketplace.md, "Money the processor converted").
 */
export const SettledMoney = z
  .object({
    currency: Currency.openapi({ description: "The currency the processor's balance keeps." }),
    amount: z.number().int().openapi({
      description: 'Minor units of `currency` the balance took in (negative: gave back, or had withdrawn).',
      example: 9000,
    }),
    fee: z.number().int().openapi({ description: "The processor's fee in it, in minor units.", example: 291 }),
  })
  .openapi('SettledMoney', {
    description:
      "What the online processor's balance moved for it in the currency the balance keeps, from its balance " +
      "transactions, when that is not the payment's: the books' `clearing` holds these amounts (issue 58). Null " +
      "when the balance keeps the payment's own currency, or the processor has not said yet.",
  })

export const Refund = z
  .object({
    id: resourceId('refund'),
    paymentId: z.string(),
    orderId: z.string(),
    amount: PositiveAmount,
    currency: Currency,
    reason: Reason,
    method: Method,
    reference: z.string().nullable(),
    status: RefundStatusSchema,
    origin: Origin,
    processorReference: z.string().nullable().openapi({ description: "The processor's id of an online refund." }),
    failureMessage: z.string().nullable().openapi({ description: 'Why a FAILED refund failed.' }),
    lines: z.array(RefundLine).openapi({
      description: 'The order lines it gives back, as the request named them; empty: shared among them by weight.',
    }),
    succeededAt: UtcDateTime.nullable(),
    settled: orNull(SettledMoney),
    createdAt: UtcDateTime,
  })
  .openapi('Refund')

export const PaymentDispute = z
  .object({
    id: resourceId('paymentDispute'),
    status: DisputeStatus,
    processorReference: z
      .string()
      .openapi({ description: "The processor's dispute id (Stripe: dp_...).", example: 'dp_1' }),
    amount: Amount.openapi({ description: 'The disputed amount.' }),
    amountLost: Amount.openapi({ description: 'What it took back once LOST (charged back on the order); else 0.' }),
    fee: Amount.openapi({ description: "The processor's dispute fee: the centre's cost, never a provider's." }),
    lostAt: UtcDateTime.nullable().openapi({ description: 'When it was lost (from then on it is charged back).' }),
    reinstatedAt: UtcDateTime.nullable().openapi({
      description: "When a lost dispute's funds came back (won later, or reinstated): given back to the provider.",
    }),
    settled: orNull(SettledMoney),
    createdAt: UtcDateTime,
  })
  .openapi('PaymentDispute')

export const Payment = z
  .object({
    id: resourceId('payment'),
    orderId: z.string(),
    locationId: z.string(),
    clientId: z.string().nullable(),
    amount: PositiveAmount,
    currency: Currency,
    status: Status,
    method: Method,
    processor: z.string().openapi({ example: 'recorded' }),
    processorReference: z.string().nullable(),
    reference: z.string().nullable(),
    failureCode: orNull(FailureCode),
    failureMessage: z.string().nullable(),
    amountRefunded: Amount.openapi({ description: 'What SUCCEEDED refunds gave back.' }),
    processorFee: Amount.openapi({
      description:
        "The online processor's processing fee on a SUCCEEDED payment (Stripe's charge's balance transaction), in " +
        'minor units of `currency`: the centre\'s cost, booked in `processor_fees` (docs/marketplace.md, "The ' +
        'ledger"). 0 for a payment the centre recorded, and until the processor says it (the daily reconciliation ' +
        'records it then).',
    }),
    settled: orNull(SettledMoney),
    refunds: z.array(Refund),
    receivedAt: UtcDateTime.nullable(),
    expiresAt: UtcDateTime.nullable().openapi({
      description:
        'A PENDING online payment is cancelled at this instant unless the payer completed it (its hold on the ' +
        "order's balance released); null otherwise.",
    }),
    unapplied: z.boolean().openapi({
      description:
        'true: money the processor confirmed for an order that could no longer take it (voided, or paid another ' +
        'way meanwhile). It is not counted on the order and is refunded automatically in full (an AUTOMATIC refund).',
    }),
    disputes: z.array(PaymentDispute).openapi({
      description:
        "The payer's disputes (chargebacks, inquiries) of an online payment, oldest first: one per processor dispute, " +
        'each with its own state. A charge can be disputed again after an inquiry closed.',
    }),
    dispute: z
      .object({
        status: DisputeStatus,
        processorReference: z.string().nullable(),
        amount: Amount,
        amountLost: Amount.openapi({ description: 'What a LOST dispute took back (charged back on the order).' }),
        fee: Amount.openapi({ description: "The processor's dispute fee: the centre's cost, never a provider's." }),
      })
      .nullable()
      .openapi({
        description:
          'The latest of `disputes` (null when there is none), as this field showed the only dispute before a ' +
          'payment could have several. Read `disputes`.',
      }),
    createdAt: UtcDateTime,
    updatedAt: UtcDateTime,
  })
  .openapi('Payment')

export const PaymentCreated = Payment.extend({
  clientSecret: z
    .string()
    .nullable()
    .openapi({
      description:
        "Online payments (CARD_ONLINE) only: the processor's client secret, which the payer's browser or app uses to " +
        "confirm the payment with the processor directly (Stripe.js, Stripe's mobile SDKs); card details never reach " +
        'this API. null for recorded payments. Returned here only.',
    }),
}).openapi('PaymentCreated')

const json = <T extends z.ZodTypeAny>(schema: T) => ({ 'application/json': { schema } })
const paymentParam = IdParam('payment')

export const createPaymentRoute = protectedRoute('payments', {
  method: 'post',
  path: '/v1/payments',
  tags: ['Payments'],
  summary: 'Record a payment against an order, or start an online card payment',
  description:
    'A recorded payment (cash, card terminal, transfer, remittance, cheque) is SUCCEEDED, or FAILED with the ' +
    'failure the centre reports. `CARD_ONLINE` (when the deployment has an online processor, Stripe) creates a ' +
    'PENDING payment and a payment intent for it, and answers the `clientSecret` the payer confirms it with; the ' +
    "processor's signed webhook settles it (docs/payments.md). Without a processor, `CARD_ONLINE` is refused " +
    '(`method_not_available`).',
  request: { body: { required: true, content: json(PaymentCreate) } },
  responses: {
    201: { description: 'The payment', content: json(PaymentCreated) },
    ...problemResponses(400, 409, 413, 415, 422, 503, ...COMMON_ERRORS),
  },
})

export const listPaymentsRoute = protectedRoute('payments.read', {
  method: 'get',
  path: '/v1/payments',
  tags: ['Payments'],
  summary: 'List payments',
  request: {
    query: listQuerySchema(PAYMENT_SORTS, '-createdAt').extend({
      orderId: Id.optional(),
      status: Status.optional(),
      method: Method.optional(),
      clientId: Id.optional(),
      locationId: Id.optional(),
      createdFrom: QueryInstant.optional().openapi({ description: 'Created at or after this instant.' }),
      createdTo: QueryInstant.optional().openapi({ description: 'Created before this instant.' }),
    }),
  },
  responses: {
    200: { description: 'A page of payments', content: json(pageOf(Payment, 'PaymentPage')) },
    ...problemResponses(400, ...COMMON_ERRORS),
  },
})

export const getPaymentRoute = protectedRoute('payments.read', {
  method: 'get',
  path: '/v1/payments/{id}',
  tags: ['Payments'],
  summary: 'Retrieve a payment with its refunds',
  request: { params: paymentParam },
  responses: {
    200: { description: 'The payment', content: json(Payment) },
    ...problemResponses(404, ...COMMON_ERRORS),
  },
})

export const createRefundRoute = protectedRoute('payments', {
  method: 'post',
  path: '/v1/payments/{id}/refunds',
  tags: ['Payments'],
  summary: 'Refund a payment, fully or in part',
  description:
    "An online payment's refund goes through its processor. It is recorded PENDING (its amount held, so refunds in " +
    'flight never exceed the payment) and the processor is asked at once: 201 with the refund SUCCEEDED (or FAILED) ' +
    'when the processor has answered, 202 with it PENDING when the processor has not answered yet or reported it ' +
    "pending. A PENDING refund is finished durably by its workflow and the processor's webhook; read it again at " +
    'GET /v1/payments/{id}. Retrying with the same Idempotency-Key never refunds twice.',
  request: { params: paymentParam, body: { required: true, content: json(RefundCreate) } },
  responses: {
    201: { description: 'The refund, settled', content: json(Refund) },
    202: { description: 'The refund, PENDING at the processor', content: json(Refund) },
    ...problemResponses(400, 404, 409, 413, 415, 422, ...COMMON_ERRORS),
  },
})

export const cancelPaymentRoute = protectedRoute('payments', {
  method: 'post',
  path: '/v1/payments/{id}/cancel',
  tags: ['Payments'],
  summary: 'Cancel an online payment the payer has not completed',
  description:
    "Cancels a PENDING (or FAILED) online payment's intent at the processor, so it can no longer be paid, and " +
    "releases what it held of the order's balance: CANCELED. An order with a pending online payment cannot be " +
    'voided until the payment is cancelled or settles. When the processor had already taken the money, the answer ' +
    'is the payment SUCCEEDED (counted on the order, or `unapplied` and refunded). Already CANCELED: answered as it ' +
    'is. Payments expire by themselves at `expiresAt`.',
  request: { params: paymentParam },
  responses: {
    200: { description: 'The payment', content: json(Payment) },
    ...problemResponses(404, 409, 503, ...COMMON_ERRORS),
  },
})
