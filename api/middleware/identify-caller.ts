/**
 * @module Who is calling, decided once per request and early, because the rate limit must know it before anything
 * else runs. The bearer token is verified here without throwing and the outcome kept on the context: the rate limit
 * keys on it, and `authenticate` turns it into the principal or the 401 of protected routes, so no token is verified
 * twice.
 */
import type { MiddlewareHandler } from 'hono'
import { verifyAccessTokenUntil } from '../../domain/auth/access-tokens.ts'
import { API_KEY_PREFIX, authenticateApiKey } from '../../domain/auth/api-key-service.ts'
import type { Principal } from '../../domain/auth/principal.ts'
import { foreignIssuer } from '../../domain/auth/sso.ts'
import { verifiedTokenCache } from '../../domain/auth/verified-token-cache.ts'
import { invalidToken, missingToken } from '../../domain/errors.ts'
import { currentLogContext } from '../../infra/log-context.ts'
import type { AppDeps, AppEnv } from '../app-env.ts'

/** A verified token's principal, or the error a protected route answers with (401, or a failure to verify). */
export type BearerOutcome = { ok: true; principal: Principal } | { ok: false; error: unknown }

/** Reads and verifies an Authorization header; never throws. */
export type BearerVerifier = (authorization: string | undefined) => Promise<BearerOutcome>

const BEARER = /^Bearer\s+([A-Za-z0-9\-._~+/]+=*)$/i

/** The OAuth endpoints authenticate clients by their secret, never by a bearer token: they count per address. */
const CLIENT_SECRET_PATHS = /^\/oauth\//

/** Creates the verifier for this API's access tokens (issuer and audience pinned). */
export function bearerVerifier({
  keys,
  config,
  clock,
  db,
  sso,
}: Pick<AppDeps, 'keys' | 'config' | 'clock' | 'db' | 'sso'>): BearerVerifier {
  const settings = { issuer: config.PUBLIC_URL, audience: config.ACCESS_TOKEN_AUDIENCE }
  // Our own access tokens only: API keys are looked up (their revocation is in the database) and SSO tokens belong to
  // another issuer. A token found here verified as ours, so it is neither.
  const verified = verifiedTokenCache(clock)
  return async function verifyBearer(header) {
    if (!header) return { ok: false, error: missingToken() }
    const token = BEARER.exec(header)?.[1]
    if (!token) return { ok: false, error: invalidToken('The Authorization header must be "Bearer <access token>".') }
    const cached = verified.get(token)
    if (cached) return { ok: true, principal: cached }
    try {
      // API keys are opaque secrets with their own prefix; everything else must be one of our JWTs.
      if (token.startsWith(`${API_KEY_PREFIX}_`)) {
        const principal = await authenticateApiKey(db, token, clock())
        return principal
          ? { ok: true, principal }
          : { ok: false, error: invalidToken('The API key is unknown, revoked or expired.') }
      }
      // A JWT from another issuer may be a platform user's SSO token, if some tenant trusts that issuer.
      const issuer = foreignIssuer(token, settings.issuer)
      if (issuer) {
        const user = await sso.verify(token, issuer)
        if (user) return { ok: true, principal: user }
      }
      const { principal, exp } = await verifyAccessTokenUntil(keys, settings, clock, token)
      verified.set(token, principal, exp)
      return { ok: true, principal }
    } catch (error) {
      // Kept, not thrown: an unauthenticated request is still counted (per address) before it is refused.
      return { ok: false, error }
    }
  }
}

/** Verifies the bearer token of every request (except the OAuth endpoints) and stores the outcome as `bearer`. */
export const identifyCaller = (
  deps: Pick<AppDeps, 'keys' | 'config' | 'clock' | 'db' | 'sso'>
): MiddlewareHandler<AppEnv> => {
  const verify = bearerVerifier(deps)
  return async function identifyCaller(c, next) {
    if (!CLIENT_SECRET_PATHS.test(c.req.path)) {
      const bearer = await verify(c.req.header('Authorization'))
      c.set('bearer', bearer)
      const context = currentLogContext()
      if (bearer.ok && context) context.tenantId = bearer.principal.tenantId
    }
    await next()
  }
}
