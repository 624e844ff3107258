/**
 * @module Platform users and the SSO connections that sign them in. Users appear on first SSO sign-in; admins list
 * them, change roles and disable them here.
 */
import type { PlatformRole } from '../../generated/prisma/enums.ts'
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import { conflict, notFound } from '../errors.ts'
import { newId } from '../ids.ts'
import { afterCursor, toPage } from '../pagination.ts'
import { isUniqueViolation } from '../../infra/db.ts'
import { vetSsoUrls, type SsoUrlRules } from '../auth/sso-urls.ts'

export interface SsoConnectionInput {
  issuer: string
  audience: string
  jwksUri?: string
  roleClaim?: string
  roleMapping: Record<string, PlatformRole>
  defaultRole?: PlatformRole
}

/**
 * Registers an OpenID Connect issuer for the tenant. Its URLs are checked against the rules SSO fetches obey (HTTPS
 * and the outbound network policy, sso-settings.ts) before anything is stored.
 * @throws AppError `validation_error` (field codes `invalid_url`, `https_required`, `forbidden_address`,
 * `unresolvable_host`), `conflict` when the issuer and audience are already connected
 */
export async function createSsoConnection(uow: UnitOfWork, input: SsoConnectionInput, settings: SsoUrlRules) {
  // Vetting resolves the host (DNS, a network call): holding no transaction.
  await uow.release(() => vetSsoUrls(input, settings))
  try {
    return await uow.tx.ssoConnection.create({
      data: {
        id: newId('ssoConnection'),
        tenantId: uow.tenantId,
        issuer: input.issuer,
        audience: input.audience,
        jwksUri: input.jwksUri,
        roleClaim: input.roleClaim ?? 'roles',
        roleMapping: input.roleMapping,
        defaultRole: input.defaultRole,
      },
    })
  } catch (error) {
    if (isUniqueViolation(error)) throw conflict('This issuer and audience are already connected.')
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

/** Changes a user's role or disables them. @throws AppError `not_found` */
export async function updatePlatformUser(
  { tx, tenantId }: UnitOfWork,
  id: string,
  patch: { role?: PlatformRole; disabled?: boolean },
  now: Date
) {
  const user = await tx.platformUser.findFirst({ where: { id, tenantId } })
  if (!user) throw notFound('user', id)
  return tx.platformUser.update({
    where: { id },
    data: {
      ...(patch.role ? { role: patch.role } : {}),
      ...(patch.disabled === undefined ? {} : { disabledAt: patch.disabled ? (user.disabledAt ?? now) : null }),
    },
  })
}
