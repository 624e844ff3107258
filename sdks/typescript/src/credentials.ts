/**
 * @module Where the bearer credential of each request comes from. With client credentials
 * the SDK obtains access tokens itself (`POST /oauth/token`), renews them shortly before they expire with the
 * refresh token (rotated on every use), falls back to client credentials when the refresh token is refused, and
 * renews on demand after a 401. An API key is sent as it is and cannot be renewed.
 */
import { ApiError } from './errors.ts'

/** The token endpoint's answer (`POST /oauth/token`). */
export interface TokenResponse {
  access_token: string
  token_type: 'Bearer'
  expires_in: number
  scope: string
  refresh_token?: string
}

/** Supplies the bearer credential of each request. */
export interface CredentialSource {
  /** The credential to send now. */
  bearer(): Promise<string>
  /**
   * After a 401: obtains a new credential unless another call already did.
   * @param rejected - the credential the API refused
   * @returns whether a request is worth repeating with the new credential
   */
  renew(rejected: string): Promise<boolean>
}

/** An API key (`Authorization: Bearer <key>`): fixed, so a 401 is final. */
export function apiKeySource(apiKey: string): CredentialSource {
  return { bearer: async () => apiKey, renew: async () => false }
}

/** Renew this long before expiry at most... */
const MAX_EARLY_RENEWAL_MS = 60_000
/** ...and at most this share of the lifetime early, so very short-lived tokens are still used. */
const EARLY_RENEWAL_RATIO = 0.1

interface Tokens {
  accessToken: string
  refreshToken?: string
  /** When to stop using the access token and renew (epoch milliseconds). */
  renewAtMs: number
}

/** What {@link clientCredentialsSource} needs. */
export interface ClientCredentialsOptions {
  clientId: string
  clientSecret: string
  /** Space-separated scopes to request; by default all the client holds. */
  scope?: string
  /** Sends one token request (JSON body) with the client's retry policy; throws {@link ApiError} on refusal. */
  requestToken(body: Record<string, string>): Promise<TokenResponse>
  now(): number
}

/**
 * A credential the API issued for a lifetime: used until shortly before it expires, then obtained again, one renewal
 * at a time for every call waiting on it.
 * @param obtain - gets new tokens, given the ones held (whose refresh token it may use)
 */
function renewingSource(obtain: (held: Tokens | undefined) => Promise<Tokens>, now: () => number): CredentialSource {
  let tokens: Tokens | undefined
  // One renewal at a time, shared by every call waiting for it: two concurrent refreshes would present the same
  // refresh token twice, and the API treats a reused refresh token as theft and revokes the whole family.
  let pending: Promise<Tokens> | undefined

  function renewNow(): Promise<Tokens> {
    pending ??= obtain(tokens)
      .then((fresh) => (tokens = fresh))
      .finally(() => {
        pending = undefined
      })
    return pending
  }

  return {
    async bearer() {
      if (tokens && now() < tokens.renewAtMs && !pending) return tokens.accessToken
      return (await renewNow()).accessToken
    },
    async renew(rejected) {
      if (pending) await pending
      else if (tokens?.accessToken === rejected || !tokens) await renewNow()
      // Otherwise another call renewed after this one sent its request: the current token is already new.
      return true
    },
  }
}

/** Tokens from a token response, to renew before they expire (counted from when the request was sent). */
function heldTokens(answer: TokenResponse, sentAtMs: number, keepRefreshToken: boolean): Tokens {
  if (typeof answer.access_token !== 'string' || typeof answer.expires_in !== 'number') {
    throw new Error('The token endpoint answered without access_token and expires_in.')
  }
  // Counted from when the request was sent, so time spent in flight only makes us renew earlier.
  const lifetimeMs = answer.expires_in * 1000
  return {
    accessToken: answer.access_token,
    refreshToken: keepRefreshToken ? answer.refresh_token : undefined,
    renewAtMs: sentAtMs + lifetimeMs - Math.min(MAX_EARLY_RENEWAL_MS, lifetimeMs * EARLY_RENEWAL_RATIO),
  }
}

/** Access tokens obtained and renewed with the OAuth 2.0 client-credentials and refresh-token grants. */
export function clientCredentialsSource(options: ClientCredentialsOptions): CredentialSource {
  const client = { client_id: options.clientId, client_secret: options.clientSecret }

  async function obtain(held: Tokens | undefined): Promise<Tokens> {
    const sentAt = options.now()
    let answer: TokenResponse | undefined
    if (held?.refreshToken) {
      try {
        answer = await options.requestToken({
          grant_type: 'refresh_token',
          refresh_token: held.refreshToken,
          ...client,
        })
      } catch (error) {
        // Expired, revoked or already used: start over with the client's own credentials. Anything else (the
        // client itself refused, the API unreachable) would fail the same way below, so it is thrown as it is.
        if (!(error instanceof ApiError && error.code === 'invalid_grant')) throw error
      }
    }
    answer ??= await options.requestToken({
      grant_type: 'client_credentials',
      ...client,
      ...(options.scope ? { scope: options.scope } : {}),
    })
    return heldTokens(answer, sentAt, true)
  }

  return renewingSource(obtain, () => options.now())
}

/**
 * What an app without a client secret (a browser, a phone) gets from its own backend: an access token and its
 * lifetime, in the token endpoint's shape. The backend holds the client secret and asks `POST /oauth/token` itself.
 */
export type AccessTokenProvider = () => Promise<Pick<TokenResponse, 'access_token' | 'expires_in'>>

/**
 * Access tokens handed over by the app's backend ({@link AccessTokenProvider}), asked for again shortly before they
 * expire and after a 401. A refresh token the backend passes on anyway is dropped: it would outlive the page.
 */
export function accessTokenProviderSource(provider: AccessTokenProvider, now: () => number): CredentialSource {
  return renewingSource(async () => {
    const sentAt = now()
    return heldTokens({ token_type: 'Bearer', scope: '', ...(await provider()) }, sentAt, false)
  }, now)
}
