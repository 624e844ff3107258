/**
 * @module Bearer authentication: verifies the access token once per request and puts the principal on the context.
 */
import type { MiddlewareHandler } from 'hono'
import { verifyAccessToken } from '../../domain/auth/access-tokens.ts'
import { invalidToken, missingToken } from '../../domain/errors.ts'
import type { AppDeps, AppEnv } from '../app-env.ts'

export const authenticate = ({ keys, config, clock }: Pick<AppDeps, 'keys' | 'config' | 'clock'>): MiddlewareHandler<AppEnv> => {
  const settings = { issuer: config.PUBLIC_URL, audience: config.ACCESS_TOKEN_AUDIENCE }
  return async function authenticate(c, next) {
    const header = c.req.header('Authorization')
    if (!header) throw missingToken()
    const match = /^Bearer\s+([A-Za-z0-9\-._~+/]+=*)$/i.exec(header)
    if (!match?.[1]) throw invalidToken('The Authorization header must be "Bearer <access token>".')
    c.set('principal', await verifyAccessToken(keys, settings, clock, match[1]))
    await next()
  }
}
