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
import { rejectedTokenCache } from '../../domain/auth/rejected-token-cache.ts'
import { verifiedTokenCache } from '../../domain/auth/verified-token-cache.ts'
import { AppError, invalidToken, missingToken, rateLimited } from '../../domain/errors.ts'
import { currentLogContext } from '../../infra/log-context.ts'
import type { AppDeps, AppEnv } from '../app-env.ts'
import { clientAddress } from '../client-address.ts'
import { failedAuthentications } from './failed-authentications.ts'

/** A verified token's principal, or the error a protected route answers with (401, or a failure to verify). */
export type BearerOutcome = { ok: true; principal: Principal } | { ok: false; error: unknown }

/**
 * Reads and verifies an Authorization header; never throws.
 * @param tenantId - the `X-Tenant-Id` header: the tenant an SSO token signs in to when several tenants' connections
 * accept it (other credentials carry their tenant and ignore it)
 */
export type BearerVerifier = (authorization: string | undefined, tenantId?: string) => Promise<BearerOutcome>

/** The request header naming the tenant an SSO token signs in to (docs/access-control.md, "SSO (OpenID Connect)"). */
export const TENANT_HEADER = 'X-Tenant-Id'

const BEARER = /^Bearer\s+([A-Za-z0-9\-._~+/]+=*)$/i

/**
 * Endpoints with credentials of their own, never an API bearer token: the OAuth endpoints (a client's secret) and the
 * codec server (an operator's token). Their requests count per address, and an operator's token is not an API token
 * refused: counted as one, an operator decoding a workflow's history would be locked out after 60 payloads a minute.
 */
const OWN_CREDENTIAL_PATHS = /^\/(?:oauth|codec)(?:\/|$)/

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
  // API keys and SSO tokens refused in the last 30 s: repeating one costs no database round trip.
  const rejected = rejectedTokenCache(clock)
  const refusedKey = () => ({ ok: false as const, error: invalidToken('The API key is unknown, revoked or expired.') })
  return async function verifyBearer(header, tenantId) {
    if (!header) return { ok: false, error: missingToken() }
    const token = BEARER.exec(header)?.[1]
    if (!token) return { ok: false, error: invalidToken('The Authorization header must be "Bearer <access token>".') }
    const cached = verified.get(token)
    if (cached) return { ok: true, principal: cached }
    try {
      // API keys are opaque secrets with their own prefix; everything else must be one of our JWTs.
      if (token.startsWith(`${API_KEY_PREFIX}_`)) {
        if (rejected.has(token)) return refusedKey()
        const principal = await authenticateApiKey(db, token, clock())
        if (principal) return { ok: true, principal }
        rejected.add(token)
        return refusedKey()
      }
      // A JWT from another issuer may be a platform user's SSO token, if some tenant trusts that issuer.
      const issuer = foreignIssuer(token, settings.issuer)
      if (issuer) {
        if (rejected.has(token)) return { ok: false, error: invalidToken() }
        const user = await sso.verify(token, issuer, tenantId)
        if (user) return { ok: true, principal: user }
        // No tenant trusts it (a failure to reach the issuer throws instead, and is not remembered). Ours it is not
        // either: it names another issuer, so the verification below refuses it.
        rejected.add(token)
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

/** Whether a refusal is the credential's fault (a failed authentication), not a dependency's (the issuer down). */
const isRefusal = (error: unknown) => !(error instanceof AppError && error.status >= 500)

/**
 * Verifies the bearer token of every request (except the OAuth and codec endpoints) and stores the outcome as `bearer`. An
 * address that failed to authenticate too often in the window is refused (429) before any verification or lookup.
 */
export const identifyCaller = (
  deps: Pick<AppDeps, 'keys' | 'config' | 'clock' | 'db' | 'sso'>
): MiddlewareHandler<AppEnv> => {
  const verify = bearerVerifier(deps)
  const failures = failedAuthentications({
    limit: deps.config.AUTH_FAILURES_PER_MINUTE,
    windowSeconds: deps.config.RATE_LIMIT_WINDOW_SECONDS,
    clock: deps.clock,
  })
  return async function identifyCaller(c, next) {
    if (!OWN_CREDENTIAL_PATHS.test(c.req.path)) {
      const authorization = c.req.header('Authorization')
      const address = authorization === undefined ? '' : clientAddress(c, deps.config.TRUST_PROXY)
      if (authorization !== undefined) {
        const wait = failures.blockedFor(address)
        if (wait > 0) throw tooManyFailures(wait)
      }
      const bearer = await verify(authorization, c.req.header(TENANT_HEADER))
      if (!bearer.ok && authorization !== undefined && isRefusal(bearer.error)) {
        const wait = failures.record(address)
        if (wait > 0) throw tooManyFailures(wait)
      }
      c.set('bearer', bearer)
      const context = currentLogContext()
      if (bearer.ok && context) context.tenantId = bearer.principal.tenantId
    }
    await next()
  }
}

const tooManyFailures = (retryAfterSeconds: number) =>
  rateLimited(
    retryAfterSeconds,
    `Too many failed authentications from this address. Retry after ${retryAfterSeconds} seconds with valid credentials.`
  )
