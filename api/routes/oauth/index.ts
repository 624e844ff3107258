/**
 * @module POST /oauth/token (spec row 1): JSON or form-encoded bodies, client authentication in the body or by
 * HTTP Basic (RFC 6749 §2.3.1), answered with no-store caching and OAuth error bodies.
 */
import { OpenAPIHono } from '@hono/zod-openapi'
import type { Context } from 'hono'
import { OAuthError } from '../../../domain/auth/oauth-error.ts'
import type { ClientCredentials, TokenService } from '../../../domain/auth/token-service.ts'
import type { AppEnv } from '../../app-env.ts'
import { TokenRequest, tokenRouteDoc } from './oauth.routes.ts'

const NO_STORE = { 'Cache-Control': 'no-store', Pragma: 'no-cache' }

async function readBody(c: Context<AppEnv>): Promise<unknown> {
  const type = c.req.header('Content-Type') ?? ''
  try {
    if (/^application\/json/i.test(type)) return await c.req.json()
    if (/^application\/x-www-form-urlencoded/i.test(type)) return Object.fromEntries(new URLSearchParams(await c.req.text()))
  } catch {
    throw new OAuthError('invalid_request', 'The request body could not be parsed.')
  }
  throw new OAuthError('invalid_request', 'Send the request as application/json or application/x-www-form-urlencoded.')
}

/** Credentials from an `Authorization: Basic` header, whose parts are form-urlencoded (RFC 6749 §2.3.1). */
function basicCredentials(header: string | undefined): ClientCredentials | undefined {
  const match = header && /^Basic\s+([A-Za-z0-9+/=]+)$/i.exec(header)
  if (!match?.[1]) return undefined
  const decoded = Buffer.from(match[1], 'base64').toString('utf8')
  const colon = decoded.indexOf(':')
  if (colon < 0) throw new OAuthError('invalid_client', 'Malformed Basic credentials.')
  const decode = (s: string) => decodeURIComponent(s.replace(/\+/g, ' '))
  return { clientId: decode(decoded.slice(0, colon)), clientSecret: decode(decoded.slice(colon + 1)) }
}

export function oauthRoutes({ tokens }: { tokens: TokenService }) {
  const app = new OpenAPIHono<AppEnv>()
  app.openAPIRegistry.registerPath(tokenRouteDoc)

  app.post('/oauth/token', async (c) => {
    let usedBasic = false
    try {
      const parsed = TokenRequest.safeParse(await readBody(c))
      if (!parsed.success) {
        const grantType = (parsed.error.issues[0]?.path[0] === 'grant_type')
        throw grantType
          ? new OAuthError('unsupported_grant_type', 'grant_type must be client_credentials or refresh_token.')
          : new OAuthError('invalid_request', parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '))
      }
      const body = parsed.data
      const basic = basicCredentials(c.req.header('Authorization'))
      usedBasic = basic !== undefined
      if (basic && (body.client_id || body.client_secret)) {
        throw new OAuthError('invalid_request', 'Use one client authentication method, not both.')
      }
      const client = basic ?? { clientId: body.client_id ?? '', clientSecret: body.client_secret ?? '' }
      if (!client.clientId || !client.clientSecret) throw new OAuthError('invalid_client', 'Client credentials are required.')

      const response =
        body.grant_type === 'client_credentials'
          ? await tokens.clientCredentials(client, body.scope)
          : await tokens.refresh(client, body.refresh_token, body.scope)
      return c.json(response, 200, NO_STORE)
    } catch (error) {
      if (!(error instanceof OAuthError)) throw error
      const headers: Record<string, string> = { ...NO_STORE }
      if (error.error === 'invalid_client' && usedBasic) headers['WWW-Authenticate'] = 'Basic realm="oauth"'
      return c.json({ error: error.error, error_description: error.message }, error.status as 400, headers)
    }
  })
  return app
}
