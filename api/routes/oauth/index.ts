/**
 * @module The OAuth 2.0 endpoints: token (spec row 1; client credentials and refresh), revocation (RFC 7009) and
 * introspection (RFC 7662). JSON or form-encoded bodies; client authentication in the body or by HTTP Basic.
 */
import { OpenAPIHono } from '@hono/zod-openapi'
import { OAuthError } from '../../../domain/auth/oauth-error.ts'
import type { TokenLifecycle, TokenTypeHint } from '../../../domain/auth/token-lifecycle.ts'
import type { TokenService } from '../../../domain/auth/token-service.ts'
import type { AppEnv } from '../../app-env.ts'
import { NO_STORE, handleOAuth } from './client-request.ts'
import { TokenRequest, introspectRouteDoc, revokeRouteDoc, tokenRouteDoc } from './oauth.routes.ts'

const tokenParameter = (body: Record<string, unknown>) => {
  if (typeof body.token !== 'string' || !body.token)
    throw new OAuthError('invalid_request', 'The token parameter is required.')
  const hint: TokenTypeHint | undefined =
    body.token_type_hint === 'access_token' || body.token_type_hint === 'refresh_token'
      ? body.token_type_hint
      : undefined
  return { token: body.token, hint }
}

export function oauthRoutes({ tokens, tokenLifecycle }: { tokens: TokenService; tokenLifecycle: TokenLifecycle }) {
  const app = new OpenAPIHono<AppEnv>()
  app.openAPIRegistry.registerPath(tokenRouteDoc)
  app.openAPIRegistry.registerPath(revokeRouteDoc)
  app.openAPIRegistry.registerPath(introspectRouteDoc)

  app.post('/oauth/token', (c) =>
    handleOAuth(c, async (raw, credentials) => {
      const parsed = TokenRequest.safeParse(raw)
      if (!parsed.success) {
        if (parsed.error.issues[0]?.path[0] === 'grant_type') {
          throw new OAuthError('unsupported_grant_type', 'grant_type must be client_credentials or refresh_token.')
        }
        throw new OAuthError(
          'invalid_request',
          parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')
        )
      }
      const body = parsed.data
      const response =
        body.grant_type === 'client_credentials'
          ? await tokens.clientCredentials(credentials(), body.scope)
          : await tokens.refresh(credentials(), body.refresh_token, body.scope)
      return c.json(response, 200, NO_STORE)
    })
  )

  app.post('/oauth/revoke', (c) =>
    handleOAuth(c, async (body, credentials) => {
      const client = await tokens.authenticateClient(credentials())
      const { token, hint } = tokenParameter(body)
      await tokenLifecycle.revoke(client.id, token, hint)
      return c.body(null, 200, NO_STORE)
    })
  )

  app.post('/oauth/introspect', (c) =>
    handleOAuth(c, async (body, credentials) => {
      const client = await tokens.authenticateClient(credentials())
      const { token } = tokenParameter(body)
      return c.json(await tokenLifecycle.introspect(client.id, token), 200, NO_STORE)
    })
  )
  return app
}
