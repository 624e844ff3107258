/**
 * @module Single sign-on for platform users: a tenant registers an OpenID Connect issuer; tokens that issuer signs
 * for the registered audience are verified against the issuer's JWKS (jose, asymmetric algorithms only, issuer and
 * audience pinned; keys fetched under the outbound network policy, sso-issuer-keys.ts) and mapped to a platform user
 * and role. The tenant comes from the connection that verified the token, never from a claim; identities are per
 * tenant (one subject of one issuer may be a user of several tenants), and a token that connections of several
 * tenants verify is refused unless the request names its tenant (docs/access-control.md, "SSO (OpenID Connect)").
 */
import { decodeJwt, jwtVerify, errors as joseErrors, type JWTPayload } from 'jose'
import type { PlatformRole } from '../../generated/prisma/enums.ts'
import type { Clock } from '../../infra/clock.ts'
import { isUniqueViolation, type Db } from '../../infra/db.ts'
import { AppError, forbidden, invalidToken, ssoConnectionAmbiguous } from '../errors.ts'
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

type Connection = Awaited<ReturnType<Db['ssoConnection']['findMany']>>[number]
type PlatformUserRow = NonNullable<Awaited<ReturnType<Db['platformUser']['findUnique']>>>

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

/** The audiences a token names (`aud`, a string or a list), read before it is verified to find its connections. */
function audiencesOf(token: string): string[] {
  const { aud } = decodeJwt(token)
  return (Array.isArray(aud) ? aud : [aud]).filter((a): a is string => typeof a === 'string')
}

/**
 * Creates the SSO verifier.
 * @param keys - the issuers' key sets, fetched under the outbound network policy and cached per URL
 */
export function createSsoVerifier({ db, clock, keys }: { db: Db; clock: Clock; keys: IssuerKeys }) {
  /** The connections among `candidates` whose key set verifies the token for their audience, with its claims. */
  async function verifyingConnections(token: string, candidates: Connection[]) {
    const verified: { connection: Connection; payload: JWTPayload }[] = []
    for (const connection of candidates) {
      try {
        const { payload } = await jwtVerify(token, keys.keysFor(connection.issuer, connection.jwksUri), {
          issuer: connection.issuer,
          audience: connection.audience,
          algorithms: ALGORITHMS,
          currentDate: clock(),
          requiredClaims: ['sub', 'exp'],
        })
        verified.push({ connection, payload })
      } catch (error) {
        // Only a verified signature gets as far as the expiry check.
        if (error instanceof joseErrors.JWTExpired) throw invalidToken('The SSO token has expired.')
        if (!(error instanceof joseErrors.JOSEError) && !(error instanceof AppError)) throw error
      }
    }
    return verified
  }

  /**
   * Verifies an SSO token and resolves its user, creating the user on first sign-in. The user is resolved through the
   * connection that verified the token, in that connection's tenant: identities are per tenant (issue 55).
   * @param tenantId - the tenant the request names (`X-Tenant-Id`): only its connections are tried
   * @returns undefined when no connection of the issuer and the token's audience exists (the caller answers 401)
   * @throws AppError `invalid_token`; `sso_connection_ambiguous` when connections of several tenants verify it and
   * the request names none; `forbidden` for a disabled or unmapped user
   */
  async function verify(token: string, issuer: string, tenantId?: string): Promise<UserPrincipal | undefined> {
    const connections = await db.ssoConnection.findMany({
      where: { issuer, audience: { in: audiencesOf(token) }, ...(tenantId === undefined ? {} : { tenantId }) },
      orderBy: { id: 'asc' },
    })
    if (connections.length === 0) {
      // Not remembered as refused when a tenant was named: the same token may name another.
      if (tenantId !== undefined) throw invalidToken('The SSO token is invalid.')
      return undefined
    }
    const verified = await verifyingConnections(token, connections)
    if (verified.length === 0) throw invalidToken('The SSO token is invalid.')
    // Two tenants registered this issuer and audience and both verify the token: the user's tenant is not guessed.
    if (new Set(verified.map((v) => v.connection.tenantId)).size > 1) throw ssoConnectionAmbiguous()
    // Within one tenant, the oldest connection that verified it (a token may name several audiences).
    const { connection, payload } = verified[0]!
    const subject = payload.sub!
    const identity = { tenantId: connection.tenantId, ssoIssuer: issuer, ssoSubject: subject }
    const findUser = () => db.platformUser.findUnique({ where: { tenantId_ssoIssuer_ssoSubject: identity } })
    const existing = await findUser()
    if (existing?.disabledAt) throw forbidden('This user is disabled.')
    const role = roleFromClaims(
      payload[connection.roleClaim],
      connection.roleMapping as Record<string, string>,
      connection.defaultRole
    )
    if (!existing && !role) {
      throw forbidden('No platform role is mapped for this user.')
    }
    // The claims map the role at the first sign-in only; afterwards the role is the platform's, changed through
    // PATCH /v1/users/{id}, so a demotion sticks (recomputing it from the claims on every request undid it).
    const user = existing ?? (await createUser(identity, payload, role!, findUser))
    return {
      kind: 'user',
      tenantId: user.tenantId,
      userId: user.id,
      actorId: user.id,
      role: user.role,
      scopes: [...ROLE_SCOPES[user.role]],
    }
  }

  /** The user's first sign-in; a concurrent first sign-in of the same identity finds the user it created. */
  async function createUser(
    identity: { tenantId: string; ssoIssuer: string; ssoSubject: string },
    payload: JWTPayload,
    role: PlatformRole,
    findUser: () => Promise<PlatformUserRow | null>
  ): Promise<PlatformUserRow> {
    const email =
      typeof payload.email === 'string'
        ? payload.email.toLowerCase()
        : `${identity.ssoSubject}@${new URL(identity.ssoIssuer).host}`
    try {
      return await db.platformUser.create({
        data: {
          id: newId('platformUser'),
          ...identity,
          email,
          name: typeof payload.name === 'string' ? payload.name : null,
          role,
        },
      })
    } catch (error) {
      const raced = isUniqueViolation(error) ? await findUser() : null
      if (raced) return raced
      throw error
    }
  }

  return { verify }
}

export type SsoVerifier = ReturnType<typeof createSsoVerifier>
