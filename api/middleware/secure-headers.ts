/**
 * @module Response headers that keep health data out of caches and browsers' guesses (issue 54; docs/security.md):
 *
 * - every response: `X-Content-Type-Options: nosniff`, so a browser never runs a JSON answer as a script or page;
 *   and, when the platform is served over https (its `PUBLIC_URL`), `Strict-Transport-Security`, so a browser that
 *   has seen it once never sends a credential over plain http again;
 * - every /v1 and /v0 response, errors included: `Cache-Control: no-store`, so no browser, proxy or CDN keeps a copy
 *   of a child's record.
 *
 * Set after the rest of the chain has answered, so they hold whatever answered (a handler, an error, a 404, a 429).
 * Routes keep their own headers otherwise: the reference page's CSP, the public caching of /docs assets, /errors and
 * the key set, the OAuth, codec and health answers' own `no-store`. Two header writes per request, nothing allocated.
 */
import type { MiddlewareHandler } from 'hono'
import type { AppEnv } from '../app-env.ts'

/** Two years, subdomains included: what the HSTS preload list asks of a site. */
export const HSTS = 'max-age=63072000; includeSubDomains'

/**
 * Sets `nosniff` on every response, and HSTS when the platform is served over https.
 * @param publicUrl - the platform's `PUBLIC_URL`; HSTS only when it is an https URL
 */
export function secureHeaders(publicUrl: string): MiddlewareHandler<AppEnv> {
  const hsts = /^https:/i.test(publicUrl)
  return async function secureHeaders(c, next) {
    await next()
    const headers = c.res.headers
    headers.set('X-Content-Type-Options', 'nosniff')
    if (hsts) headers.set('Strict-Transport-Security', HSTS)
  }
}

/** `Cache-Control: no-store` on every response of the chain it wraps (the versioned API: health data). */
export const noStore = (): MiddlewareHandler<AppEnv> =>
  async function noStore(c, next) {
    await next()
    c.res.headers.set('Cache-Control', 'no-store')
  }
