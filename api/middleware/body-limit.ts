/**
 * @module The request body size limit: a body larger than the configured size is refused with 413
 * `payload_too_large` before anything parses it. Hono's middleware checks Content-Length, and counts the bytes of a
 * chunked body (which has no length) as they arrive, so leaving the length out does not get around it.
 */
import type { MiddlewareHandler } from 'hono'
import { bodyLimit } from 'hono/body-limit'
import { payloadTooLarge } from '../../domain/errors.ts'
import type { AppEnv } from '../app-env.ts'

/** A route with its own limit in place of the API-wide one (file uploads). */
export interface BodyLimitOverride {
  method: string
  path: RegExp
  maxBytes: number
}

const limitOf = (maxBytes: number): MiddlewareHandler<AppEnv> =>
  bodyLimit({
    maxSize: maxBytes,
    onError: (c) => {
      // The rest of the body is never read, so the connection cannot carry another request (RFC 9110 §15.5.14).
      // Said explicitly, the client opens a new one; unsaid, it would reuse this one and fail once the server
      // gives up draining it.
      c.header('Connection', 'close')
      throw payloadTooLarge(maxBytes)
    },
  })

/**
 * Creates the body limit.
 * @param maxBytes - the largest body accepted
 * @param overrides - routes with their own limit (checked first, by method and path)
 */
export const requestBodyLimit = (
  maxBytes: number,
  overrides: readonly BodyLimitOverride[] = []
): MiddlewareHandler<AppEnv> => {
  const fallback = limitOf(maxBytes)
  const routes = overrides.map((route) => ({ ...route, limit: limitOf(route.maxBytes) }))
  return async function requestBodyLimit(c, next) {
    // A GET or HEAD has no body to read (the server never reads one), and asking the request for its body would make
    // @hono/node-server build a full web Request for every read: ~0.1 ms of CPU for nothing.
    if (c.req.method === 'GET' || c.req.method === 'HEAD') return next()
    const route = routes.find((r) => r.method === c.req.method && r.path.test(c.req.path))
    return (route?.limit ?? fallback)(c, next)
  }
}
