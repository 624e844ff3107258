/**
 * @module Route table of the marketplace's configuration and books: fee rules, payout adjustments, the ledger's
 * balances and journal entries.
 */
import { z } from '@hono/zod-openapi'
import { listQuerySchema } from '../../../domain/listing.ts'
import { mergePatchSchema } from '../../../domain/merge-patch.ts'
import { ADJUSTMENT_REASONS, ADJUSTMENT_SORTS } from '../../../domain/settlements/adjustment-service.ts'
import { FEE_RULE_SORTS, FeeRuleFieldsSchema } from '../../../domain/settlements/fee-rule-service.ts'
import { ENTRY_SORTS } from '../../../domain/settlements/ledger-service.ts'
import { COMMON_ERRORS, problemResponses, protectedRoute } from '../../openapi/routes.ts'
import { IdParam, UtcDateTime, pageOf } from '../../openapi/schemas.ts'
import { resourceId } from '../../../domain/id-schema.ts'
import { CurrencyCode } from '../../../domain/pricing/currency-schema.ts'

const json = (schema: z.ZodTypeAny, description: string) => ({
  description,
  content: { 'application/json': { schema } },
})
const q = (name: string, description?: string) => ({
  param: { name, in: 'query' as const },
  ...(description ? { description } : {}),
})
const Currency = z.string().regex(/^[A-Z]{3}$/, 'An ISO 4217 currency code')

// ---- Fee rules

export const FeeRule = z
  .object({
    id: resourceId('feeRule'),
    providerId: z.string().nullable().openapi({ description: "null: the tenant's default" }),
    percentBps: z.number().int(),
    fixedAmount: z.number().int(),
    fixedCurrency: z.string().nullable(),
    createdAt: UtcDateTime,
    updatedAt: UtcDateTime,
  })
  .openapi('FeeRule')

export const FeeRuleCreate = FeeRuleFieldsSchema.extend({
  providerId: resourceId('provider').optional().openapi({ description: "Absent: the tenant's default rule" }),
})
  .strict()
  .openapi('FeeRuleCreate', {
    // A flat fee names its currency (`required` on fixedCurrency otherwise).
    if: { required: ['fixedAmount'], properties: { fixedAmount: { exclusiveMinimum: 0 } } },
    then: { required: ['fixedCurrency'] },
  } as Record<string, unknown>)

export const FeeRulePatch = mergePatchSchema(FeeRuleFieldsSchema, { required: ['percentBps'] }).openapi('FeeRulePatch')

const FeeRuleId = IdParam('feeRule')

export const createFeeRuleRoute = protectedRoute('settlements', {
  method: 'post',
  path: '/v1/marketplace/fee-rules',
  tags: ['Marketplace'],
  summary: 'Create a platform fee rule',
  description:
    'One default per tenant (no providerId) and one per provider; a second for the same key is `409 conflict`.',
  request: { body: { required: true, content: { 'application/json': { schema: FeeRuleCreate } } } },
  responses: { 201: json(FeeRule, 'The rule'), ...problemResponses(400, 409, 413, 415, 422, ...COMMON_ERRORS) },
})

export const listFeeRulesRoute = protectedRoute('settlements.read', {
  method: 'get',
  path: '/v1/marketplace/fee-rules',
  tags: ['Marketplace'],
  summary: 'List platform fee rules',
  request: {
    query: listQuerySchema(FEE_RULE_SORTS, 'createdAt').extend({
      providerId: z.string().max(64).optional().openapi(q('providerId')),
    }),
  },
  responses: {
    200: json(pageOf(FeeRule, 'FeeRulePage'), 'A page of rules'),
    ...problemResponses(400, ...COMMON_ERRORS),
  },
})

export const patchFeeRuleRoute = protectedRoute('settlements', {
  method: 'patch',
  path: '/v1/marketplace/fee-rules/{id}',
  tags: ['Marketplace'],
  summary: 'Change a platform fee rule (JSON merge patch)',
  description: 'Applies to sessions settled from now on; settled sessions keep the rule they were charged under.',
  request: {
    params: FeeRuleId,
    body: {
      required: true,
      content: {
        'application/merge-patch+json': { schema: FeeRulePatch },
        'application/json': { schema: FeeRulePatch },
      },
    },
  },
  responses: { 200: json(FeeRule, 'The rule'), ...problemResponses(400, 404, 409, 413, 415, 422, ...COMMON_ERRORS) },
})

export const deleteFeeRuleRoute = protectedRoute('settlements', {
  method: 'delete',
  path: '/v1/marketplace/fee-rules/{id}',
  tags: ['Marketplace'],
  summary: 'Delete a platform fee rule',
  description: "A provider's rule gone, the tenant default applies; the default gone, no fee.",
  request: { params: FeeRuleId },
  responses: { 200: json(FeeRule, 'The deleted rule'), ...problemResponses(404, 409, 422, ...COMMON_ERRORS) },
})

// ---- Adjustments

export const Adjustment = z
  .object({
    id: resourceId('payoutAdjustment'),
    providerId: z.string(),
    amount: z.number().int().openapi({ description: 'Minor units; negative: the provider owes it back' }),
    currency: z.string(),
    reason: z.enum(ADJUSTMENT_REASONS),
    description: z.string().nullable(),
    providerSettlementId: z
      .string()
      .nullable()
      .openapi({ description: 'The provider settlement that paid it; null until then' }),
    createdAt: UtcDateTime,
  })
  .openapi('PayoutAdjustment')

export const AdjustmentCreate = z
  .strictObject({
    providerId: resourceId('provider'),
    amount: z.number().int().openapi({ example: 2500 }),
    currency: CurrencyCode,
    reason: z.enum(ADJUSTMENT_REASONS),
    description: z.string().trim().min(1).max(500).optional(),
  })
  .openapi('PayoutAdjustmentCreate')

export const createAdjustmentRoute = protectedRoute('settlements', {
  method: 'post',
  path: '/v1/marketplace/adjustments',
  tags: ['Marketplace'],
  summary: 'Record a payout adjustment',
  description:
    'Paid by the first settlement of its currency whose period ends after now. Never edited: correct it with another.',
  request: { body: { required: true, content: { 'application/json': { schema: AdjustmentCreate } } } },
  responses: {
    201: json(Adjustment, 'The adjustment'),
    ...problemResponses(400, 409, 413, 415, 422, ...COMMON_ERRORS),
  },
})

export const getAdjustmentRoute = protectedRoute('settlements.read', {
  method: 'get',
  path: '/v1/marketplace/adjustments/{id}',
  tags: ['Marketplace'],
  summary: 'Retrieve a payout adjustment',
  request: { params: IdParam('payoutAdjustment') },
  responses: { 200: json(Adjustment, 'The adjustment'), ...problemResponses(404, ...COMMON_ERRORS) },
})

export const listAdjustmentsRoute = protectedRoute('settlements.read', {
  method: 'get',
  path: '/v1/marketplace/adjustments',
  tags: ['Marketplace'],
  summary: 'List payout adjustments',
  request: {
    query: listQuerySchema(ADJUSTMENT_SORTS, '-createdAt').extend({
      providerId: z.string().max(64).optional().openapi(q('providerId')),
      currency: Currency.optional().openapi(q('currency')),
    }),
  },
  responses: {
    200: json(pageOf(Adjustment, 'PayoutAdjustmentPage'), 'A page of adjustments'),
    ...problemResponses(400, ...COMMON_ERRORS),
  },
})

// ---- Ledger

export const AccountBalance = z
  .object({
    account: z.string().openapi({ example: 'provider_payable:prv_019a...' }),
    currency: z.string(),
    debit: z.number().int(),
    credit: z.number().int(),
    balance: z.number().int().openapi({ description: 'debit − credit' }),
  })
  .openapi('LedgerAccountBalance')

export const LedgerBalances = z
  .object({
    data: z.array(AccountBalance),
    totals: z
      .array(z.object({ currency: z.string(), debit: z.number().int(), credit: z.number().int() }))
      .openapi({ description: 'Per currency: total debits equal total credits' }),
  })
  .openapi('LedgerBalances')

export const getLedgerBalancesRoute = protectedRoute('settlements.read', {
  method: 'get',
  path: '/v1/marketplace/ledger/balances',
  tags: ['Marketplace'],
  summary: 'Balances of the ledger accounts (a trial balance)',
  request: {
    query: z.object({
      currency: Currency.optional().openapi(q('currency')),
      accountPrefix: z.string().max(100).optional().openapi(q('accountPrefix', 'e.g. `provider_payable:`')),
    }),
  },
  responses: { 200: json(LedgerBalances, 'Every account with lines'), ...problemResponses(400, ...COMMON_ERRORS) },
})

export const LedgerEntry = z
  .object({
    id: resourceId('ledgerEntry'),
    currency: z
      .string()
      .openapi({ description: "The entry's currency: its lines', but for money a processor converted." }),
    description: z.string(),
    postedAt: UtcDateTime,
    settlementId: z.string().nullable(),
    providerId: z.string().nullable(),
    providerSettlementId: z.string().nullable(),
    lines: z.array(
      z.object({
        id: z.string(),
        account: z.string(),
        currency: z.string().openapi({
          description:
            "The line's currency. An entry of money a processor converted has lines in the payment's currency and in " +
            "the one the processor's balance keeps, through `fx_conversion`; each currency balances on its own " +
            '(docs/marketplace.md, "Money the processor converted").',
        }),
        debit: z.number().int(),
        credit: z.number().int(),
        settlementItemId: z.string().nullable(),
      })
    ),
  })
  .openapi('LedgerEntry')

export const listLedgerEntriesRoute = protectedRoute('settlements.read', {
  method: 'get',
  path: '/v1/marketplace/ledger/entries',
  tags: ['Marketplace'],
  summary: 'List journal entries with their lines',
  request: {
    query: listQuerySchema(ENTRY_SORTS, '-postedAt').extend({
      settlementId: z.string().max(64).optional().openapi(q('settlementId')),
      providerId: z.string().max(64).optional().openapi(q('providerId')),
      currency: Currency.optional().openapi(q('currency')),
    }),
  },
  responses: {
    200: json(pageOf(LedgerEntry, 'LedgerEntryPage'), 'A page of entries'),
    ...problemResponses(400, ...COMMON_ERRORS),
  },
})
