/**
 * @module Discovery documents: the JWKS that verifies our access tokens and the authorization-server metadata
 * (RFC 8414), so OAuth libraries configure themselves.
 */
import { OpenAPIHono } from '@hono/zod-openapi'
import { SCOPE_CATALOGUE } from '../../../domain/auth/scopes.ts'
import type { AppDeps, AppEnv } from '../../app-env.ts'

export function wellKnownRoutes({ keys, config }: Pick<AppDeps, 'keys' | 'config'>) {
  const issuer = config.PUBLIC_URL
  return new OpenAPIHono<AppEnv>()
    .get('/.well-known/jwks.json', async (c) =>
      c.json(await keys.jwks(), 200, { 'Cache-Control': 'public, max-age=300' })
    )
    .get('/.well-known/oauth-authorization-server', (c) =>
      c.json({
        issuer,
        token_endpoint: `${issuer}/oauth/token`,
        revocation_endpoint: `${issuer}/oauth/revoke`,
        introspection_endpoint: `${issuer}/oauth/introspect`,
        revocation_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
        introspection_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
        jwks_uri: `${issuer}/.well-known/jwks.json`,
        grant_types_supported: ['client_credentials', 'refresh_token'],
        token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
        response_types_supported: [],
        scopes_supported: Object.keys(SCOPE_CATALOGUE),
        service_documentation: `${issuer}/openapi.json`,
      })
    )
}
