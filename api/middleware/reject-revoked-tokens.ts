/**
 * @module Refuses access tokens revoked before their expiry (RFC 7009). The check is in memory (see
 * domain/auth/revocation-list.ts), before the request's transaction opens; while the list has not synced for longer
 * than its bound, it is a query (and a database that cannot answer fails the request: 503, never an accepted token).
 */
import type { MiddlewareHandler } from 'hono'
import { clientRevocationKey, type RevocationList } from '../../domain/auth/revocation-list.ts'
import { invalidToken } from '../../domain/errors.ts'
import type { AppEnv } from '../app-env.ts'

export const rejectRevokedTokens = (revocations: RevocationList): MiddlewareHandler<AppEnv> =>
  async function rejectRevokedTokens(c, next) {
    const principal = c.get('principal')
    if (
      principal.kind === 'client' &&
      (await revocations.anyRevoked([principal.tokenId, clientRevocationKey(principal.clientId)]))
    ) {
      throw invalidToken('The access token was revoked.')
    }
    await next()
  }
