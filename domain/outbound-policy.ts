/**
 * @module What the domain needs from the outbound network policy, the rules for calling URLs a tenant chose (webhook
 * receivers, agent calls, SSO issuers and key sets), declared here and filled by adapters/outbound/: the policy's
 * settings, vetting a registered URL's host (DNS), a capped JSON fetch, and a cache that decides how often a URL is
 * fetched. The domain is handed them by the process's composition (api/compose-services.ts), so it resolves no name
 * and opens no socket itself.
 */

/** What the operator allows beyond the public Internet: configuration, resolved by the domain's settings. */
export interface NetworkPolicy {
  /** Loopback, RFC 1918, CGNAT, link-local and ULA receivers (never metadata addresses). */
  allowPrivateNetworks: boolean
}

/** Why a registered URL's host is refused, as the field code and message of a validation problem. */
export interface AddressRefusal {
  code: 'forbidden_address' | 'unresolvable_host'
  message: string
}

/**
 * Vets the host of a URL a tenant registers, so a refused address is answered at once rather than at the first call.
 * @param hostname - the URL's `hostname` (IPv6 in brackets is fine)
 * @param subject - what is to be sent there, for the message ("webhooks", "SSO requests")
 * @returns why the host is refused, or undefined when every address it resolves to is allowed
 */
export type AddressVetter = (
  hostname: string,
  policy: NetworkPolicy,
  subject: string
) => Promise<AddressRefusal | undefined>

export interface JsonFetcherOptions {
  network: NetworkPolicy
  /** Deadline of one fetch, from the DNS lookup to the last byte. */
  timeoutMs: number
  /** Largest body read; a longer one fails the fetch. */
  maxBytes: number
  /** What is fetched, for the message of a refused address ("SSO requests"). */
  subject: string
  userAgent: string
}

/** A fetched document and how long its server says it stays fresh. */
export interface JsonDocument {
  body: unknown
  /** From `Cache-Control`: `max-age` in ms, 0 for `no-store` or `no-cache`; absent when the server does not say. */
  maxAgeMs?: number
}

/** GETs the JSON document at a URL; throws when it cannot (refused address, deadline, size, status, not JSON). */
export type JsonFetcher = (url: string) => Promise<JsonDocument>

/** Every URL the cache holds was fetched within the interval: a new one cannot be taken in without breaking the rule. */
export class DocumentCacheFullError extends Error {
  readonly url: string

  constructor(url: string) {
    super('not fetched: every URL the cache holds was fetched within the interval')
    this.name = 'DocumentCacheFullError'
    this.url = url
  }
}

export interface DocumentCacheOptions<T> {
  /** Fetches and checks the document; what it throws is remembered as the URL's failure. */
  fetch: (url: string) => Promise<{ value: T; maxAgeMs?: number }>
  /** Least time between two fetches of one URL. */
  minIntervalMs: number
  /** How long a document stays fresh: the server's `max-age` within [minMs, maxMs], `defaultMs` when it says none. */
  freshness: { defaultMs: number; minMs: number; maxMs: number }
  /** Epoch ms now (the app's clock, so tests can step past an interval). */
  now: () => number
  /** URLs remembered at most; the one fetched longest ago is forgotten first, once its interval has passed. */
  maxEntries?: number
}

export interface DocumentCache<T> {
  /**
   * The document at `url`: the cached one while fresh, else a new fetch if the URL's interval allows one, else the
   * last document (or the last failure) again.
   * @param options.refresh - the cached document did not do (a key id it lacks): fetch again if the interval allows
   * @throws DocumentCacheFullError for a URL it does not hold when every URL it holds was fetched within the interval
   */
  get(url: string, options?: { refresh?: boolean }): Promise<T>
}

/** The outbound policy's calls, as adapters/outbound/ fills them; the composition hands them to the domain. */
export interface OutboundCalls {
  vetAddress: AddressVetter
  /** Creates a fetcher bound to one network policy and set of limits. */
  jsonFetcher(options: JsonFetcherOptions): JsonFetcher
  /** Creates an empty cache of fetched documents. */
  documentCache<T>(options: DocumentCacheOptions<T>): DocumentCache<T>
}
