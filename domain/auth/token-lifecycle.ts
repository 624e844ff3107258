/**
 * @module Revocation (RFC 7009) and introspection (RFC 7662) of the tokens we issue. A client may act only on its
 * own tokens: anything else is treated as unknown, which revocation answers with success and introspection with
 * `{ "active": false }`, so neither discloses whether another client's token exists.
 */
import { decodeJwt } from 'jose'
import type { Clock } from '../../infra/clock.ts'
import type { Db } from '../../infra/db.ts'
import { AppError } from '../errors.ts'
import { verifyAccessToken, type AccessTokenSettings, type ClientPrincipal } from './access-tokens.ts'
import { hashSecret } from './secrets.ts'
import { clientRevocationKey, type RevocationList } from './revocation-list.ts'
import type { SigningKeys } from './signing-keys.ts'
import { revokeTokenFamily } from './token-families.ts'

export type TokenTypeHint = 'access_token' | 'refresh_token'

export type IntrospectionResponse =
  | { active: false }
  | {
      active: true
      token_type: 'Bearer' | 'refresh_token'
      scope: string
      client_id: string
      tenant_id: string
      exp: number
      iat?: number
      sub?: string
      aud?: string
      iss?: string
      jti?: string
    }

export interface TokenLifecycleDeps {
  db: Db
  keys: SigningKeys
  clock: Clock
  accessTokens: Omit<AccessTokenSettings, 'ttlSeconds'>
  revocations: RevocationList
}

const looksLikeJwt = (token: string) => token.split('.').length === 3

/** Creates the revocation and introspection service. */
export function createTokenLifecycle({ db, keys, clock, accessTokens, revocations }: TokenLifecycleDeps) {
  async function ownAccessToken(clientId: string, token: string): Promise<ClientPrincipal | undefined> {
    try {
      const principal = await verifyAccessToken(keys, accessTokens, clock, token)
      return principal.clientId === clientId ? principal : undefined
    } catch (error) {
      if (error instanceof AppError) return undefined
      throw error
    }
  }

  async function ownRefreshToken(clientId: string, token: string) {
    const stored = await db.refreshToken.findUnique({ where: { tokenHash: hashSecret(token) } })
    return stored && stored.clientId === clientId ? stored : undefined
  }

  /**
   * Revokes a token of `clientId`. Access tokens go on a deny-list until they expire; a refresh token revokes its
   * whole family, and the family's unexpired access tokens. Unknown, foreign or already invalid tokens are ignored
   * (RFC 7009 §2.2).
   * @param hint - where to look first; both kinds are tried regardless
   */
  async function revoke(clientId: string, token: string, hint?: TokenTypeHint): Promise<void> {
    const now = clock()
    const tryAccess = async () => {
      if (!looksLikeJwt(token)) return false
      const principal = await ownAccessToken(clientId, token)
      if (!principal) return false
      const expiresAt = new Date((decodeJwt(token).exp ?? Math.floor(now.getTime() / 1000)) * 1000)
      await db.revokedAccessToken.upsert({
        where: { jti: principal.tokenId },
        create: { jti: principal.tokenId, tenantId: principal.tenantId, expiresAt },
        update: {},
      })
      revocations.add(principal.tokenId, expiresAt)
      return true
    }
    const tryRefresh = async () => {
      const stored = await ownRefreshToken(clientId, token)
      if (!stored) return false
      // The access tokens issued from the same grant go with it (RFC 7009 §2.1).
      await revokeTokenFamily(db, revocations, stored.familyId, now)
      return true
    }
    const order = hint === 'refresh_token' ? [tryRefresh, tryAccess] : [tryAccess, tryRefresh]
    for (const attempt of order) if (await attempt()) return
  }

  /** Describes a token of `clientId`, or `{ active: false }` for anything not currently usable by it. */
  async function introspect(clientId: string, token: string): Promise<IntrospectionResponse> {
    if (looksLikeJwt(token)) {
      const principal = await ownAccessToken(clientId, token)
      if (!principal) return { active: false }
      // The database, not the in-memory list: introspection must be exact across instances.
      const revoked = await db.revokedAccessToken.findFirst({
        where: { jti: { in: [principal.tokenId, clientRevocationKey(principal.clientId)] } },
        select: { jti: true },
      })
      if (revoked) return { active: false }
      const claims = decodeJwt(token)
      return {
        active: true,
        token_type: 'Bearer',
        scope: principal.scopes.join(' '),
        client_id: principal.clientId,
        tenant_id: principal.tenantId,
        exp: claims.exp!,
        iat: claims.iat,
        sub: claims.sub,
        aud: accessTokens.audience,
        iss: accessTokens.issuer,
        jti: principal.tokenId,
      }
    }
    const stored = await ownRefreshToken(clientId, token)
    if (!stored || stored.revokedAt || stored.rotatedAt || stored.expiresAt <= clock()) return { active: false }
    return {
      active: true,
      token_type: 'refresh_token',
      scope: stored.scopes.join(' '),
      client_id: stored.clientId,
      tenant_id: stored.tenantId,
      exp: Math.floor(stored.expiresAt.getTime() / 1000),
      iat: Math.floor(stored.createdAt.getTime() / 1000),
    }
  }

  return { revoke, introspect }
}

export type TokenLifecycle = ReturnType<typeof createTokenLifecycle>
