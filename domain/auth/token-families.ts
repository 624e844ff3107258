/**
 * @module Refresh-token families: every refresh token descended from one grant, each with the access token issued
 * beside it. Revoking a family (a rotated refresh token presented again, RFC 9700 §4.14.2; or a refresh token revoked
 * through RFC 7009, §2.1) revokes its refresh tokens and puts the unexpired access tokens it issued on the revocation
 * list, so a thief's copy dies with its access tokens, not 15 minutes later.
 *
 * A family is changed only under its advisory lock: a rotation (claim the presented token, store its successor)
 * and a revocation serialise, so a successor stored while the family is being revoked cannot escape it. Without the
 * lock, an UPDATE of the family started just before the successor's INSERT commits does not see that row.
 */
import type { Db, Tx } from '../../infra/db.ts'
import type { RevocationList } from './revocation-list.ts'

/** An access token put on the revocation list. */
export interface RevokedAccessToken {
  jti: string
  expiresAt: Date
}

/**
 * Runs `work` in a transaction holding the family's lock.
 * @param familyId - the family's id
 */
export function withFamilyLock<T>(db: Db, familyId: string, work: (tx: Tx) => Promise<T>): Promise<T> {
  return db.$transaction(async (tx) => {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`refresh-family:${familyId}`}))`
    return work(tx)
  })
}

/**
 * Revokes every refresh token of the family and every unexpired access token issued with one, and records the access
 * tokens in this instance's list at once (the others read them within their sync interval).
 * @param now - the revocation's time
 * @returns the access tokens revoked
 */
export async function revokeTokenFamily(
  db: Db,
  revocations: Pick<RevocationList, 'add'>,
  familyId: string,
  now: Date
): Promise<RevokedAccessToken[]> {
  const revoked = await withFamilyLock(db, familyId, async (tx) => {
    await tx.refreshToken.updateMany({ where: { familyId, revokedAt: null }, data: { revokedAt: now } })
    // Every member, rotated or revoked before: the access token issued with it may still be valid.
    const members = await tx.refreshToken.findMany({
      where: { familyId, accessTokenId: { not: null }, accessTokenExpiresAt: { gt: now } },
      select: { tenantId: true, accessTokenId: true, accessTokenExpiresAt: true },
    })
    const tokens = members.flatMap((m) =>
      m.accessTokenId && m.accessTokenExpiresAt
        ? [{ jti: m.accessTokenId, tenantId: m.tenantId, expiresAt: m.accessTokenExpiresAt }]
        : []
    )
    if (tokens.length > 0) await tx.revokedAccessToken.createMany({ data: tokens, skipDuplicates: true })
    return tokens
  })
  for (const token of revoked) revocations.add(token.jti, token.expiresAt)
  return revoked.map(({ jti, expiresAt }) => ({ jti, expiresAt }))
}
