/**
 * @module A development OpenID Connect provider on loopback (the `oidc-provider` library, the one certified
 * implementations use): authorization code with PKCE for the console's public client, ID tokens signed with its own
 * RS256 key. `npm start` runs one so the console's development sign-in is the same code path as a centre's SSO
 * (docs/console.md); the browser tests run one to sign in as several users. Its sign-in page lists the accounts it
 * was given, one button each: no password, which is why it only ever listens on 127.0.0.1 and why production's
 * outbound policy (no plain http, no loopback issuer) refuses its tokens.
 */
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { randomBytes } from 'node:crypto'
import { exportJWK, generateKeyPair } from 'jose'
import Provider, { type Configuration } from 'oidc-provider'
import { escapeHtml } from '../../api/html-escape.ts'

/** One person who can sign in: what the ID token says about them. */
export interface IdentityAccount {
  email: string
  name: string
  /** The `roles` claim: the tenant's SSO connection maps these values to platform roles. */
  roles: string[]
}

export interface IdentityProviderOptions {
  /** The console's client id (the SSO connection's audience). */
  clientId: string
  /** Where the provider sends the browser back with the code (the console's own URL). */
  redirectUris: string[]
  /** Sign-in name → account. */
  accounts: Record<string, IdentityAccount>
}

export interface DevelopmentIdentityProvider {
  /** Its address, known once it listens: the API's policy names it before the console's client is registered. */
  issuer: string
  /** Starts answering as a provider for this client and these accounts (until then: 503). */
  serve(options: IdentityProviderOptions): Promise<void>
  close(): Promise<void>
}

function signInPage(uid: string, accounts: Record<string, IdentityAccount>): string {
  const buttons = Object.entries(accounts)
    .map(
      ([login, account]) =>
        `<li><button type="submit" name="account" value="${escapeHtml(login)}">Sign in as ${escapeHtml(account.name)}</button> <span>${escapeHtml(account.email)}, ${escapeHtml(account.roles.join(', '))}</span></li>`
    )
    .join('\n')
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Development sign-in</title></head>
<body><main><h1>Development sign-in</h1>
<p>This identity provider runs on this machine for development and tests only.</p>
<form method="post" action="/interaction/${escapeHtml(uid)}/login"><ul>${buttons}</ul></form>
</main></body></html>`
}

/** Reads an `application/x-www-form-urlencoded` body of at most 4 KiB. */
async function formBody(req: http.IncomingMessage): Promise<URLSearchParams> {
  let body = ''
  for await (const chunk of req) {
    body += String(chunk)
    if (body.length > 4096) throw new Error('form too large')
  }
  return new URLSearchParams(body)
}

/**
 * Listens on 127.0.0.1 (`port`, 0 for any free one); {@link DevelopmentIdentityProvider.serve} then makes it a provider.
 */
export async function listenIdentityProvider(port = 0): Promise<DevelopmentIdentityProvider> {
  const server = http.createServer((_req, res) => void res.writeHead(503).end())
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, '127.0.0.1', resolve)
  })
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    issuer,
    serve: async (options) => {
      const handler = await providerHandler(issuer, options)
      server.removeAllListeners('request')
      server.on('request', handler)
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

async function providerHandler(
  issuer: string,
  options: IdentityProviderOptions
): Promise<(req: http.IncomingMessage, res: http.ServerResponse) => void> {
  const { privateKey } = await generateKeyPair('RS256', { extractable: true })
  const signingKey = { ...(await exportJWK(privateKey)), kid: 'development-1', alg: 'RS256', use: 'sig' }
  const configuration: Configuration = {
    clients: [
      {
        client_id: options.clientId,
        token_endpoint_auth_method: 'none',
        redirect_uris: options.redirectUris,
        grant_types: ['authorization_code'],
        response_types: ['code'],
      },
    ],
    jwks: { keys: [signingKey] },
    cookies: { keys: [randomBytes(32).toString('hex')] },
    claims: { openid: ['sub'], email: ['email'], profile: ['name'], roles: ['roles'] },
    // Claims asked for by scope go in the ID token: the API reads the role from it, and there is no userinfo call.
    conformIdTokenClaims: false,
    features: { devInteractions: { enabled: false } },
    // The console calls the token endpoint from its own origin (a public client): allowed for its redirect origins.
    clientBasedCORS: (_ctx, origin, client) => client.redirectUris!.some((uri) => new URL(uri).origin === origin),
    findAccount: (_ctx, sub) => {
      const account = options.accounts[sub]
      if (!account) return undefined
      return { accountId: sub, claims: () => ({ sub, ...account }) }
    },
    ttl: { IdToken: 3600, AccessToken: 3600, AuthorizationCode: 60, Interaction: 600, Session: 3600, Grant: 3600 },
  }
  const provider = new Provider(issuer, configuration)
  const handle = provider.callback()

  async function interaction(req: http.IncomingMessage, res: http.ServerResponse, uid: string, submitted: boolean) {
    const details = await provider.interactionDetails(req, res)
    if (details.uid !== uid) throw new Error('interaction mismatch')
    if (!submitted) {
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store' })
      return void res.end(signInPage(uid, options.accounts))
    }
    const accountId = (await formBody(req)).get('account') ?? ''
    if (!options.accounts[accountId]) throw new Error('unknown account')
    // Sign-in and consent in one step: a development provider has no third party to consent to.
    const grant = new provider.Grant({ accountId, clientId: String(details.params.client_id) })
    grant.addOIDCScope(String(details.params.scope))
    const grantId = await grant.save()
    await provider.interactionFinished(req, res, { login: { accountId }, consent: { grantId } })
  }

  return (req, res) => {
    const match = /^\/interaction\/([\w-]+)(\/login)?$/.exec(req.url ?? '')
    if (!match) return void handle(req, res)
    void interaction(req, res, match[1]!, Boolean(match[2])).catch(() => {
      if (!res.headersSent) res.writeHead(400, { 'Content-Type': 'text/plain' })
      res.end('This sign-in has expired: start again from the console.')
    })
  }
}
