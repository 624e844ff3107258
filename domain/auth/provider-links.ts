/**
 * @module Credentials linked to a provider (issue 55, item 5): a platform user (PATCH /v1/users/{id}) or an API key
 * (POST /v1/api-keys) may be linked to one provider of its tenant, and only a credential linked to a session's provider
 * signs that session's notes (domain/notes/signing-authority.ts). An OAuth client carries no link.
 *
 * Linking is an administrator's act: it is what lets a credential sign a provider's clinical record. A user is linked
 * by a caller holding the `users` scope (the user-admin route's own); a key is linked at its creation only by a
 * creator holding `users` as well (an administrator, or an integration allowed to administer users), so a `sessions`
 * and `api_keys` integration cannot mint itself a key that signs any provider's notes.
 */
import { Prisma } from '../../generated/prisma/client.ts'
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import { validationError } from '../errors.ts'
import { grantHoldsSql } from './credential-grants.ts'
import type { Scope } from './scopes.ts'

/** The scope whose holder may link a credential to a provider: the scope of PATCH /v1/users/{id}. */
export const LINKING_SCOPE = 'users' satisfies Scope

/** A credential that can carry a link: a platform user or an API key, by its id. */
export interface LinkableCredential {
  type: 'client' | 'api_key' | 'user'
  id: string
}

/**
 * The provider a credential is linked to, read from its row in this transaction (so a link just cleared holds at
 * once). A key's link lives while its creator still grants `users`, as the key itself lives while its creator does
 * (credential-grants.ts): a creator that lost the scope, or was revoked, leaves the key unlinked from then on. A
 * user's link is the tenant's record of who that user is, like their role: it stays when whoever set it changes.
 * @param now - the request's instant, for the keys between the key and its root (their expiry)
 * @returns the provider's id, or null for an unlinked credential and for an OAuth client (which cannot carry one)
 */
export async function linkedProviderOf(
  uow: UnitOfWork,
  credential: LinkableCredential,
  now: Date
): Promise<string | null> {
  switch (credential.type) {
    case 'user': {
      const where = { id: credential.id, tenantId: uow.tenantId }
      return (await uow.tx.platformUser.findFirst({ where, select: { providerId: true } }))?.providerId ?? null
    }
    case 'api_key': {
      const [key] = await uow.tx.$queryRaw<Array<{ providerId: string | null }>>`
        SELECT provider_id AS "providerId" FROM api_keys
         WHERE id = ${credential.id} AND tenant_id = ${uow.tenantId}
           AND ${grantHoldsSql(Prisma.sql`tenant_id`, Prisma.sql`created_by`, now, LINKING_SCOPE)}`
      return key?.providerId ?? null
    }
    case 'client':
      return null
  }
}

/**
 * Checks that a provider a credential is being linked to is one of the tenant's (another tenant's is not disclosed:
 * it is as unknown as an id that names nothing).
 * @throws AppError `validation_error` naming `providerId` (`not_found`), as for any other reference in a body
 */
export async function assertLinkableProvider(uow: UnitOfWork, providerId: string): Promise<void> {
  const provider = await uow.tx.provider.findFirst({
    where: { id: providerId, tenantId: uow.tenantId },
    select: { id: true },
  })
  if (!provider)
    throw validationError([{ path: 'providerId', code: 'not_found', message: 'No provider with this id.' }])
}
