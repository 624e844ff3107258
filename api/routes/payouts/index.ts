/** @module Marketplace payouts (Stripe Connect): thin handlers over domain/payouts. */
import { OpenAPIHono, type z } from '@hono/zod-openapi'
import { AppError } from '../../../domain/errors.ts'
import { getPayoutAccount, linkPayoutAccount, type PayoutAccountView } from '../../../domain/payouts/payout-accounts.ts'
import { listPayouts, retryPayout, type PayoutTransferView } from '../../../domain/payouts/payout-transfers.ts'
import type { AppDeps, AppEnv } from '../../app-env.ts'
import { validationHook } from '../../openapi/validation-hook.ts'
import {
  getPayoutAccountRoute,
  linkPayoutAccountRoute,
  listSettlementPayoutsRoute,
  retryPayoutRoute,
  type PayoutTransfer,
} from './payouts.routes.ts'

/** The latest payout to the provider's bank that failed, as the API shows it. */
const failedPayoutOf = (a: PayoutAccountView) =>
  a.payoutFailedReference && a.payoutFailedAt
    ? {
        id: a.payoutFailedReference,
        amount: a.payoutFailedAmount ?? 0,
        currency: a.payoutFailedCurrency ?? '',
        failureCode: a.payoutFailureCode,
        failureMessage: a.payoutFailureMessage,
        failedAt: a.payoutFailedAt.toISOString(),
      }
    : null

const notConfigured = () =>
  new AppError(409, 'processor_not_configured', 'Processor not configured', {
    detail: 'This deployment has no payout processor configured (ONLINE_PAYMENT_PROCESSOR).',
  })

const toTransfer = (t: PayoutTransferView): z.infer<typeof PayoutTransfer> => ({
  ...t,
  attempts: t.attempts.map((a) => ({ ...a, firstSentAt: a.firstSentAt?.toISOString() ?? null })),
  createdAt: t.createdAt.toISOString(),
  updatedAt: t.updatedAt.toISOString(),
})

export function payoutRoutes({
  db,
  clock,
  config,
  onlinePayments,
}: Pick<AppDeps, 'db' | 'clock' | 'config' | 'onlinePayments'>) {
  return new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
    .openapi(linkPayoutAccountRoute, async (c) => {
      if (!onlinePayments) throw notConfigured()
      const { id } = c.req.valid('param')
      const linked = await linkPayoutAccount(c.var.uow, id, c.req.valid('json'), onlinePayments, config.PUBLIC_URL)
      return c.json(
        {
          providerId: linked.providerId,
          accountId: linked.accountId,
          status: linked.status,
          updatedAt: linked.updatedAt.toISOString(),
          failedPayout: failedPayoutOf(linked),
          onboardingUrl: linked.onboardingUrl,
          onboardingUrlExpiresAt: linked.onboardingUrlExpiresAt.toISOString(),
        },
        200
      )
    })
    .openapi(getPayoutAccountRoute, async (c) => {
      const account = await getPayoutAccount(c.var.uow, c.req.valid('param').id)
      return c.json(
        {
          providerId: account.providerId,
          accountId: account.accountId,
          status: account.status,
          updatedAt: account.updatedAt.toISOString(),
          failedPayout: failedPayoutOf(account),
        },
        200
      )
    })
    .openapi(listSettlementPayoutsRoute, async (c) => {
      const transfers = await listPayouts(c.var.uow, c.req.valid('param').id)
      return c.json({ data: transfers.map(toTransfer) }, 200)
    })
    .openapi(retryPayoutRoute, async (c) => {
      if (!onlinePayments) throw notConfigured()
      const retried = await retryPayout(c.var.uow, c.req.valid('param').id, onlinePayments, db, clock())
      return c.json(toTransfer(retried), 200)
    })
}
