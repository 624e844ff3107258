/**
 * @module The OAuth 2.0 endpoints: token (spec row 1; client credentials and refresh), revocation (RFC 7009) and
 * introspection (RFC 7662). JSON or form-encoded bodies; client authentication in the body or by HTTP Basic. Every
 * call is on the audit trail: on the client's tenant's chain once the client has authenticated, on the platform chain
 * otherwise (docs/audit-trail.md).
 */
import { OpenAPIHono } from '@hono/zod-openapi'
import { OAuthError } from '../../../domain/auth/oauth-error.ts'
import type { TokenLifecycle, TokenTypeHint } from '../../../domain/auth/token-lifecycle.ts'
import type { TokenService } from '../../../domain/auth/token-service.ts'
import type { AppEnv } from '../../app-env.ts'
import { NO_STORE, auditAsClient, handleOAuth } from './client-request.ts'
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
      const client = credentials()
      // Authenticated here first so the trail names the client and its tenant whatever the grant's outcome; the
      // grant authenticates again (one read by primary key).
      auditAsClient(c, await tokens.authenticateClient(client))
      const response =
        body.grant_type === 'client_credentials'
          ? await tokens.clientCredentials(client, body.scope)
          : await tokens.refresh(client, body.refresh_token, body.scope)
      return c.json(response, 200, NO_STORE)
    })
  )

  app.post('/oauth/revoke', (c) =>
    handleOAuth(c, async (body, credentials) => {
      const client = await tokens.authenticateClient(credentials())
      auditAsClient(c, client)
      const { token, hint } = tokenParameter(body)
      await tokenLifecycle.revoke(client.id, token, hint)
      return c.body(null, 200, NO_STORE)
    })
  )

  app.post('/oauth/introspect', (c) =>
    handleOAuth(c, async (body, credentials) => {
      const client = await tokens.authenticateClient(credentials())
      auditAsClient(c, client)
      const { token } = tokenParameter(body)
      return c.json(await tokenLifecycle.introspect(client.id, token), 200, NO_STORE)
    })
  )
  return app
}
