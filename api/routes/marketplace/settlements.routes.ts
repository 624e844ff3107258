/** @module Route table of /v1/marketplace/settlements (spec row 11): ask for a settlement, follow it, list them. */
import { z } from '@hono/zod-openapi'
import { listQuerySchema } from '../../../domain/listing.ts'
import { SETTLEMENT_SORTS, SETTLEMENT_STATUSES } from '../../../domain/settlements/settlement-service.ts'
import { COMMON_ERRORS, problemResponses, protectedRoute } from '../../openapi/routes.ts'
import { IdParam, OffsetDateTime, UtcDateTime, pageOf } from '../../openapi/schemas.ts'
import { resourceId } from '../../../domain/id-schema.ts'
import { CurrencyCode } from '../../../domain/pricing/currency-schema.ts'

const Amount = z.number().int()

export const SettlementCreate = z
  .strictObject({
    currency: CurrencyCode,
    periodStart: OffsetDateTime.openapi({ format: 'date-time', example: '2026-11-01T00:00:00-06:00' }),
    periodEnd: OffsetDateTime.openapi({
      format: 'date-time',
      example: '2026-11-16T00:00:00-06:00',
      description: 'Exclusive; must have passed. Everything earned before it and never paid is settled.',
    }),
    providerIds: z.array(resourceId('provider')).max(500).optional().openapi({
      description:
        'Only these providers (settled even when nothing is owed); absent or empty: every provider with something to settle',
    }),
  })
  .openapi('SettlementCreate')

export const ProviderSettlementResult = z
  .object({
    providerId: z.string(),
    outcome: z
      .enum(['SETTLED', 'ALREADY_SETTLED'])
      .openapi({ description: 'ALREADY_SETTLED: paid for this period by the run `settledBy`' }),
    providerSettlementId: z.string(),
    settledBy: z.string().openapi({ description: 'The settlement run that paid the provider for this period' }),
    sessionCount: z.number().int(),
    grossAmount: Amount,
    feeAmount: Amount,
    refundAmount: Amount,
    feeRefundAmount: Amount.openapi({ description: 'Platform fee returned with the refunds' }),
    adjustmentAmount: Amount,
    netAmount: Amount.openapi({ description: 'gross − fee − (refunds − fees returned) + adjustments' }),
    carriedForward: Amount.openapi({
      description:
        'Balance owed to the provider before (negative: owed back; positive: an earlier payoutRemainder, or what a ' +
        'payout retry carried)',
    }),
    reserveAmount: Amount.openapi({
      description:
        "Held back from the payout for the provider's share of disputes open and refunds pending at the period's " +
        'end, net of reserves given back because their dispute or refund closed (negative: more given back than held)',
    }),
    payoutAmount: Amount.openapi({
      description:
        'max(0, carriedForward + net − reserveAmount), rounded down to what the payout processor transfers in the ' +
        'currency (Stripe: whole HUF and TWD, MGA; BHD, JOD, KWD, OMR, TND ending in 0; any amount without a processor)',
    }),
    payoutRemainder: Amount.openapi({
      description:
        'max(0, carriedForward + net − reserveAmount) − payout: owed but below what the processor transfers; stays in ' +
        "balanceAfter and is paid by the provider's next settlement (its carriedForward)",
    }),
    balanceAfter: Amount.openapi({
      description:
        'carriedForward + net − reserveAmount − payout: what the next settlement starts from (includes ' +
        'payoutRemainder; what is reserved is not in it)',
    }),
    journalEntryId: z.string().nullable(),
  })
  .openapi('ProviderSettlementResult')

export const Settlement = z
  .object({
    id: resourceId('settlement'),
    status: z.enum(SETTLEMENT_STATUSES),
    currency: z.string(),
    periodStart: UtcDateTime,
    periodEnd: UtcDateTime,
    providerIds: z
      .array(z.string())
      .nullable()
      .openapi({ description: 'null: every provider with something to settle' }),
    failureReason: z.string().nullable(),
    totals: z
      .object({
        providers: z.number().int(),
        sessionCount: z.number().int(),
        grossAmount: Amount,
        feeAmount: Amount,
        refundAmount: Amount,
        feeRefundAmount: Amount,
        adjustmentAmount: Amount,
        netAmount: Amount,
        reserveAmount: Amount,
        payoutAmount: Amount,
      })
      .openapi({ description: 'Sums over the providers this run SETTLED' }),
    providers: z.array(ProviderSettlementResult).openapi({ description: 'Grows while RUNNING' }),
    createdAt: UtcDateTime,
    updatedAt: UtcDateTime,
    startedAt: UtcDateTime.nullable(),
    completedAt: UtcDateTime.nullable(),
    failedAt: UtcDateTime.nullable(),
  })
  .openapi('Settlement')

const json = (schema: z.ZodTypeAny, description: string) => ({
  description,
  content: { 'application/json': { schema } },
})

export const createSettlementRoute = protectedRoute('settlements', {
  method: 'post',
  path: '/v1/marketplace/settlements',
  tags: ['Marketplace'],
  summary: 'Settle a period',
  description:
    'Computes what each provider is owed for the period (sessions completed and paid, platform fee, refunds, ' +
    'adjustments) in a Temporal workflow and posts it to the double-entry ledger. 202 with the PENDING run; poll ' +
    '`GET /v1/marketplace/settlements/{id}`. The same request again answers the same run (200), and starts it again ' +
    'if it FAILED (202): a period is never paid twice. A period partly overlapping another of the currency is ' +
    '`409 conflict`. See docs/marketplace.md.',
  request: { body: { required: true, content: { 'application/json': { schema: SettlementCreate } } } },
  responses: {
    200: json(Settlement, 'This request was made before: its run'),
    202: json(Settlement, 'The run, accepted (PENDING) or started again'),
    ...problemResponses(400, 409, 413, 415, 422, ...COMMON_ERRORS),
  },
})

const SettlementId = IdParam('settlement')

export const getSettlementRoute = protectedRoute('settlements.read', {
  method: 'get',
  path: '/v1/marketplace/settlements/{id}',
  tags: ['Marketplace'],
  summary: 'Retrieve a settlement: status and per-provider results',
  request: { params: SettlementId },
  responses: { 200: json(Settlement, 'The settlement'), ...problemResponses(404, ...COMMON_ERRORS) },
})

const q = (name: string) => ({ param: { name, in: 'query' as const } })

export const listSettlementsRoute = protectedRoute('settlements.read', {
  method: 'get',
  path: '/v1/marketplace/settlements',
  tags: ['Marketplace'],
  summary: 'List settlements',
  request: {
    query: listQuerySchema(SETTLEMENT_SORTS, '-createdAt').extend({
      status: z.enum(SETTLEMENT_STATUSES).optional().openapi(q('status')),
      currency: z
        .string()
        .regex(/^[A-Z]{3}$/)
        .optional()
        .openapi(q('currency')),
    }),
  },
  responses: {
    200: json(pageOf(Settlement, 'SettlementPage'), 'A page of settlements'),
    ...problemResponses(400, ...COMMON_ERRORS),
  },
})
