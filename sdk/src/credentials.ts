/**
 * @module Where the bearer credential of each request comes from (spec Part 5 and Part 7). With client credentials
 * the SDK obtains access tokens itself (`POST /oauth/token`), renews them shortly before they expire with the
 * refresh token (rotated on every use), falls back to client credentials when the refresh token is refused, and
 * renews on demand after a 401. An API key is sent as it is and cannot be renewed.
 */
import { ApiError } from './errors.ts'

/** The token endpoint's answer (spec Part 2, "Token response"). */
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

/** Access tokens obtained and renewed with the OAuth 2.0 client-credentials and refresh-token grants. */
export function clientCredentialsSource(options: ClientCredentialsOptions): CredentialSource {
  let tokens: Tokens | undefined
  // One renewal at a time, shared by every call waiting for it: two concurrent refreshes would present the same
  // refresh token twice, and the API treats a reused refresh token as theft and revokes the whole family.
  let pending: Promise<Tokens> | undefined
  const client = { client_id: options.clientId, client_secret: options.clientSecret }

  async function obtain(): Promise<Tokens> {
    const sentAt = options.now()
    let answer: TokenResponse | undefined
    if (tokens?.refreshToken) {
      try {
        answer = await options.requestToken({
          grant_type: 'refresh_token',
          refresh_token: tokens.refreshToken,
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
    if (typeof answer.access_token !== 'string' || typeof answer.expires_in !== 'number') {
      throw new Error('The token endpoint answered without access_token and expires_in.')
    }
    // Counted from when the request was sent, so time spent in flight only makes us renew earlier.
    const lifetimeMs = answer.expires_in * 1000
    return {
      accessToken: answer.access_token,
      refreshToken: answer.refresh_token,
      renewAtMs: sentAt + lifetimeMs - Math.min(MAX_EARLY_RENEWAL_MS, lifetimeMs * EARLY_RENEWAL_RATIO),
    }
  }

  function renewNow(): Promise<Tokens> {
    pending ??= obtain()
      .then((fresh) => (tokens = fresh))
      .finally(() => {
        pending = undefined
      })
    return pending
  }

  return {
    async bearer() {
      if (tokens && options.now() < tokens.renewAtMs && !pending) return tokens.accessToken
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
