/**
 * @module Verified access tokens, remembered until they expire. An API client sends the same bearer token with every
 * request for the token's lifetime; an ES256 verification per request was the largest fixed cost of
 * authentication in the CPU profile (docs/benchmarks.md, "Reading the guarded-read figures"). A token that verified
 * once stays valid until its `exp`: its signing key stays published at least that long after a rotation
 * (signing-keys.ts), and revocation is not a property of the token but a list checked on every request
 * (api/middleware/reject-revoked-tokens.ts), cache or not.
 *
 * The key is the exact token string, so a hit is the very bytes that verified. A hit is refused from the moment the
 * token expires, with the same rule as `jose` (expired when `exp <= now` in whole seconds), so the caller then pays
 * the full verification and gets its "expired" error. Bounded: least recently used entries go first.
 */
import type { Clock } from '../../infra/clock.ts'
import type { ClientPrincipal } from './access-tokens.ts'

/** Enough for every token a busy instance sees within a token's lifetime; a few MB at most. */
export const DEFAULT_CACHE_SIZE = 10_000

interface Entry {
  principal: ClientPrincipal
  /** The token's `exp`, seconds since the epoch. */
  exp: number
}

export interface VerifiedTokenCache {
  /** The principal of a token that verified and has not expired yet; a copy, so no request can alter another's. */
  get(token: string): ClientPrincipal | undefined
  /** Remembers a token that has just verified. */
  set(token: string, principal: ClientPrincipal, exp: number): void
}

/**
 * Creates a cache for one verifier (one issuer, audience and key store): a token verified by one is never trusted by
 * another.
 * @param clock - the verifier's clock, the same `jose` is given
 * @param maxEntries - the bound
 */
export function verifiedTokenCache(clock: Clock, maxEntries = DEFAULT_CACHE_SIZE): VerifiedTokenCache {
  // A Map iterates in insertion order: re-inserting on a hit keeps the least recently used entry first.
  const entries = new Map<string, Entry>()
  const nowSeconds = () => Math.floor(clock().getTime() / 1000)
  return {
    get(token) {
      const entry = entries.get(token)
      if (!entry) return undefined
      entries.delete(token)
      if (entry.exp <= nowSeconds()) return undefined
      entries.set(token, entry)
      return { ...entry.principal, scopes: [...entry.principal.scopes] }
    },
    set(token, principal, exp) {
      if (exp <= nowSeconds()) return
      entries.delete(token)
      entries.set(token, { principal: { ...principal, scopes: [...principal.scopes] }, exp })
      while (entries.size > maxEntries) entries.delete(entries.keys().next().value!)
    },
  }
}
