/**
 * @module Access tokens: JWTs in the RFC 9068 profile (`typ: at+jwt`), signed with ES256. Verification pins the
 * algorithm, type, issuer and audience, and picks the key by `kid`.
 */
import { SignJWT, errors as joseErrors, jwtVerify, type JWTHeaderParameters } from 'jose'
import type { Clock } from '../../infra/clock.ts'
import { invalidToken } from '../errors.ts'
import { newId } from '../ids.ts'
import { SIGNING_ALGORITHM, type SigningKeys } from './signing-keys.ts'

/** Who is calling: resolved once per request from the bearer token. */
export interface ClientPrincipal {
  kind: 'client'
  tenantId: string
  clientId: string
  /** The id the audit trail, rate limits and idempotency keys know the caller by: here the client id. */
  actorId: string
  scopes: string[]
  tokenId: string
}

export interface AccessTokenSettings {
  issuer: string
  audience: string
  ttlSeconds: number
}

/**
 * Signs an access token for a client.
 * @returns the compact JWT, its lifetime in seconds, and its id (`jti`) and expiry, which its grant's refresh token
 *   records so that revoking the family revokes it too
 */
export async function issueAccessToken(
  keys: SigningKeys,
  settings: AccessTokenSettings,
  clock: Clock,
  subject: { tenantId: string; clientId: string; scopes: readonly string[] }
): Promise<{ token: string; expiresIn: number; tokenId: string; expiresAt: Date }> {
  const { kid, privateKey } = await keys.active()
  const issuedAt = Math.floor(clock().getTime() / 1000)
  const tokenId = newId('accessToken')
  const token = await new SignJWT({
    client_id: subject.clientId,
    tenant_id: subject.tenantId,
    scope: subject.scopes.join(' '),
  })
    .setProtectedHeader({ alg: SIGNING_ALGORITHM, kid, typ: 'at+jwt' })
    .setIssuer(settings.issuer)
    .setAudience(settings.audience)
    .setSubject(subject.clientId)
    .setIssuedAt(issuedAt)
    .setExpirationTime(issuedAt + settings.ttlSeconds)
    .setJti(tokenId)
    .sign(privateKey)
  return {
    token,
    expiresIn: settings.ttlSeconds,
    tokenId,
    expiresAt: new Date((issuedAt + settings.ttlSeconds) * 1000),
  }
}

/**
 * Verifies a bearer token and returns its principal.
 * @throws AppError `invalid_token` for anything that is not a valid, unexpired token of ours
 */
export async function verifyAccessToken(
  keys: SigningKeys,
  settings: Omit<AccessTokenSettings, 'ttlSeconds'>,
  clock: Clock,
  token: string
): Promise<ClientPrincipal> {
  return (await verifyAccessTokenUntil(keys, settings, clock, token)).principal
}

/**
 * Verifies a bearer token, as {@link verifyAccessToken}, and says until when it stays valid.
 * @returns the principal and the token's `exp` (seconds since the epoch)
 * @throws AppError `invalid_token` for anything that is not a valid, unexpired token of ours
 */
export async function verifyAccessTokenUntil(
  keys: SigningKeys,
  settings: Omit<AccessTokenSettings, 'ttlSeconds'>,
  clock: Clock,
  token: string
): Promise<{ principal: ClientPrincipal; exp: number }> {
  try {
    const { payload } = await jwtVerify(
      token,
      async (header: JWTHeaderParameters) => {
        const key = header.kid ? await keys.publicKey(header.kid) : undefined
        if (!key) throw new joseErrors.JWKSNoMatchingKey()
        return key
      },
      {
        algorithms: [SIGNING_ALGORITHM],
        typ: 'at+jwt',
        issuer: settings.issuer,
        audience: settings.audience,
        currentDate: clock(),
        requiredClaims: ['exp', 'iat', 'sub', 'jti'],
      }
    )
    const { tenant_id: tenantId, client_id: clientId, scope, jti, exp } = payload
    if (
      typeof tenantId !== 'string' ||
      typeof clientId !== 'string' ||
      typeof scope !== 'string' ||
      !jti ||
      exp === undefined
    ) {
      throw invalidToken('The access token lacks required claims.')
    }
    const principal: ClientPrincipal = {
      kind: 'client',
      tenantId,
      clientId,
      actorId: clientId,
      scopes: scope.split(' ').filter(Boolean),
      tokenId: jti,
    }
    return { principal, exp }
  } catch (error) {
    if (error instanceof joseErrors.JWTExpired) throw invalidToken('The access token has expired.')
    if (error instanceof joseErrors.JOSEError) throw invalidToken('The access token is invalid.')
    throw error
  }
}
