/**
 * @module The rate limit (docs/conventions.md): every request counts against its API client's window, or its address's
 * when it carries no valid bearer token, and every response, errors included, tells the caller where it stands with
 * `X-RateLimit-Limit`, `X-RateLimit-Remaining` and `X-RateLimit-Reset` (Unix epoch seconds, as GitHub does). Beyond
 * the limit the answer is 429 `rate_limited` with `Retry-After`, decided before any body is read or the request's
 * transaction opened (docs/rate-limits.md).
 */
import type { MiddlewareHandler } from 'hono'
import { rateLimited } from '../../domain/errors.ts'
import type { RateLimitDecision } from '../../infra/rate-limiter.ts'
import type { AppDeps, AppEnv } from '../app-env.ts'
import { clientAddress } from '../client-address.ts'
import type { BearerOutcome } from './identify-caller.ts'

/**
 * The bucket a request counts against: its verified client, else its address. A bad or expired token counts per
 * address, so presenting garbage tokens does not escape the address's limit.
 */
export function rateLimitKey(bearer: BearerOutcome | undefined, address: string): string {
  return bearer?.ok
    ? `${bearer.principal.kind === 'client' ? 'client' : 'key'}:${bearer.principal.actorId}`
    : `ip:${address}`
}

/** The headers every response carries. */
export function rateLimitHeaders(decision: RateLimitDecision): Record<string, string> {
  return {
    'X-RateLimit-Limit': String(decision.limit),
    'X-RateLimit-Remaining': String(decision.remaining),
    'X-RateLimit-Reset': String(decision.resetAt),
  }
}

/** Counts the request; runs after `identifyCaller`, before everything that does real work. */
export const rateLimit = ({
  rateLimiter,
  config,
  metrics,
}: Pick<AppDeps, 'rateLimiter' | 'config' | 'metrics'>): MiddlewareHandler<AppEnv> =>
  async function rateLimit(c, next) {
    const key = rateLimitKey(c.get('bearer'), clientAddress(c, config.TRUST_PROXY))
    const decision = await rateLimiter.consume(key)
    const headers = Object.entries(rateLimitHeaders(decision))
    // Set before the rest runs, so a response built from the context (the 429 below, other errors) starts with
    // them; set again on the final response, which a handler may have built from scratch.
    for (const [name, value] of headers) c.header(name, value)
    if (!decision.allowed) {
      const bearer = c.get('bearer')
      metrics.rateLimitRefusals.inc({ tenant: bearer?.ok ? bearer.principal.tenantId : 'anonymous' })
      throw rateLimited(decision.retryAfterSeconds)
    }
    await next()
    for (const [name, value] of headers) c.res.headers.set(name, value)
  }
