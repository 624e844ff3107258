/**
 * @module The webhook poster over Node's HTTP: one HTTP attempt of a delivery, POSTing the signed body with a hard
 * deadline, no redirects followed, and a socket that can only reach an address the network policy allows (resolved and
 * vetted at connect time). Keep-alive agents, built once per worker, so a busy receiver is not paying a TCP and TLS
 * handshake per event. It fills the domain's `WebhookPoster` (domain/webhooks/post-webhook.ts); the worker's
 * activities build it and hand it to the delivery code.
 */
import http from 'node:http'
import https from 'node:https'
import { isIP } from 'node:net'
import { parseRetryAfter } from '../../common/webhooks/retry-schedule.ts'
import type { PostResult, WebhookPoster } from '../../domain/webhooks/post-webhook.ts'
import type { NetworkPolicy } from '../../domain/outbound-policy.ts'
import { bareHost, vettedLookup, resolveVetted } from '../outbound/vetted-lookup.ts'

export interface WebhookPosterOptions {
  timeoutMs: number
  network: NetworkPolicy
  userAgent?: string
}

/** The most of a response body read (and discarded) to keep the connection reusable. */
const MAX_DRAINED_BYTES = 64 * 1024
/** IP literals whose verdict a poster remembers (a verdict is a few dozen bytes). */
const MAX_REMEMBERED_LITERALS = 1024

/** Creates a poster with its own connection pools. */
export function createWebhookPoster(options: WebhookPosterOptions): WebhookPoster {
  const lookup = vettedLookup(options.network, 'webhooks')
  const agentOptions = { keepAlive: true, maxSockets: 64, maxFreeSockets: 16, lookup }
  const agents = { 'http:': new http.Agent(agentOptions), 'https:': new https.Agent(agentOptions) }
  const userAgent = options.userAgent ?? 'TherapyCare-Webhooks/1.0'
  /**
   * The verdict on each IP literal posted to: the refusal's message, or null when allowed. It depends on the address
   * and this poster's policy alone (no resolution), and vetting it again for every delivery was ~15 µs of the worker's
   * CPU each, about 2% of it at 1,500 deliveries a second.
   */
  const literalVerdicts = new Map<string, string | null>()

  async function vetLiteral(hostname: string): Promise<string | null> {
    const known = literalVerdicts.get(hostname)
    if (known !== undefined) return known
    const verdict = await resolveVetted(hostname, options.network, 'webhooks').then(
      () => null,
      (error: unknown) => (error as Error).message
    )
    if (literalVerdicts.size >= MAX_REMEMBERED_LITERALS) literalVerdicts.clear()
    literalVerdicts.set(hostname, verdict)
    return verdict
  }

  async function post(url: string, headers: Record<string, string>, body: string): Promise<PostResult> {
    const started = performance.now()
    const elapsed = () => Math.round(performance.now() - started)
    const target = new URL(url)
    // An IP literal never reaches `lookup` (nothing to resolve), so it is vetted here; names are vetted by the
    // socket's own lookup, in the resolution it connects with.
    if (isIP(bareHost(target.hostname))) {
      const refusal = await vetLiteral(target.hostname)
      if (refusal !== null) return { latencyMs: elapsed(), error: refusal }
    }
    const transport = target.protocol === 'https:' ? https : http
    return new Promise<PostResult>((resolve) => {
      let settled = false
      const finish = (result: PostResult) => {
        if (settled) return
        settled = true
        clearTimeout(timer)
        resolve(result)
      }
      const request = transport.request(target, {
        method: 'POST',
        agent: agents[target.protocol as 'http:' | 'https:'],
        lookup,
        headers: {
          'Content-Type': 'application/json',
          'Content-Length': Buffer.byteLength(body),
          'User-Agent': userAgent,
          ...headers,
        },
      })
      const timer = setTimeout(() => {
        finish({ latencyMs: elapsed(), error: `no response within ${options.timeoutMs} ms` })
        request.destroy()
      }, options.timeoutMs)
      request.on('response', (response) => {
        const statusCode = response.statusCode ?? 0
        const result: PostResult = { statusCode, latencyMs: elapsed() }
        if (statusCode >= 300 && statusCode < 400) result.error = 'redirect not followed'
        if (statusCode === 429 || statusCode === 503) {
          const retryAfterMs = parseRetryAfter(response.headers['retry-after'], Date.now())
          if (retryAfterMs !== undefined) result.retryAfterMs = retryAfterMs
        }
        finish(result)
        // Drain a little so the socket can be reused; a receiver streaming more than that loses its connection.
        let drained = 0
        const drainTimer = setTimeout(() => response.destroy(), options.timeoutMs)
        response.on('data', (chunk: Buffer) => {
          drained += chunk.length
          if (drained > MAX_DRAINED_BYTES) response.destroy()
        })
        response.on('close', () => clearTimeout(drainTimer))
        response.on('error', () => undefined)
      })
      request.on('error', (error: NodeJS.ErrnoException) => {
        finish({ latencyMs: elapsed(), error: error.code ? `${error.code}: ${error.message}` : error.message })
      })
      request.end(body)
    })
  }

  return {
    post,
    close() {
      agents['http:'].destroy()
      agents['https:'].destroy()
    },
  }
}
