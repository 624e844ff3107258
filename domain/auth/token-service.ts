/**
 * @module The OAuth 2.0 token endpoint's logic: the client-credentials grant (docs/architecture.md,
 * "Authentication") and the refresh-token
 * grant with rotation. A refresh token that was already rotated is a sign of theft: presenting it revokes its whole
 * family (RFC 9700 §4.14.2), the access tokens issued from it included (token-families.ts).
 */
import type { Clock } from '../../infra/clock.ts'
import type { Db } from '../../infra/db.ts'
import { newId } from '../ids.ts'
import { issueAccessToken, type AccessTokenSettings } from './access-tokens.ts'
import { OAuthError } from './oauth-error.ts'
import { isWithinGrant, parseScopeString } from './scopes.ts'
import { generateSecret, hashSecret, verifySecret } from './secrets.ts'
import type { RevocationList } from './revocation-list.ts'
import type { SigningKeys } from './signing-keys.ts'
import { revokeTokenFamily, withFamilyLock } from './token-families.ts'

/** The token response (RFC 6749 §5.1, plus the refresh token described in docs/architecture.md, "Authentication"). */
export interface TokenResponse {
  access_token: string
  token_type: 'Bearer'
  expires_in: number
  scope: string
  refresh_token: string
}

export interface ClientCredentials {
  clientId: string
  clientSecret: string
}

export interface TokenServiceDeps {
  db: Db
  keys: SigningKeys
  clock: Clock
  accessTokens: AccessTokenSettings
  refreshTokenTtlSeconds: number
  /** Where a reused refresh token's family puts its access tokens. */
  revocations: Pick<RevocationList, 'add'>
}

export interface TokenService {
  /** Checks a client's credentials. @throws OAuthError `invalid_client` */
  authenticateClient(client: ClientCredentials): Promise<{ id: string; tenantId: string; scopes: string[] }>
  clientCredentials(client: ClientCredentials, scope?: string): Promise<TokenResponse>
  refresh(client: ClientCredentials, refreshToken: string, scope?: string): Promise<TokenResponse>
}

/** Creates the token service. */
export function createTokenService(deps: TokenServiceDeps): TokenService {
  const { db, clock } = deps

  async function authenticateClient({ clientId, clientSecret }: ClientCredentials) {
    const client = await db.apiClient.findUnique({ where: { id: clientId } })
    if (!client || client.revokedAt || !verifySecret(clientSecret, client.secretHash)) {
      throw new OAuthError('invalid_client', 'Client authentication failed.')
    }
    return client
  }

  /** The requested scopes, or all of `granted` when none were asked for (RFC 6749 §3.3). */
  function resolveScopes(granted: readonly string[], requested: string | undefined): string[] {
    if (requested === undefined || requested.trim() === '') return [...granted]
    const parsed = parseScopeString(requested)
    if ('unknown' in parsed) throw new OAuthError('invalid_scope', `Unknown scope "${parsed.unknown}".`)
    if (!isWithinGrant(granted, parsed.scopes)) {
      throw new OAuthError('invalid_scope', 'The requested scope exceeds what this client was granted.')
    }
    return parsed.scopes
  }

  /**
   * Signs an access token and prepares the refresh token issued with it, whose row records the access token's id so
   * that revoking the family revokes it. Signing reads the signing key outside any transaction; the caller stores the
   * row, and until then no one holds either token.
   */
  async function mint(tenantId: string, clientId: string, scopes: string[], familyId: string) {
    const access = await issueAccessToken(deps.keys, deps.accessTokens, clock, { tenantId, clientId, scopes })
    const refreshToken = generateSecret('rt')
    const row = {
      id: newId('refreshToken'),
      tenantId,
      clientId,
      familyId,
      tokenHash: hashSecret(refreshToken),
      scopes,
      expiresAt: new Date(clock().getTime() + deps.refreshTokenTtlSeconds * 1000),
      accessTokenId: access.tokenId,
      accessTokenExpiresAt: access.expiresAt,
    }
    const response: TokenResponse = {
      access_token: access.token,
      token_type: 'Bearer',
      expires_in: access.expiresIn,
      scope: scopes.join(' '),
      refresh_token: refreshToken,
    }
    return { row, response }
  }

  /** A reused refresh token: the family and its access tokens are revoked. */
  async function reused(familyId: string, now: Date): Promise<never> {
    await revokeTokenFamily(db, deps.revocations, familyId, now)
    throw new OAuthError('invalid_grant', 'The refresh token was already used; its token family is revoked.')
  }

  async function clientCredentials(credentials: ClientCredentials, scope?: string): Promise<TokenResponse> {
    const client = await authenticateClient(credentials)
    const scopes = resolveScopes(client.scopes, scope)
    const { row, response } = await mint(client.tenantId, client.id, scopes, newId('tokenFamily'))
    await db.refreshToken.create({ data: row })
    return response
  }

  async function refresh(credentials: ClientCredentials, presented: string, scope?: string): Promise<TokenResponse> {
    const client = await authenticateClient(credentials)
    const now = clock()
    const stored = await db.refreshToken.findUnique({ where: { tokenHash: hashSecret(presented) } })
    if (!stored || stored.clientId !== client.id) {
      throw new OAuthError('invalid_grant', 'The refresh token is invalid.')
    }
    if (stored.revokedAt || stored.expiresAt <= now) {
      throw new OAuthError('invalid_grant', 'The refresh token has expired or was revoked.')
    }
    // Reuse is detected before the scopes are checked, so asking for another scope does not hide it.
    if (stored.rotatedAt) return reused(stored.familyId, now)
    // Scopes can only narrow on refresh, and never beyond what the client holds today.
    const scopes = resolveScopes(
      stored.scopes.filter((s) => isWithinGrant(client.scopes, [s])),
      scope
    )
    const { row, response } = await mint(client.tenantId, client.id, scopes, stored.familyId)
    // Claim the token and store its successor under the family's lock: of two concurrent uses, exactly one rotates it
    // and the other counts as reuse, and a revocation of the family either sees the successor or is seen by the claim.
    const rotated = await withFamilyLock(db, stored.familyId, async (tx) => {
      const claimed = await tx.refreshToken.updateMany({
        where: { id: stored.id, rotatedAt: null, revokedAt: null },
        data: { rotatedAt: now },
      })
      if (claimed.count === 0) return false
      await tx.refreshToken.create({ data: row })
      return true
    })
    return rotated ? response : reused(stored.familyId, now)
  }

  return { authenticateClient, clientCredentials, refresh }
}
