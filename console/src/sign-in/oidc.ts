/**
 * @module Sign-in with OpenID Connect: authorization code with PKCE (RFC 7636, S256) against the centre's identity
 * provider, the console being a public client (no secret can live in a browser). The ID token is held in memory
 * only: a reload signs in again (the provider's own session makes that a redirect, not a password). sessionStorage
 * holds only what the round trip to the provider needs (state, nonce, PKCE verifier), removed on return.
 */

/** Which provider and client the console signs in with: the tenant's SSO connection (issuer, audience). */
export interface SignInSettings {
  issuer: string
  clientId: string
}

export interface SignedIn extends SignInSettings {
  idToken: string
  /** Milliseconds since the epoch. */
  expiresAt: number
  claims: { sub: string; email?: string; name?: string }
}

interface PendingSignIn extends SignInSettings {
  state: string
  nonce: string
  verifier: string
  tokenEndpoint: string
}

const PENDING_KEY = 'therapy-care-console:pending-sign-in'

/** Thrown with a message a person can act on. */
export class SignInError extends Error {}

const base64url = (bytes: Uint8Array) =>
  btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '')

const randomText = () => base64url(crypto.getRandomValues(new Uint8Array(32)))

/** Where the provider sends the browser back: the console's own address. */
export const redirectUri = () => `${location.origin}/console/`

async function discover(issuer: string): Promise<{ authorization_endpoint: string; token_endpoint: string }> {
  let response: Response
  try {
    response = await fetch(`${issuer.replace(/\/$/, '')}/.well-known/openid-configuration`)
  } catch {
    throw new SignInError(
      `The sign-in provider ${issuer} could not be reached from this page. Check its address, and that this ` +
        'deployment allows it (CONSOLE_IDENTITY_ORIGINS).'
    )
  }
  if (!response.ok) throw new SignInError(`The sign-in provider ${issuer} answered ${response.status}.`)
  const document = (await response.json()) as {
    issuer?: string
    authorization_endpoint?: string
    token_endpoint?: string
  }
  if (document.issuer !== issuer || !document.authorization_endpoint || !document.token_endpoint) {
    throw new SignInError(`${issuer} does not describe itself as that OpenID Connect provider.`)
  }
  return { authorization_endpoint: document.authorization_endpoint, token_endpoint: document.token_endpoint }
}

/** Sends the browser to the provider's sign-in. */
export async function beginSignIn(settings: SignInSettings): Promise<void> {
  const endpoints = await discover(settings.issuer)
  const pending: PendingSignIn = {
    ...settings,
    state: randomText(),
    nonce: randomText(),
    verifier: randomText(),
    tokenEndpoint: endpoints.token_endpoint,
  }
  const challenge = base64url(
    new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(pending.verifier)))
  )
  sessionStorage.setItem(PENDING_KEY, JSON.stringify(pending))
  const url = new URL(endpoints.authorization_endpoint)
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: settings.clientId,
    redirect_uri: redirectUri(),
    scope: 'openid email profile roles',
    state: pending.state,
    nonce: pending.nonce,
    code_challenge: challenge,
    code_challenge_method: 'S256',
  }).toString()
  location.assign(url.toString())
}

/** Whether the page was opened by the provider's redirect back. */
export const isSignInReturn = (params: URLSearchParams) =>
  params.has('state') && (params.has('code') || params.has('error'))

function decodeClaims(idToken: string): Record<string, unknown> {
  const payload = idToken.split('.')[1] ?? ''
  const json = atob(payload.replace(/-/g, '+').replace(/_/g, '/'))
  return JSON.parse(json) as Record<string, unknown>
}

/**
 * Exchanges the code the provider sent back for an ID token. The token's signature is the API's to verify (it does,
 * on every request, against the tenant's connection); here the state and nonce tie the answer to this sign-in.
 */
export async function completeSignIn(params: URLSearchParams): Promise<SignedIn> {
  const saved = sessionStorage.getItem(PENDING_KEY)
  sessionStorage.removeItem(PENDING_KEY)
  const pending = saved ? (JSON.parse(saved) as PendingSignIn) : undefined
  if (!pending || params.get('state') !== pending.state) {
    throw new SignInError('This sign-in was not started from this page, or was already used: sign in again.')
  }
  const refused = params.get('error')
  if (refused) throw new SignInError(`The sign-in provider refused: ${params.get('error_description') ?? refused}.`)
  const response = await fetch(pending.tokenEndpoint, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code: params.get('code') ?? '',
      redirect_uri: redirectUri(),
      client_id: pending.clientId,
      code_verifier: pending.verifier,
    }),
  })
  const body = (await response.json().catch(() => ({}))) as { id_token?: string; error_description?: string }
  if (!response.ok || !body.id_token) {
    throw new SignInError(`The sign-in could not be completed: ${body.error_description ?? response.status}.`)
  }
  const claims = decodeClaims(body.id_token)
  if (claims.nonce !== pending.nonce) throw new SignInError('The sign-in answer was not for this page: sign in again.')
  return {
    issuer: pending.issuer,
    clientId: pending.clientId,
    idToken: body.id_token,
    expiresAt: Number(claims.exp) * 1000,
    claims: {
      sub: String(claims.sub),
      ...(typeof claims.email === 'string' ? { email: claims.email } : {}),
      ...(typeof claims.name === 'string' ? { name: claims.name } : {}),
    },
  }
}
