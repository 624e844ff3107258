/**
 * @module Bearer authentication of protected routes: puts the principal on the context or answers 401. The token was
 * normally verified already by `identifyCaller` (the rate limit needs the caller first); its outcome is reused, so
 * a token is verified once per request.
 */
import type { MiddlewareHandler } from 'hono'
import { currentLogContext } from '../../infra/log-context.ts'
import type { AppDeps, AppEnv } from '../app-env.ts'
import { bearerVerifier, TENANT_HEADER } from './identify-caller.ts'

export const authenticate = (
  deps: Pick<AppDeps, 'keys' | 'config' | 'clock' | 'db' | 'sso'>
): MiddlewareHandler<AppEnv> => {
  const verify = bearerVerifier(deps)
  return async function authenticate(c, next) {
    // Verifies here only when identifyCaller did not run for this request.
    const bearer = c.get('bearer') ?? (await verify(c.req.header('Authorization'), c.req.header(TENANT_HEADER)))
    if (!bearer.ok) throw bearer.error
    c.set('principal', bearer.principal)
    const context = currentLogContext()
    if (context) context.tenantId = bearer.principal.tenantId
    await next()
  }
}
