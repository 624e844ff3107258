/**
 * @module Who may sign a session's note (issue 55, item 5; docs/care-records.md, "Who may sign"): a credential linked to
 * the session's provider signs as that provider; an administrator (an ADMIN or OWNER platform user) signs on the record
 * for them, and the signature says so. Anything else is refused with 403 `not_session_provider`, whatever provider the
 * request body attests: an OAuth client (it carries no link), an unlinked user or key, one linked to another provider.
 */
import type { PlatformRole } from '../../generated/prisma/enums.ts'
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import { assertLinkableProvider, linkedProviderOf } from '../auth/provider-links.ts'
import { forbidden, notSessionProvider } from '../errors.ts'

/** A credential as signing sees it: its kind, its id, and a platform user's role. */
export interface SigningCredential {
  type: 'client' | 'api_key' | 'user'
  id: string
  role?: string
}

/** In what capacity a note was signed: by its provider's own credential, or by an administrator on the record. */
export const SIGNED_AS = ['PROVIDER', 'ADMINISTRATOR'] as const
export type SignedAs = (typeof SIGNED_AS)[number]

/** Roles that sign on the record for any provider of the tenant (docs/access-control.md, "Roles (RBAC)"). */
const ADMINISTRATOR_ROLES: readonly string[] = ['OWNER', 'ADMIN'] satisfies PlatformRole[]

const HOW_TO_LINK = {
  user: 'an administrator links a user to their provider with PATCH /v1/users/{id} { providerId }',
  api_key:
    'a key is linked to its provider when it is created, POST /v1/api-keys { providerId }, and the link lasts while ' +
    'its creator holds the users scope',
} as const

/**
 * In what capacity `credential` may sign a note of a session of `providerId`. A user linked to that provider signs as
 * the provider whatever its role (the route's `sessions` scope already leaves only clinicians and administrators).
 * @returns PROVIDER for a credential linked to that provider; ADMINISTRATOR for an ADMIN or OWNER user who is not
 * @throws AppError `not_session_provider` (403) for anyone else
 */
export async function signingCapacity(
  uow: UnitOfWork,
  credential: SigningCredential,
  providerId: string,
  now: Date
): Promise<SignedAs> {
  if (credential.type === 'client') {
    throw notSessionProvider(
      'An OAuth client is linked to no provider and signs no note: sign with a platform user or an API key linked to ' +
        "the session's provider, or as an administrator on the record."
    )
  }
  const linked = await linkedProviderOf(uow, credential, now)
  if (linked === providerId) return 'PROVIDER'
  if (credential.type === 'user' && ADMINISTRATOR_ROLES.includes(credential.role ?? '')) return 'ADMINISTRATOR'
  const who = credential.type === 'user' ? 'This user' : 'This API key'
  throw notSessionProvider(
    linked === null
      ? `${who} is linked to no provider; only a credential linked to the session's provider signs its notes ` +
          `(${HOW_TO_LINK[credential.type]}).`
      : `${who} is linked to another provider than the session's; only a credential linked to the session's ` +
          'provider signs its notes.'
  )
}

/**
 * Checks that `credential` may name `providerId` as the author of an addendum: only a credential linked to that
 * provider writes as them. An administrator adds an addendum as themself (without `providerId`), never in a provider's
 * name: unlike a signature, an addendum has no "on the record" form, and its author is part of its hash.
 * @throws AppError `validation_error` (400) for a provider that is not the tenant's; `forbidden` (403) for anyone else
 */
export async function assertWritesAs(uow: UnitOfWork, credential: SigningCredential, providerId: string, now: Date) {
  await assertLinkableProvider(uow, providerId)
  if ((await linkedProviderOf(uow, credential, now)) === providerId) return
  throw forbidden(
    'An addendum names a provider as its author only when the credential is linked to that provider; leave ' +
      '`providerId` out to add it under your own credential.'
  )
}
