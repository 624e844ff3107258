/**
 * @module Who the caller is, as the caller may see it (GET /v1/me): a console or an app shows the signed-in person and
 * hides the controls their role does not allow. Only the caller's own principal and, for a platform user, their own
 * row: nothing another caller of the tenant could not already read about themselves.
 */
import type { PlatformRole } from '../../generated/prisma/enums.ts'
import type { KeyPermission } from '../auth/api-key-permissions.ts'
import type { Principal } from '../auth/principal.ts'
import type { UnitOfWork } from '../../infra/unit-of-work.ts'

export interface CurrentCaller {
  kind: Principal['kind']
  tenantId: string
  actorId: string
  /** What an OAuth client's token or a user's role grants; an API key's grants are its `permissions`. */
  scopes: string[]
  permissions: KeyPermission[]
  user: { id: string; email: string; name: string | null; role: PlatformRole } | null
}

/** Describes `principal`, reading a platform user's own row in the request's unit of work. */
export async function describeCaller(uow: UnitOfWork, principal: Principal): Promise<CurrentCaller> {
  const base = { kind: principal.kind, tenantId: principal.tenantId, actorId: principal.actorId }
  switch (principal.kind) {
    case 'client':
      return { ...base, scopes: principal.scopes, permissions: [], user: null }
    case 'api_key':
      return { ...base, scopes: [], permissions: principal.permissions, user: null }
    case 'user': {
      const row = await uow.tx.platformUser.findFirst({ where: { id: principal.userId, tenantId: principal.tenantId } })
      const user = row && { id: row.id, email: row.email, name: row.name, role: row.role }
      return { ...base, scopes: principal.scopes, permissions: [], user }
    }
  }
}
