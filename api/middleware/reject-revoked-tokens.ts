/**
 * @module Refuses access tokens revoked before their expiry (RFC 7009). Runs inside the request's unit of work, so
 * the lookup is one indexed read in the transaction the request opens anyway.
 */
import type { MiddlewareHandler } from 'hono'
import { invalidToken } from '../../domain/errors.ts'
import type { AppEnv } from '../app-env.ts'

export const rejectRevokedTokens = (): MiddlewareHandler<AppEnv> =>
  async function rejectRevokedTokens(c, next) {
    const principal = c.get('principal')
    if (principal.kind === 'client') {
      const revoked = await c.get('uow').tx.revokedAccessToken.findUnique({
        where: { jti: principal.tokenId },
        select: { jti: true },
      })
      if (revoked) throw invalidToken('The access token was revoked.')
    }
    await next()
  }
