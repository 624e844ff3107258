/**
 * @module The OAuth 2.0 token endpoint's logic: the client-credentials grant (docs/architecture.md,
 * "Authentication") and the refresh-token
 * grant with rotation. A refresh token that was already rotated is a sign of theft: presenting it revokes its whole
 * family (RFC 9700 §4.14.2).
 */
import type { Clock } from '../../infra/clock.ts'
import type { Db } from '../../infra/db.ts'
import { newId } from '../ids.ts'
import { issueAccessToken, type AccessTokenSettings } from './access-tokens.ts'
import { OAuthError } from './oauth-error.ts'
import { isWithinGrant, parseScopeString } from './scopes.ts'
import { generateSecret, hashSecret, verifySecret } from './secrets.ts'
import type { SigningKeys } from './signing-keys.ts'

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

  async function issue(tenantId: string, clientId: string, scopes: string[], familyId: string): Promise<TokenResponse> {
    const refreshToken = generateSecret('rt')
    await db.refreshToken.create({
      data: {
        id: newId('refreshToken'),
        tenantId,
        clientId,
        familyId,
        tokenHash: hashSecret(refreshToken),
        scopes,
        expiresAt: new Date(clock().getTime() + deps.refreshTokenTtlSeconds * 1000),
      },
    })
    const access = await issueAccessToken(deps.keys, deps.accessTokens, clock, { tenantId, clientId, scopes })
    return {
      access_token: access.token,
      token_type: 'Bearer',
      expires_in: access.expiresIn,
      scope: scopes.join(' '),
      refresh_token: refreshToken,
    }
  }

  async function clientCredentials(credentials: ClientCredentials, scope?: string): Promise<TokenResponse> {
    const client = await authenticateClient(credentials)
    const scopes = resolveScopes(client.scopes, scope)
    return issue(client.tenantId, client.id, scopes, newId('tokenFamily'))
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
    // Claim the token atomically: of two concurrent uses, exactly one rotates it and the other counts as reuse.
    const claimed = await db.refreshToken.updateMany({
      where: { id: stored.id, rotatedAt: null, revokedAt: null },
      data: { rotatedAt: now },
    })
    if (claimed.count === 0) {
      await db.refreshToken.updateMany({
        where: { familyId: stored.familyId, revokedAt: null },
        data: { revokedAt: now },
      })
      throw new OAuthError('invalid_grant', 'The refresh token was already used; its token family is revoked.')
    }
    // Scopes can only narrow on refresh, and never beyond what the client holds today.
    const scopes = resolveScopes(
      stored.scopes.filter((s) => isWithinGrant(client.scopes, [s])),
      scope
    )
    return issue(client.tenantId, client.id, scopes, stored.familyId)
  }

  return { authenticateClient, clientCredentials, refresh }
}
