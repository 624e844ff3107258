/**
 * @module Single sign-on for platform users: a tenant registers an OpenID Connect issuer; tokens that issuer signs
 * for the registered audience are verified against the issuer's JWKS (jose, asymmetric algorithms only, issuer and
 * audience pinned) and mapped to a platform user and role. The tenant comes from the connection, never from a claim.
 */
import { createRemoteJWKSet, decodeJwt, jwtVerify, errors as joseErrors, type JWTPayload } from 'jose'
import type { PlatformRole } from '../../generated/prisma/enums.ts'
import type { Clock } from '../../infra/clock.ts'
import type { Db } from '../../infra/db.ts'
import { AppError, invalidToken } from '../errors.ts'
import { newId } from '../ids.ts'
import { highestRole, PLATFORM_ROLES, ROLE_SCOPES } from './roles.ts'

/** The principal of a request made by a platform user signed in through SSO. */
export interface UserPrincipal {
  kind: 'user'
  tenantId: string
  userId: string
  actorId: string
  role: PlatformRole
  scopes: string[]
}

const ALGORITHMS = ['RS256', 'PS256', 'ES256', 'ES384', 'EdDSA']

type Jwks = ReturnType<typeof createRemoteJWKSet>

/** Whether a bearer token was issued by someone else than us (so it may be an SSO token). */
export function foreignIssuer(token: string, ourIssuer: string): string | undefined {
  try {
    const { iss } = decodeJwt(token)
    return iss && iss !== ourIssuer ? iss : undefined
  } catch {
    return undefined
  }
}

/** Maps a claim value (string or list) to the most privileged configured role. */
export function roleFromClaims(
  claim: unknown,
  mapping: Record<string, string>,
  defaultRole: PlatformRole | null
): PlatformRole | undefined {
  const values = Array.isArray(claim) ? claim.map(String) : typeof claim === 'string' ? claim.split(' ') : []
  const mapped = values
    .map((v) => mapping[v])
    .filter((r): r is PlatformRole => PLATFORM_ROLES.includes(r as PlatformRole))
  return highestRole(mapped) ?? defaultRole ?? undefined
}

/** Creates the SSO verifier; JWKS are fetched on demand and cached per issuer by jose. */
export function createSsoVerifier({ db, clock }: { db: Db; clock: Clock }) {
  const jwksCache = new Map<string, Jwks>()

  const jwksFor = async (issuer: string, jwksUri: string | null): Promise<Jwks> => {
    const cached = jwksCache.get(issuer)
    if (cached) return cached
    let uri = jwksUri
    if (!uri) {
      const discovery = await fetch(`${issuer.replace(/\/$/, '')}/.well-known/openid-configuration`, {
        signal: AbortSignal.timeout(5000),
      })
      if (!discovery.ok) throw invalidToken('The SSO issuer could not be reached.')
      uri = ((await discovery.json()) as { jwks_uri?: string }).jwks_uri ?? null
      if (!uri) throw invalidToken('The SSO issuer publishes no JWKS.')
    }
    const jwks = createRemoteJWKSet(new URL(uri), { timeoutDuration: 5000, cooldownDuration: 30_000 })
    jwksCache.set(issuer, jwks)
    return jwks
  }

  /**
   * Verifies an SSO token and resolves its user, creating the user on first sign-in.
   * @returns undefined when no tenant trusts this issuer (the caller answers 401)
   */
  async function verify(token: string, issuer: string): Promise<UserPrincipal | undefined> {
    const connections = await db.ssoConnection.findMany({ where: { issuer } })
    if (connections.length === 0) return undefined
    let payload: JWTPayload | undefined
    let connection: (typeof connections)[number] | undefined
    for (const candidate of connections) {
      try {
        const jwks = await jwksFor(candidate.issuer, candidate.jwksUri)
        ;({ payload } = await jwtVerify(token, jwks, {
          issuer: candidate.issuer,
          audience: candidate.audience,
          algorithms: ALGORITHMS,
          currentDate: clock(),
          requiredClaims: ['sub', 'exp'],
        }))
        connection = candidate
        break
      } catch (error) {
        if (error instanceof joseErrors.JWTExpired) throw invalidToken('The SSO token has expired.')
        if (!(error instanceof joseErrors.JOSEError) && !(error instanceof AppError)) throw error
      }
    }
    if (!payload || !connection) throw invalidToken('The SSO token is invalid.')
    const role = roleFromClaims(
      payload[connection.roleClaim],
      connection.roleMapping as Record<string, string>,
      connection.defaultRole
    )
    const subject = payload.sub!
    const email = typeof payload.email === 'string' ? payload.email.toLowerCase() : `${subject}@${new URL(issuer).host}`
    const existing = await db.platformUser.findUnique({
      where: { ssoIssuer_ssoSubject: { ssoIssuer: issuer, ssoSubject: subject } },
    })
    if (existing?.disabledAt) throw new AppError(403, 'forbidden', 'Forbidden', { detail: 'This user is disabled.' })
    if (!existing && !role) {
      throw new AppError(403, 'forbidden', 'Forbidden', { detail: 'No platform role is mapped for this user.' })
    }
    // The IdP's groups are the source of truth at each sign-in; an admin's change holds until the claims change.
    const user = existing
      ? role && role !== existing.role
        ? await db.platformUser.update({ where: { id: existing.id }, data: { role } })
        : existing
      : await db.platformUser.create({
          data: {
            id: newId('platformUser'),
            tenantId: connection.tenantId,
            email,
            name: typeof payload.name === 'string' ? payload.name : null,
            role: role!,
            ssoIssuer: issuer,
            ssoSubject: subject,
          },
        })
    return {
      kind: 'user',
      tenantId: user.tenantId,
      userId: user.id,
      actorId: user.id,
      role: user.role,
      scopes: [...ROLE_SCOPES[user.role]],
    }
  }

  return { verify }
}

export type SsoVerifier = ReturnType<typeof createSsoVerifier>
