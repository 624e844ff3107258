/**
 * @module Route table of marketplace payouts (Stripe Connect; docs/marketplace.md, "Payouts"): a provider's payout
 * account and its onboarding link, the transfers of a settlement run, and an operator's retry of one.
 */
import { z } from '@hono/zod-openapi'
import { orNull } from '../../../domain/nullable.ts'
import { PayoutAccountStatus, PayoutAttemptStatus, PayoutTransferStatus } from '../../../generated/prisma/enums.ts'
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
    failedPayout: orNull(
      z
        .object({
          id: z.string().openapi({ description: "The processor's payout (Stripe: po_...)" }),
          amount: z.number().int().openapi({ description: 'Minor units of `currency`' }),
          currency: z.string(),
          failureCode: z
            .string()
            .nullable()
            .openapi({ description: "The processor's code (Stripe: `account_closed`...)" }),
          failureMessage: z.string().nullable(),
          failedAt: UtcDateTime,
        })
        .openapi('FailedPayout', {
          description:
            "The latest payout from the connected account to the provider's bank that failed (Stripe's `payout.failed`): " +
            'the provider has not received it; the money is back on the account, paid out again once their bank ' +
            'details are fixed. Null when none failed.',
        })
    ),
  })
  .openapi('PayoutAccount')

export const PayoutAccountLink = PayoutAccount.extend({
  onboardingUrl: z.string().openapi({ description: "One-time link to the processor's onboarding pages" }),
  onboardingUrlExpiresAt: UtcDateTime,
}).openapi('PayoutAccountLink')

const PayoutAttemptSent = z
  .object({
    currency: z.string(),
    amount: z.number().int().openapi({ description: 'Minor units of `currency` sent' }),
    amountReversed: z.number().int().openapi({ description: 'Of it, taken back by the processor' }),
  })
  .openapi('PayoutAttemptSent', {
    description:
      "What it sent from a processor balance kept in another currency than the settlement's (its `amount` and " +
      "`amountReversed` are their share in the settlement's currency); null when sent in the settlement's currency",
  })

const PayoutTransferSent = z
  .object({
    currency: z.string().openapi({ description: 'The currency the processor balance keeps (upper-case ISO)' }),
    rate: z.number().openapi({
      description:
        "Minor units of it per minor unit of the settlement's currency: the value-weighted rate of the charges " +
        "that paid the settlement's sessions (each charge's settled amount over its amount), fixed at the transfer",
    }),
    amount: z.number().int().openapi({ description: 'What arrived in it, net of reversals (minor units)' }),
  })
  .openapi('PayoutTransferSent', {
    description:
      'A payout from a processor balance kept in another currency (docs/marketplace.md, "Payouts from a ' +
      'converted balance"): `amount` and `currency` are what the settlement owes, this is what was paid. Null ' +
      "when sent in the settlement's currency",
  })

export const PayoutTransferAttempt = z
  .object({
    attempt: z
      .number()
      .int()
      .openapi({ description: 'Its number; its idempotency key is `transfer:<tenant>:<transfer>:<attempt>`' }),
    amount: z.number().int().openapi({ description: 'What it sent: what was still owed when it was recorded' }),
    status: z.enum(PayoutAttemptStatus).openapi('PayoutAttemptStatus', {
      description:
        'PENDING: recorded and being sent; PAID: the processor made it; FAILED: refused, or not found at the processor after its idempotency window',
    }),
    accountId: z.string(),
    processorReference: z.string().nullable().openapi({ description: "The processor's transfer (Stripe: tr_...)" }),
    amountReversed: z.number().int().openapi({ description: 'Taken back of it by the processor' }),
    sent: orNull(PayoutAttemptSent),
    failureMessage: z.string().nullable(),
    firstSentAt: UtcDateTime.nullable(),
  })
  .openapi('PayoutTransferAttempt')

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
        'PENDING: being sent; PAID: accepted by the processor; FAILED (refused), REVERSED (taken back), ' +
        'PARTIALLY_REVERSED (part taken back, the rest still paid) and BLOCKED (no active payout account) wait for an ' +
        'operator to retry',
    }),
    attempt: z.number().int().openapi({ description: 'The number of the last attempt' }),
    accountId: z.string().nullable(),
    processorReference: z
      .string()
      .nullable()
      .openapi({ description: "The processor's transfer (Stripe: tr_...) of the last attempt paid" }),
    amountReversed: z.number().int().openapi({ description: 'Taken back by the processor, over all attempts' }),
    amountCarried: z
      .number()
      .int()
      .openapi({
        description:
          "Owed but not sent, put back on the provider's payable balance and paid by their next settlement (its " +
          '`carriedForward`): below what the processor transfers when an operator retried it (Stripe: whole HUF and ' +
          'TWD), or held back (`amountHeld`)',
      }),
    amountHeld: z
      .number()
      .int()
      .openapi({
        description:
          'Of `amountCarried`, what the transfer step held back: what a settlement made at that moment would take or ' +
          "hold for the provider's disputes opened and refunds requested since their settlement, beyond their " +
          'payable balance (docs/marketplace.md, "Reserves"). The next settlement reserves it while they are open, ' +
          'takes it once lost or succeeded, and pays it once released',
      }),
    sent: orNull(PayoutTransferSent),
    failureMessage: z.string().nullable(),
    attempts: z.array(PayoutTransferAttempt).openapi({ description: 'Every send of the transfer, oldest first' }),
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
    "pages, never here. Both redirect URLs must be `https://` on one of the tenant's domains (the host of one of its " +
    "webhook endpoints, or the platform's own host), else 400 `validation_error` naming the field " +
    '(`https_required`, `host_not_allowed`). 409 `processor_not_configured` without a processor.',
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
    'A new attempt with its own idempotency key for what is still owed (the amount less what earlier attempts paid and ' +
    "kept), to the provider's current active payout account, sent now. What is owed is recomputed, never resent as " +
    'it was refused: only what the processor transfers is sent (rounded down: whole HUF and TWD at Stripe), and the ' +
    "rest goes back to the provider's payable balance for their next settlement (`amountCarried`), as does what the " +
    "provider's disputes and refunds opened since would take (`amountHeld`). 409 for a " +
    'transfer PENDING or PAID, nothing owed, or a provider without an active account.',
  request: { params: IdParam('payoutTransfer') },
  responses: {
    200: json(PayoutTransfer, 'The transfer after the attempt'),
    ...problemResponses(404, 409, 503, ...COMMON_ERRORS),
  },
})
