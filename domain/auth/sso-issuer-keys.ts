/**
 * @module The signing keys of the SSO issuers tenants register: the issuer's discovery document (OpenID Connect
 * Discovery 1.0) names its JSON Web Key Set, or the connection names the set itself. Both are fetched through the
 * outbound network policy (the fetcher the process hands in, adapters/outbound/fetch-json.ts: vetted addresses,
 * deadline, size cap, no redirects) and cached per URL (its cache, adapters/outbound/document-cache.ts), because a
 * request decides nothing here: a token naming an issuer is enough to get this far, so however many arrive, each URL
 * is fetched at most once per interval, and a key id the cached set lacks (the issuer rotated) asks for the set again
 * at most that often. That holds across URLs too: the cache forgets no URL inside its interval, so tokens cycling
 * through more connections than it holds are refused rather than fetched.
 *
 * Keyed by URL, never by issuer name alone: two tenants may register the same issuer, and the keys found at one
 * connection's URL must never verify tokens checked against the other's. A registered key set URL is used only on the
 * issuer's own host (sso-urls.ts `onIssuerHost`); a connection stored with one elsewhere gets the discovered set.
 */
import { createLocalJWKSet, errors as joseErrors, type JSONWebKeySet, type JWTVerifyGetKey } from 'jose'
import type { Clock } from '../../infra/clock.ts'
import type { Logger } from '../../infra/logger.ts'
import { invalidToken } from '../errors.ts'
import { DocumentCacheFullError, type DocumentCache, type JsonFetcher, type OutboundCalls } from '../outbound-policy.ts'
import type { SsoSettings } from './sso-settings.ts'
import { discoveryUrlOf, onIssuerHost, SSO_SUBJECT, ssoUrlRefusal } from './sso-urls.ts'

/** The limits of SSO fetches (docs/access-control.md, "SSO"). */
export const SSO_FETCH_LIMITS = {
  /** Deadline of one fetch: the request that triggered it waits for it. */
  timeoutMs: 5000,
  /** Discovery documents and key sets are a few kB. */
  maxBytes: 256 * 1024,
  /** Least time between two fetches of one URL, whatever the traffic. */
  minIntervalMs: 30_000,
  /** The server's max-age within these bounds; 10 minutes (jose's default) when it gives none. */
  freshness: { defaultMs: 10 * 60_000, minMs: 60_000, maxMs: 60 * 60_000 },
  /** URLs each cache (discovery documents, key sets) holds; one fetched within the interval is never forgotten. */
  maxCachedUrls: 1000,
} as const

export interface IssuerKeysDeps {
  settings: SsoSettings
  clock: Clock
  logger?: Logger
  /** The outbound policy's fetcher and cache (adapters/outbound/outbound-calls.ts). */
  outbound: Pick<OutboundCalls, 'jsonFetcher' | 'documentCache'>
  /** Replaces the policy-bound HTTP fetcher (tests of the cache rules). */
  fetchJson?: JsonFetcher
  /** Replaces `SSO_FETCH_LIMITS.maxCachedUrls` (tests of a full cache). */
  maxCachedUrls?: number
}

export interface IssuerKeys {
  /**
   * The key resolver of a connection, for jose's `jwtVerify`.
   * @param jwksUri - the connection's key set URL; null: the one the issuer's discovery document names
   */
  keysFor(issuer: string, jwksUri: string | null): JWTVerifyGetKey
}

type LocalKeys = ReturnType<typeof createLocalJWKSet>

const unreachable = () => invalidToken("The SSO issuer's keys could not be fetched.")

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/** Creates the key store of every issuer; one per process. */
export function createIssuerKeys({
  settings,
  clock,
  logger,
  outbound,
  fetchJson: injected,
  maxCachedUrls = SSO_FETCH_LIMITS.maxCachedUrls,
}: IssuerKeysDeps): IssuerKeys {
  const fetchJson =
    injected ??
    outbound.jsonFetcher({
      network: settings.network,
      timeoutMs: SSO_FETCH_LIMITS.timeoutMs,
      maxBytes: SSO_FETCH_LIMITS.maxBytes,
      subject: SSO_SUBJECT,
      userAgent: 'TherapyCare-SSO/1.0',
    })
  const cacheOptions = {
    minIntervalMs: SSO_FETCH_LIMITS.minIntervalMs,
    freshness: SSO_FETCH_LIMITS.freshness,
    now: () => clock().getTime(),
    maxEntries: maxCachedUrls,
  }

  /** Fetches and checks one document; a failure is logged here, once per fetch, not once per request. */
  const fetched =
    <T>(what: string, check: (body: unknown) => T) =>
    async (url: string) => {
      try {
        const { body, maxAgeMs } = await fetchJson(url)
        return { value: check(body), maxAgeMs }
      } catch (error) {
        logger?.warn({ url, err: error }, `SSO ${what} not fetched; retried after the fetch interval`)
        throw unreachable()
      }
    }

  const discovery: DocumentCache<{ issuer: unknown; jwksUri: string }> = outbound.documentCache({
    ...cacheOptions,
    fetch: fetched('discovery document', (body) => {
      if (!isObject(body) || typeof body.jwks_uri !== 'string') throw new Error('the document names no jwks_uri')
      // The key set URL comes from the issuer's server, so it meets the rules a registered one meets.
      const refusal = ssoUrlRefusal(body.jwks_uri, 'jwksUri', settings.requireHttps)
      if (refusal) throw new Error(`jwks_uri refused: ${refusal.message}`)
      return { issuer: body.issuer, jwksUri: body.jwks_uri }
    }),
  })

  const keySets: DocumentCache<LocalKeys> = outbound.documentCache({
    ...cacheOptions,
    // Built once per fetched set: jose's local set caches the keys it has imported.
    fetch: fetched('key set', (body) => createLocalJWKSet(body as JSONWebKeySet)),
  })

  /**
   * A document from a cache. A cache that may not take in another URL yet (every one it holds was fetched within the
   * interval: a tenant cycling through more key sets than it holds) refuses the token as an unreachable issuer would.
   */
  async function cached<T>(cache: DocumentCache<T>, url: string, options?: { refresh?: boolean }): Promise<T> {
    try {
      return await cache.get(url, options)
    } catch (error) {
      if (!(error instanceof DocumentCacheFullError)) throw error
      logger?.warn({ url }, 'SSO document not fetched: every cached SSO URL was fetched within the fetch interval')
      throw unreachable()
    }
  }

  async function keySetUrl(issuer: string, registered: string | null): Promise<string> {
    // A key set URL off the issuer's host (accepted before issue 55) would let whoever registered it choose the keys:
    // it is ignored, and the issuer's discovery document names the set, as for a connection that names none.
    const jwksUri = registered && onIssuerHost(issuer, registered) ? registered : null
    // Checked at registration, and again here: a connection stored under other rules (development's defaults, an
    // older release) meets today's before anything is fetched.
    if (ssoUrlRefusal(jwksUri ?? issuer, jwksUri ? 'jwksUri' : 'issuer', settings.requireHttps)) throw unreachable()
    if (jwksUri) return jwksUri
    const document = await cached(discovery, discoveryUrlOf(issuer))
    // Discovery 1.0, section 4.3: a document for another issuer is not this issuer's.
    if (document.issuer !== issuer) throw invalidToken("The SSO issuer's discovery document names another issuer.")
    return document.jwksUri
  }

  return {
    keysFor(issuer, jwksUri) {
      return async (header, token) => {
        const url = await keySetUrl(issuer, jwksUri)
        const keys = await cached(keySets, url)
        try {
          return await keys(header, token)
        } catch (error) {
          if (!(error instanceof joseErrors.JWKSNoMatchingKey)) throw error
          // A key id the set lacks: the issuer may have rotated. Fetched again only if the interval allows.
          const newer = await cached(keySets, url, { refresh: true })
          if (newer === keys) throw error
          return newer(header, token)
        }
      }
    },
  }
}
