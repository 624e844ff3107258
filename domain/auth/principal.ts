/**
 * @module Who is calling: an OAuth client (bearer access token), an API key, or a platform user signed in through
 * the tenant's SSO (role-based). Every guarantee (scopes, rate
 * limits, idempotency, audit) works on this one type, so a new kind of caller fails to compile wherever it is not
 * yet handled.
 */
import type { ClientPrincipal } from './access-tokens.ts'
import { keyPermits } from './api-key-permissions.ts'
import type { ApiKeyPrincipal } from './api-key-service.ts'
import type { UserPrincipal } from './sso.ts'
import { satisfiesScope } from './scopes.ts'

export type { ApiKeyPrincipal, ClientPrincipal, UserPrincipal }
export type Principal = ClientPrincipal | ApiKeyPrincipal | UserPrincipal

/**
 * Whether a principal may call a route that declares `scope` with `method`: a client by its token's scopes, a user
 * by its role's scopes, a key by its resource and method permissions.
 */
export function principalAllows(principal: Principal, scope: string, method: string): boolean {
  switch (principal.kind) {
    case 'client':
    case 'user':
      return satisfiesScope(principal.scopes, scope)
    case 'api_key':
      return keyPermits(principal.permissions, scope, method)
  }
}
