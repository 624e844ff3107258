/**
 * @module Route table of marketplace payouts (Stripe Connect; docs/marketplace.md, "Payouts"): a provider's payout
 * account and its onboarding link, the transfers of a settlement run, and an operator's retry of one.
 */
import { z } from '@hono/zod-openapi'
import { PayoutAccountStatus, PayoutTransferStatus } from '../../../generated/prisma/enums.ts'
import { resourceId } from '../../../domain/id-schema.ts'
import { COMMON_ERRORS, problemResponses, protectedRoute } from '../../openapi/routes.ts'
import { IdParam, UtcDateTime } from '../../openapi/schemas.ts'

const json = (schema: z.ZodTypeAny, description: string) => ({
  description,
  content: { 'application/json': { schema } },
})

const HttpsUrl = z.string().url().max(2000)

export const PayoutAccountLinkRequest = z
  .strictObject({
    returnUrl: HttpsUrl.openapi({ description: 'Where the processor sends the provider when onboarding is done' }),
    refreshUrl: HttpsUrl.openapi({
      description: 'Where it sends them when the link has expired: your page that asks for a new link',
    }),
  })
  .openapi('PayoutAccountLinkRequest')

export const PayoutAccount = z
  .object({
    providerId: z.string(),
    accountId: z.string().openapi({ description: "The processor's connected account (Stripe: acct_...)" }),
    status: z.enum(PayoutAccountStatus).openapi('PayoutAccountStatus', {
      description: 'ACTIVE once the processor enables payouts (its `account.updated` event)',
    }),
    updatedAt: UtcDateTime,
  })
  .openapi('PayoutAccount')

export const PayoutAccountLink = PayoutAccount.extend({
  onboardingUrl: z.string().openapi({ description: "One-time link to the processor's onboarding pages" }),
  onboardingUrlExpiresAt: UtcDateTime,
}).openapi('PayoutAccountLink')

export const PayoutTransfer = z
  .object({
    id: resourceId('payoutTransfer'),
    settlementId: z.string(),
    providerSettlementId: z.string(),
    providerId: z.string(),
    amount: z.number().int(),
    currency: z.string(),
    status: z.enum(PayoutTransferStatus).openapi('PayoutTransferStatus', {
      description:
        'PENDING: being sent; PAID: accepted by the processor; FAILED (refused), REVERSED (taken back) and BLOCKED ' +
        '(no active payout account) wait for an operator to retry',
    }),
    attempt: z.number().int(),
    accountId: z.string().nullable(),
    processorReference: z.string().nullable().openapi({ description: "The processor's transfer (Stripe: tr_...)" }),
    failureMessage: z.string().nullable(),
    createdAt: UtcDateTime,
    updatedAt: UtcDateTime,
  })
  .openapi('PayoutTransfer')

const providerParam = IdParam('provider')

export const linkPayoutAccountRoute = protectedRoute('providers', {
  method: 'post',
  path: '/v1/providers/{id}/payout-account',
  tags: ['Marketplace'],
  summary: "Link a provider to a payout account and get the processor's onboarding link",
  description:
    "Creates the provider's connected account at the processor the first time (Stripe Connect Express), and answers a " +
    "fresh one-time onboarding link every time: the provider enters identity and bank details on the processor's " +
    'pages, never here. 409 `processor_not_configured` without a processor.',
  request: {
    params: providerParam,
    body: { required: true, content: { 'application/json': { schema: PayoutAccountLinkRequest } } },
  },
  responses: {
    200: json(PayoutAccountLink, 'The account and its onboarding link'),
    ...problemResponses(400, 404, 409, 413, 415, 503, ...COMMON_ERRORS),
  },
})

export const getPayoutAccountRoute = protectedRoute('providers.read', {
  method: 'get',
  path: '/v1/providers/{id}/payout-account',
  tags: ['Marketplace'],
  summary: "A provider's payout account",
  request: { params: providerParam },
  responses: { 200: json(PayoutAccount, 'The account'), ...problemResponses(404, ...COMMON_ERRORS) },
})

export const listSettlementPayoutsRoute = protectedRoute('settlements.read', {
  method: 'get',
  path: '/v1/marketplace/settlements/{id}/payouts',
  tags: ['Marketplace'],
  summary: 'The payout transfers of a settlement run',
  request: { params: IdParam('settlement') },
  responses: {
    200: json(z.object({ data: z.array(PayoutTransfer) }).openapi('PayoutTransferList'), 'Its transfers, by provider'),
    ...problemResponses(404, ...COMMON_ERRORS),
  },
})

export const retryPayoutRoute = protectedRoute('settlements', {
  method: 'post',
  path: '/v1/marketplace/payouts/{id}/retry',
  tags: ['Marketplace'],
  summary: 'Send a failed, reversed or blocked payout again',
  description:
    "A new attempt with its own idempotency key, to the provider's current active payout account, sent now. 409 for " +
    'a transfer PENDING or PAID, or a provider without an active account.',
  request: { params: IdParam('payoutTransfer') },
  responses: {
    200: json(PayoutTransfer, 'The transfer after the attempt'),
    ...problemResponses(404, 409, 503, ...COMMON_ERRORS),
  },
})
