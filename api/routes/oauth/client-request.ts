/**
 * @module Reading an OAuth request: a JSON or form-encoded body, and the client's credentials from the body or from
 * HTTP Basic (RFC 6749 §2.3.1), never both. Shared by the token, revocation and introspection endpoints.
 */
import type { Context } from 'hono'
import { OAuthError } from '../../../domain/auth/oauth-error.ts'
import type { ClientCredentials } from '../../../domain/auth/token-service.ts'
import { idPattern } from '../../../domain/id-schema.ts'
import type { AppEnv } from '../../app-env.ts'

export const NO_STORE = { 'Cache-Control': 'no-store', Pragma: 'no-cache' }

/** The shape of an API client's id: what a failed authentication may name on the trail. */
const CLIENT_ID = idPattern('apiClient')

/** The request body as a plain object of strings (JSON values are kept as sent). */
export async function readOAuthBody(c: Context<AppEnv>): Promise<Record<string, unknown>> {
  const type = c.req.header('Content-Type') ?? ''
  try {
    if (/^application\/json/i.test(type)) {
      const body: unknown = await c.req.json()
      if (body && typeof body === 'object' && !Array.isArray(body)) return body as Record<string, unknown>
    } else if (/^application\/x-www-form-urlencoded/i.test(type)) {
      return Object.fromEntries(new URLSearchParams(await c.req.text()))
    } else {
      throw new OAuthError(
        'invalid_request',
        'Send the request as application/json or application/x-www-form-urlencoded.'
      )
    }
  } catch (error) {
    if (error instanceof OAuthError) throw error
  }
  throw new OAuthError('invalid_request', 'The request body could not be parsed.')
}

/** Credentials from an `Authorization: Basic` header, whose parts are form-urlencoded. */
function basicCredentials(header: string | undefined): ClientCredentials | undefined {
  const match = header && /^Basic\s+([A-Za-z0-9+/=]+)$/i.exec(header)
  if (!match?.[1]) return undefined
  const decoded = Buffer.from(match[1], 'base64').toString('utf8')
  const colon = decoded.indexOf(':')
  if (colon < 0) throw new OAuthError('invalid_client', 'Malformed Basic credentials.')
  const decode = (s: string) => decodeURIComponent(s.replace(/\+/g, ' '))
  return { clientId: decode(decoded.slice(0, colon)), clientSecret: decode(decoded.slice(colon + 1)) }
}

/**
 * The client credentials of a request.
 * @returns the credentials and whether they came by HTTP Basic (which decides the 401's WWW-Authenticate)
 */
export function clientCredentialsOf(
  c: Context<AppEnv>,
  body: Record<string, unknown>
): { credentials: ClientCredentials; usedBasic: boolean } {
  const basic = basicCredentials(c.req.header('Authorization'))
  if (basic && (body.client_id !== undefined || body.client_secret !== undefined)) {
    throw new OAuthError('invalid_request', 'Use one client authentication method, not both.')
  }
  const credentials = basic ?? {
    clientId: typeof body.client_id === 'string' ? body.client_id : '',
    clientSecret: typeof body.client_secret === 'string' ? body.client_secret : '',
  }
  if (!credentials.clientId || !credentials.clientSecret) {
    throw new OAuthError('invalid_client', 'Client credentials are required.')
  }
  return { credentials, usedBasic: basic !== undefined }
}

/** Answers an OAuth error (RFC 6749 §5.2), with a Basic challenge when the client authenticated by Basic. */
export function oauthErrorResponse(c: Context<AppEnv>, error: OAuthError, usedBasic: boolean): Response {
  const headers: Record<string, string> = { ...NO_STORE }
  if (error.error === 'invalid_client' && usedBasic) headers['WWW-Authenticate'] = 'Basic realm="oauth"'
  return c.json({ error: error.error, error_description: error.message }, error.status as 400, headers)
}

/** What the trail calls the subject of an OAuth call: the API client. */
const API_CLIENTS = 'api-clients'

/**
 * Puts an authenticated client on its call's audit record: its tenant's chain, the client as actor and subject.
 * Called as soon as the client has authenticated, so a grant refused after that (a bad scope, a used refresh token)
 * is on the client's trail too.
 */
export function auditAsClient(c: Context<AppEnv>, client: { id: string; tenantId: string }): void {
  c.set('auditedAs', {
    tenantId: client.tenantId,
    actorType: 'client',
    actorId: client.id,
    resourceType: API_CLIENTS,
    resourceId: client.id,
  })
}

/**
 * Runs an OAuth endpoint body: OAuthErrors become RFC 6749 answers, anything else goes to the app's error handler.
 * A failed client authentication is recorded on the platform chain as anonymous, naming the client id it claimed only
 * when that has the shape of one: never the secret, nor whatever else was typed into the id field (a pasted secret).
 */
export async function handleOAuth(
  c: Context<AppEnv>,
  work: (body: Record<string, unknown>, credentials: () => ClientCredentials) => Promise<Response>
): Promise<Response> {
  let usedBasic = /^Basic\s/i.test(c.req.header('Authorization') ?? '')
  let claimed: string | undefined
  try {
    const body = await readOAuthBody(c)
    return await work(body, () => {
      const found = clientCredentialsOf(c, body)
      usedBasic = found.usedBasic
      claimed = found.credentials.clientId
      return found.credentials
    })
  } catch (error) {
    if (!(error instanceof OAuthError)) throw error
    if (error.error === 'invalid_client' && !c.get('auditedAs')) {
      const clientId = claimed !== undefined && CLIENT_ID.test(claimed) ? claimed : null
      c.set('auditedAs', { resourceType: API_CLIENTS, resourceId: clientId })
    }
    return oauthErrorResponse(c, error, usedBasic)
  }
}
