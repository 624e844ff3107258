/**
 * @module Platform users and the SSO connections that sign them in. Users appear on first SSO sign-in; admins list
 * them, change roles and disable them here.
 */
import type { PlatformRole } from '../../generated/prisma/enums.ts'
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import { conflict, forbidden, lastOwner, notFound, ssoConnectionTaken, validationError } from '../errors.ts'
import { newId } from '../ids.ts'
import { afterCursor, toPage } from '../pagination.ts'
import { isUniqueViolation } from '../../infra/db.ts'
import { principalAllows, type Principal } from '../auth/principal.ts'
import { assertLinkableProvider } from '../auth/provider-links.ts'
import { ROLE_SCOPES } from '../auth/roles.ts'
import { vetSsoUrls, type SsoUrlRules } from '../auth/sso-urls.ts'

export interface SsoConnectionInput {
  issuer: string
  audience: string
  jwksUri?: string
  roleClaim?: string
  roleMapping: Record<string, PlatformRole>
  defaultRole?: PlatformRole
}

/** The audience the platform issues each tenant: no other tenant may register it, so it proves the connection. */
const tenantAudience = (tenantId: string) => `${TENANT_AUDIENCE_PREFIX}${tenantId}`
const TENANT_AUDIENCE_PREFIX = 'urn:therapy-care:tenant:'

/**
 * Registers an OpenID Connect issuer for the tenant. Its URLs are checked against the rules SSO fetches obey (HTTPS
 * and the outbound network policy, sso-settings.ts) before anything is stored.
 * An issuer and audience belong to one tenant (issue 76): a pair another tenant registered is refused, so a tenant can
 * never make another's tokens ambiguous by registering its public issuer and audience. A tenant whose pair was taken
 * registers its own audience, {@link tenantAudience}, which only it may register.
 * @throws AppError `validation_error` (field codes `invalid_url`, `https_required`, `forbidden_address`,
 * `unresolvable_host`, `not_issuer_host`, `reserved_audience`), `conflict` when this tenant already connected the
 * issuer and audience, `sso_connection_taken` when another tenant did
 */
export async function createSsoConnection(uow: UnitOfWork, input: SsoConnectionInput, settings: SsoUrlRules) {
  if (input.audience.startsWith(TENANT_AUDIENCE_PREFIX) && input.audience !== tenantAudience(uow.tenantId)) {
    throw validationError([
      {
        path: 'audience',
        code: 'reserved_audience',
        message: `Audiences under ${TENANT_AUDIENCE_PREFIX} name their tenant: this tenant's is ${tenantAudience(uow.tenantId)}.`,
      },
    ])
  }
  // Vetting resolves the host (DNS, a network call): holding no transaction.
  await uow.release(() => vetSsoUrls(input, settings))
  const pair = { issuer: input.issuer, audience: input.audience }
  if (await uow.tx.ssoConnection.findFirst({ where: { tenantId: uow.tenantId, ...pair }, select: { id: true } })) {
    throw conflict('This tenant already connected this issuer and audience.')
  }
  try {
    return await uow.tx.ssoConnection.create({
      data: {
        id: newId('ssoConnection'),
        tenantId: uow.tenantId,
        ...pair,
        jwksUri: input.jwksUri,
        roleClaim: input.roleClaim ?? 'roles',
        roleMapping: input.roleMapping,
        defaultRole: input.defaultRole,
      },
    })
  } catch (error) {
    // The tenant's own pair was checked above: a duplicate is another tenant's (the index over every tenant's rows),
    // or this tenant's own registration racing this one.
    if (isUniqueViolation(error)) throw ssoConnectionTaken(tenantAudience(uow.tenantId))
    throw error
  }
}

export const listSsoConnections = ({ tx, tenantId }: UnitOfWork) =>
  tx.ssoConnection.findMany({ where: { tenantId }, orderBy: { id: 'asc' } })

/** A page of the tenant's platform users. */
export async function listPlatformUsers({ tx, tenantId }: UnitOfWork, query: { limit: number; cursor?: string }) {
  const after = afterCursor(query.cursor)
  const rows = await tx.platformUser.findMany({
    where: { tenantId, ...(after ? { id: { gt: after } } : {}) },
    orderBy: { id: 'asc' },
    take: query.limit + 1,
  })
  return toPage(rows, query.limit)
}

const WRITE_METHODS = ['GET', 'POST', 'PATCH', 'DELETE']

/**
 * Whether a caller may give a role: it must itself hold every scope the role has (a `users` integration cannot make
 * anyone an administrator), and only an owner makes an owner.
 */
function mayGrant(granter: Principal, role: PlatformRole): boolean {
  if (role === 'OWNER') return granter.kind === 'user' && granter.role === 'OWNER'
  return ROLE_SCOPES[role].every((scope) =>
    scope.endsWith('.read')
      ? principalAllows(granter, scope, 'GET')
      : WRITE_METHODS.every((method) => principalAllows(granter, scope, method))
  )
}

/**
 * Changes a user's role, disables them, or links them to the provider they are (whose notes they then sign:
 * domain/auth/provider-links.ts; null unlinks). The role sticks: sign-ins do not map it again from the claims.
 * Roles have an order (docs/access-control.md, "Role order"): a caller changes the role of, disables or re-enables only
 * a user whose role it could have given ({@link mayGrant}), touches an OWNER in any way only as an owner, gives only a
 * role it holds all of, and the tenant's last enabled OWNER stays one. Linking a non-owner to a provider needs `users`
 * alone. The call itself is on the audit trail, as every call is (actor, the user's id, the answer).
 * @param granter - who asks
 * @throws AppError `not_found`, `forbidden` for a user or a role above the caller's, `last_owner` for a change that
 *   would leave no enabled OWNER, `validation_error` for a provider that is not the tenant's
 */
export async function updatePlatformUser(
  uow: UnitOfWork,
  granter: Principal,
  id: string,
  patch: { role?: PlatformRole; disabled?: boolean; providerId?: string | null },
  now: Date
) {
  const { tx, tenantId } = uow
  const user = await tx.platformUser.findFirst({ where: { id, tenantId } })
  if (!user) throw notFound('user', id)
  // A role change, a disabling or a re-enabling is an act on the user's standing; an owner is touched by owners alone.
  const touchesStanding = patch.role !== undefined || patch.disabled !== undefined || user.role === 'OWNER'
  if (touchesStanding && !mayGrant(granter, user.role)) {
    throw forbidden(
      user.role === 'OWNER'
        ? 'Only an owner may change, disable or re-enable an owner.'
        : `This user holds ${user.role}, which grants more than the caller holds; only a caller holding all of it may change them.`
    )
  }
  if (patch.role && patch.role !== user.role && !mayGrant(granter, patch.role)) {
    throw forbidden(
      patch.role === 'OWNER'
        ? 'Only an owner may make another user an owner.'
        : `The role ${patch.role} grants more than the caller holds; a role is given only by a caller holding all of it.`
    )
  }
  const stopsBeingOwner = (patch.role !== undefined && patch.role !== 'OWNER') || patch.disabled === true
  if (user.role === 'OWNER' && user.disabledAt === null && stopsBeingOwner) await assertAnotherOwner(uow, id)
  if (patch.providerId) await assertLinkableProvider(uow, patch.providerId)
  return tx.platformUser.update({
    where: { id },
    data: {
      ...(patch.role ? { role: patch.role } : {}),
      ...(patch.providerId === undefined ? {} : { providerId: patch.providerId }),
      ...(patch.disabled === undefined ? {} : { disabledAt: patch.disabled ? (user.disabledAt ?? now) : null }),
    },
  })
}

/**
 * Refuses to demote or disable the tenant's last enabled OWNER. Two owners demoting each other at once would each see
 * the other still an owner: the tenant's owner changes take turns on a transaction lock.
 */
async function assertAnotherOwner({ tx, tenantId }: UnitOfWork, id: string): Promise<void> {
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`owners:${tenantId}`}))`
  const others = await tx.platformUser.count({
    where: { tenantId, role: 'OWNER', disabledAt: null, id: { not: id } },
  })
  if (others === 0) {
    throw lastOwner(
      'This is the tenant’s last enabled owner: make another user an owner before demoting or disabling this one.'
    )
  }
}
