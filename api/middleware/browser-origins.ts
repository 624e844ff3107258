/**
 * @module CORS for browser apps that call the API directly with a short-lived access token from their own backend
 * (the React hooks, sdks/react; docs/sdk.md, "Credentials in browsers and apps"). Only the origins in
 * `API_CORS_ORIGINS` are allowed, and only on /v0 and /v1: the token endpoint is left out on purpose, because the
 * only way to obtain a token there is a client secret, which a browser must never hold. Bearer tokens, not cookies,
 * so no credentials mode. An empty list (the default) sends no CORS headers: browsers refuse cross-origin calls.
 */
import { cors } from 'hono/cors'

/** What a browser app sends besides the simple headers (`X-Tenant-Id`: the tenant an SSO token signs in to). */
const ALLOWED_HEADERS = ['Authorization', 'Content-Type', 'Idempotency-Key', 'X-Request-Id', 'X-Tenant-Id']

/** What a browser app may read: request ids for support, rate-limit state for back-off, replays, created records. */
const EXPOSED_HEADERS = [
  'X-Request-Id',
  'X-Api-Version',
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'Retry-After',
  'Idempotent-Replayed',
  'Location',
  'Deprecation',
  'Sunset',
  'Link',
]

/**
 * @param origins - exact origins (`https://app.example.com`), from API_CORS_ORIGINS
 */
export function browserOrigins(origins: readonly string[]) {
  const allowed = new Set(origins)
  return cors({
    origin: (origin) => (allowed.has(origin) ? origin : null),
    allowMethods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
    allowHeaders: ALLOWED_HEADERS,
    exposeHeaders: EXPOSED_HEADERS,
    maxAge: 600,
  })
}
