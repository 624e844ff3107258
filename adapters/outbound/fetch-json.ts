/**
 * @module A GET of a small JSON document from a URL a tenant chose (an SSO issuer's discovery document or key set):
 * the socket reaches only addresses the network policy allows, vetted in the resolution it connects with
 * (vetted-lookup.ts); one deadline covers the whole exchange, so a server that trickles bytes cannot hold us; the body
 * is capped, so a huge answer cannot fill our memory; redirects are never followed, so a public server cannot bounce
 * us inward. The answer carries the server's freshness for the caller's cache (document-cache.ts).
 */
import http, { type IncomingHttpHeaders } from 'node:http'
import https from 'node:https'
import { isIP } from 'node:net'
import type { JsonDocument, JsonFetcher, JsonFetcherOptions } from '../../domain/outbound-policy.ts'
import { bareHost, resolveVetted, vettedLookup } from './vetted-lookup.ts'

/** Why a fetch failed, for logs: never the response body, which the other side chose. */
export class OutboundFetchError extends Error {
  readonly url: string

  constructor(url: string, message: string, options?: ErrorOptions) {
    super(message, options)
    this.name = 'OutboundFetchError'
    this.url = url
  }
}

/**
 * The freshness a response declares in `Cache-Control`.
 * @returns `max-age` in ms, 0 when the response may not be reused, undefined when it says neither
 */
export function maxAgeOf(cacheControl: string | undefined): number | undefined {
  if (!cacheControl) return undefined
  const directives = cacheControl
    .toLowerCase()
    .split(',')
    .map((d) => d.trim())
  if (directives.includes('no-store') || directives.includes('no-cache')) return 0
  for (const directive of directives) {
    const maxAge = /^max-age="?(\d+)"?$/.exec(directive)
    if (maxAge) return Number(maxAge[1]) * 1000
  }
  return undefined
}

const freshnessOf = (headers: IncomingHttpHeaders): Pick<JsonDocument, 'maxAgeMs'> => {
  const maxAgeMs = maxAgeOf(headers['cache-control'])
  return maxAgeMs === undefined ? {} : { maxAgeMs }
}

/** Creates a fetcher bound to one network policy and set of limits. */
export function createJsonFetcher(options: JsonFetcherOptions): JsonFetcher {
  const lookup = vettedLookup(options.network, options.subject)

  return async function fetchJson(url: string): Promise<JsonDocument> {
    const target = new URL(url)
    if (target.protocol !== 'https:' && target.protocol !== 'http:') {
      throw new OutboundFetchError(url, `${target.protocol} is not fetched; only http(s)`)
    }
    // An IP literal never reaches `lookup` (nothing to resolve), so it is vetted here; names are vetted by the
    // socket's own lookup, in the resolution it connects with.
    if (isIP(bareHost(target.hostname))) {
      await resolveVetted(target.hostname, options.network, options.subject).catch((error: unknown) => {
        throw new OutboundFetchError(url, (error as Error).message, { cause: error })
      })
    }
    const transport = target.protocol === 'https:' ? https : http
    return new Promise<JsonDocument>((resolve, reject) => {
      let settled = false
      const settle = (outcome: () => void) => {
        if (settled) return
        settled = true
        clearTimeout(timer)
        outcome()
      }
      const fail = (message: string, cause?: unknown) =>
        settle(() => {
          request.destroy()
          reject(new OutboundFetchError(url, message, cause === undefined ? undefined : { cause }))
        })
      // `agent: false`: a socket of its own, closed after the answer; these fetches are rare (cached) and a pooled
      // socket would outlive the lookup that vetted it.
      const request = transport.get(target, {
        agent: false,
        lookup,
        headers: { Accept: 'application/json', 'User-Agent': options.userAgent },
      })
      const timer = setTimeout(() => fail(`no complete answer within ${options.timeoutMs} ms`), options.timeoutMs)
      request.on('response', (response) => {
        const status = response.statusCode ?? 0
        if (status !== 200) {
          return fail(`answered ${status}${status >= 300 && status < 400 ? ' (redirects are not followed)' : ''}`)
        }
        if (Number(response.headers['content-length']) > options.maxBytes) {
          return fail(`the answer is larger than ${options.maxBytes} bytes`)
        }
        const chunks: Buffer[] = []
        let size = 0
        response.on('data', (chunk: Buffer) => {
          size += chunk.length
          if (size > options.maxBytes) fail(`the answer is larger than ${options.maxBytes} bytes`)
          else chunks.push(chunk)
        })
        response.on('end', () =>
          settle(() => {
            try {
              resolve({
                body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown,
                ...freshnessOf(response.headers),
              })
            } catch (error) {
              reject(new OutboundFetchError(url, 'the answer is not JSON', { cause: error }))
            }
          })
        )
        response.on('error', (error) => fail(error.message, error))
      })
      request.on('error', (error: NodeJS.ErrnoException) =>
        fail(error.code ? `${error.code}: ${error.message}` : error.message, error)
      )
    })
  }
}
