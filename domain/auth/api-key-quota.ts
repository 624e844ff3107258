/**
 * @module The tenant's quota of active API keys (API_KEYS_PER_TENANT; docs/rate-limits.md, "Quotas"). The rate limit
 * counts per credential, so a tenant minting keys without end would mint request rate without end (security review
 * finding 7). Active: neither revoked nor expired.
 */
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import { quotaExceeded } from '../errors.ts'

/**
 * Refuses the key just created in the unit's transaction when it takes the tenant beyond its quota; the refusal
 * rolls the creation back. Counted after the insert and under a transaction-scoped lock of the tenant, so of two
 * concurrent creations for the last place the second counts the first once it commits.
 * @param maxActive - the quota
 * @param now - what "expired" is measured against
 * @throws AppError 409 `quota_exceeded` naming the quota and its limit
 */
export async function checkApiKeyQuota({ tx, tenantId }: UnitOfWork, maxActive: number, now: Date): Promise<void> {
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`api-keys:${tenantId}`}))`
  const active = await tx.apiKey.count({
    where: { tenantId, revokedAt: null, OR: [{ expiresAt: null }, { expiresAt: { gt: now } }] },
  })
  if (active > maxActive) {
    throw quotaExceeded(
      `The tenant holds ${active - 1} active API keys; its quota is ${maxActive} (API_KEYS_PER_TENANT). ` +
        'Revoke a key no integration uses any more, or ask the operator to raise the quota.'
    )
  }
}
