/**
 * @module The ledger check as a test helper (domain/reconciliation/ledger-check.ts): after a payments test, one
 * tenant's books are checked against the database's own rules and against what the stripe-mock proxy holds for the
 * tenant (read through the reconciliation's Stripe source, as the daily run reads Stripe), and the test fails with
 * every violation listed. The proxy records the source's list requests like any other. Like a run, the source asks
 * Stripe for the tenant's objects alone: its intents by search, and the transfers to its connected accounts.
 */
import { expect } from 'vitest'
import { checkLedger, type LedgerViolation } from '../../domain/reconciliation/ledger-check.ts'
import { loadConnectedAccounts } from '../../domain/reconciliation/platform-records.ts'
import { runInUnitOfWork } from '../../infra/unit-of-work.ts'
import { stripeReconciliationSource } from '../../adapters/stripe/stripe-reconciliation-source.ts'
import type { PlatformBase } from './platform.ts'
import type { StripeMock } from './stripe-mock.ts'

/** Everything Stripe could hold: its `created` is in seconds since 1970, and nothing is made in the future. */
const ALL_TIME = { from: new Date(0), to: new Date('2100-01-01T00:00:00Z') }

/**
 * The violations of one tenant's books; against the proxy's Stripe too when `stripe` is given.
 * @param platform - whose database holds the tenant
 */
export async function ledgerViolationsOf(
  platform: Pick<PlatformBase, 'db' | 'config'>,
  tenantId: string,
  stripe?: StripeMock
): Promise<LedgerViolation[]> {
  // Its transfers are those to its connected accounts, as a run lists them.
  const connectedAccounts = stripe
    ? await runInUnitOfWork(platform.db, tenantId, (uow) => loadConnectedAccounts(uow, 'stripe'))
    : []
  const snapshot = stripe
    ? await stripeReconciliationSource({
        secretKey: platform.config.STRIPE_SECRET_KEY ?? 'sk_test_123',
        apiBase: stripe.url,
      }).list(tenantId, ALL_TIME, { connectedAccounts })
    : undefined
  return checkLedger(platform.db, tenantId, snapshot)
}

/** Fails the test, listing every violation, unless the tenant's books hold. */
export async function expectLedgerHolds(
  platform: Pick<PlatformBase, 'db' | 'config'>,
  tenantId: string,
  stripe?: StripeMock
): Promise<void> {
  const violations = await ledgerViolationsOf(platform, tenantId, stripe)
  const listed = violations.map((v) => `${v.rule} ${v.subject}: ${v.detail}`).join('\n')
  expect(violations, `the ledger check of tenant ${tenantId} failed:\n${listed}`).toEqual([])
}
