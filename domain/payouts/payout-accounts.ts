/**
 * @module A marketplace provider's payout account at the processor (Stripe Connect Express; docs/marketplace.md,
 * "Payouts"). Linking creates the account once per provider (the processor's idempotency key is the provider's, so
 * a retried or concurrent request cannot create two) and answers a fresh onboarding link each time: the provider
 * enters their identity and bank details on the processor's pages, never ours. Whether payouts are enabled comes
 * from the processor's signed `account.updated` events.
 */
import type { PayoutAccountStatus } from '../../generated/prisma/enums.ts'
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import { dependencyUnavailable, notFound } from '../errors.ts'
import { newId } from '../ids.ts'
import type { OnlineProcessorEvent } from '../payments/online-processor-events.ts'
import type { PayoutProcessor } from './payout-processor.ts'
import { assertRedirectUrls, type RedirectUrls } from './redirect-urls.ts'

export interface PayoutAccountView {
  providerId: string
  accountId: string
  status: PayoutAccountStatus
  updatedAt: Date
  payoutFailedReference: string | null
  payoutFailedAmount: number | null
  payoutFailedCurrency: string | null
  payoutFailureCode: string | null
  payoutFailureMessage: string | null
  payoutFailedAt: Date | null
}

/** Calls the processor without holding the unit's transaction; a failure is the processor being unavailable. */
async function callProcessor<T>(uow: UnitOfWork, call: () => Promise<T>): Promise<T> {
  try {
    return await uow.release(call)
  } catch (error) {
    throw dependencyUnavailable('The payout processor', error)
  }
}

async function assertProvider({ tx, tenantId }: UnitOfWork, providerId: string) {
  const provider = await tx.provider.findFirst({ where: { id: providerId, tenantId }, select: { id: true } })
  if (!provider) throw notFound('provider', providerId)
}

/** The provider's payout account. @throws AppError `not_found` (provider, or no account linked yet) */
export async function getPayoutAccount(uow: UnitOfWork, providerId: string): Promise<PayoutAccountView> {
  await assertProvider(uow, providerId)
  const account = await uow.tx.providerPayoutAccount.findFirst({ where: { tenantId: uow.tenantId, providerId } })
  if (!account) throw notFound('payout account of provider', providerId)
  return account
}

/**
 * Links the provider to a connected account (created on first use) and answers a one-time onboarding link.
 * @param publicUrl - the platform's `PUBLIC_URL`, whose host the redirect URLs may name besides the tenant's
 * @throws AppError `validation_error` (a redirect URL not https or not on the tenant's domains: redirect-urls.ts),
 * `not_found` (provider), `dependency_unavailable` (the processor)
 */
export async function linkPayoutAccount(
  uow: UnitOfWork,
  providerId: string,
  urls: RedirectUrls,
  processor: PayoutProcessor,
  publicUrl: string
): Promise<PayoutAccountView & { onboardingUrl: string; onboardingUrlExpiresAt: Date }> {
  const { tx, tenantId } = uow
  await assertProvider(uow, providerId)
  // Before any account is created: a refused request leaves nothing at the processor.
  await assertRedirectUrls(uow, urls, publicUrl)
  let account = await tx.providerPayoutAccount.findFirst({ where: { tenantId, providerId } })
  if (!account) {
    const { accountId } = await callProcessor(uow, () =>
      processor.createConnectedAccount({ tenantId, providerId, idempotencyKey: `account:${tenantId}:${providerId}` })
    )
    // A concurrent link of the same provider got the same account from the processor (same key): keep one row.
    await tx.providerPayoutAccount.createMany({
      data: [
        {
          id: newId('payoutAccount'),
          tenantId,
          providerId,
          processor: processor.name,
          accountId,
          status: 'ONBOARDING',
        },
      ],
      skipDuplicates: true,
    })
    account = await tx.providerPayoutAccount.findFirstOrThrow({ where: { tenantId, providerId } })
  }
  const { accountId } = account
  const link = await callProcessor(uow, () => processor.createOnboardingLink({ accountId, ...urls }))
  return { ...account, onboardingUrl: link.url, onboardingUrlExpiresAt: link.expiresAt }
}

/**
 * Records a payout from a provider's connected account to their bank that failed, shown on the payout account until a
 * later one fails (an older report never replaces a newer one). The books do not move: the money is back on the
 * connected account's balance, which Stripe pays out again once the provider fixes their bank details.
 * @param reportedAt - when the processor created its event
 */
export async function applyPayoutFailed(
  { tx, tenantId }: UnitOfWork,
  event: Omit<Extract<OnlineProcessorEvent, { kind: 'payout.failed' }>, 'kind' | 'eventId'>,
  reportedAt: Date
): Promise<'applied' | 'unchanged' | 'unknown_record'> {
  const account = await tx.providerPayoutAccount.findFirst({ where: { tenantId, accountId: event.accountId } })
  if (!account) return 'unknown_record'
  if (account.payoutFailedAt && account.payoutFailedAt > reportedAt) return 'unchanged'
  if (account.payoutFailedReference === event.payoutId) return 'unchanged'
  await tx.providerPayoutAccount.update({
    where: { id: account.id },
    data: {
      payoutFailedReference: event.payoutId,
      payoutFailedAmount: event.amount,
      payoutFailedCurrency: event.currency,
      payoutFailureCode: event.failureCode,
      payoutFailureMessage: event.failureMessage?.slice(0, 500) ?? null,
      payoutFailedAt: reportedAt,
    },
  })
  return 'applied'
}

/**
 * Applies the processor's word on an account: ACTIVE when payouts are enabled, else RESTRICTED (or still ONBOARDING).
 * Runs in the unit of work that stores the processor's event (domain/payments/processor-events.ts).
 * @returns whether a row changed
 */
export async function applyAccountUpdated(
  { tx, tenantId }: UnitOfWork,
  event: { providerId: string; accountId: string; payoutsEnabled: boolean }
): Promise<'applied' | 'unchanged' | 'unknown_record'> {
  const account = await tx.providerPayoutAccount.findFirst({
    where: { tenantId, providerId: event.providerId, accountId: event.accountId },
  })
  if (!account) return 'unknown_record'
  const status: PayoutAccountStatus = event.payoutsEnabled
    ? 'ACTIVE'
    : account.status === 'ONBOARDING'
      ? 'ONBOARDING'
      : 'RESTRICTED'
  if (status === account.status) return 'unchanged'
  await tx.providerPayoutAccount.update({ where: { id: account.id }, data: { status } })
  return 'applied'
}
