/**
 * @module A benchmark's JSON calls to the API under test: a bearer token, an Idempotency-Key on every write, and any
 * answer of 300 or more thrown with its body (a benchmark that measures failures by accident measures nothing).
 */
import { randomBytes } from 'node:crypto'

/** Calls to the API at `base`; each answers the parsed JSON body. */
export function benchCall(base: string) {
  return async function call(method: string, path: string, token: string, body?: unknown) {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: {
        Authorization: `Bearer ${token}`,
        ...(body === undefined
          ? {}
          : { 'Content-Type': 'application/json', 'Idempotency-Key': randomBytes(8).toString('hex') }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })
    const json = (await response.json()) as Record<string, unknown>
    if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json)}`)
    return json
  }
}
