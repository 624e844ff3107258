/**
 * @module Single sign-on for platform users: a tenant registers an OpenID Connect issuer; tokens that issuer signs
 * for the registered audience are verified against the issuer's JWKS (jose, asymmetric algorithms only, issuer and
 * audience pinned; keys fetched under the outbound network policy, sso-issuer-keys.ts) and mapped to a platform user
 * and role. The tenant comes from the connection, never from a claim.
 */
import { decodeJwt, jwtVerify, errors as joseErrors, type JWTPayload } from 'jose'
import type { PlatformRole } from '../../generated/prisma/enums.ts'
import type { Clock } from '../../infra/clock.ts'
import type { Db } from '../../infra/db.ts'
import { AppError, forbidden, invalidToken } from '../errors.ts'
import { newId } from '../ids.ts'
import { highestRole, PLATFORM_ROLES, ROLE_SCOPES } from './roles.ts'
import type { IssuerKeys } from './sso-issuer-keys.ts'

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

/**
 * Creates the SSO verifier.
 * @param keys - the issuers' key sets, fetched under the outbound network policy and cached per URL
 */
export function createSsoVerifier({ db, clock, keys }: { db: Db; clock: Clock; keys: IssuerKeys }) {
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
        ;({ payload } = await jwtVerify(token, keys.keysFor(candidate.issuer, candidate.jwksUri), {
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
    // A user is signed in only through a connection of their own tenant. Another tenant may register the same issuer
    // with a key set URL of its choosing and sign any subject with it: that must not reach this tenant's user (nor
    // say that the user exists there).
    if (existing && existing.tenantId !== connection.tenantId) throw invalidToken('The SSO token is invalid.')
    if (existing?.disabledAt) throw forbidden('This user is disabled.')
    if (!existing && !role) {
      throw forbidden('No platform role is mapped for this user.')
    }
    // The claims map the role at the first sign-in only; afterwards the role is the platform's, changed through
    // PATCH /v1/users/{id}, so a demotion sticks (recomputing it from the claims on every request undid it).
    const user =
      existing ??
      (await db.platformUser.create({
        data: {
          id: newId('platformUser'),
          tenantId: connection.tenantId,
          email,
          name: typeof payload.name === 'string' ? payload.name : null,
          role: role!,
          ssoIssuer: issuer,
          ssoSubject: subject,
        },
      }))
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
