/**
 * Every route gets the platform guarantees by construction. This walks the routes the app really serves (Hono's
 * route table) and the OpenAPI description, so a route added without a scope, without documentation, or outside
 * the guarded chain fails here.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createApp } from '../../api/app.ts'
import { isScope } from '../../domain/auth/scopes.ts'
import { startPlatform, type Platform } from '../support/platform.ts'

let platform: Platform
let served: Array<{ method: string; path: string }>
let openapi: {
  paths: Record<
    string,
    Record<string, { security?: Array<Record<string, string[]>>; parameters?: Array<{ name: string }> }>
  >
}

/** Hono's `/v1/children/:id` is OpenAPI's `/v1/children/{id}`. */
const toOpenApiPath = (path: string) => path.replace(/:(\w+)/g, '{$1}')

beforeAll(async () => {
  // One address walks every route twice, more calls than a minute's anonymous allowance; the limit itself is
  // tested in request-limits.int.test.ts.
  platform = await startPlatform({ withWorker: false, overrides: { RATE_LIMIT_PER_MINUTE: '100000' } })
  served = createApp(platform.api.deps)
    .routes.filter((r) => r.method !== 'ALL' && /^\/v[01]\//.test(r.path))
    .map((r) => ({ method: r.method.toLowerCase(), path: toOpenApiPath(r.path) }))
  openapi = (await platform.http.get('/openapi.json')).body
})

afterAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await platform?.stop()
})

describe('every versioned route', () => {
  it('is described in OpenAPI with an OAuth scope from the catalogue', () => {
    expect(served.length).toBeGreaterThan(10)
    for (const { method, path } of served) {
      const operation = openapi.paths[path]?.[method]
      expect(
        Object.keys(openapi.paths[path] ?? {}),
        `${method.toUpperCase()} ${path} is not in the OpenAPI description`
      ).toContain(method)
      // Several requirements are alternatives (GET /v1/events: any read scope of a resource with events, narrowed by
      // the domain); several scopes in one requirement are all needed (an AI answer built from clinical records needs
      // their read scopes too: protectedRouteAllOf). Every scope is the catalogue's.
      const requirements = operation!.security?.map((s) => s.oauth2 ?? []) ?? []
      expect(requirements.length, `${method.toUpperCase()} ${path} declares no scope`).toBeGreaterThan(0)
      for (const scopes of requirements) {
        expect(scopes.length, `${method.toUpperCase()} ${path}: an empty requirement`).toBeGreaterThan(0)
        for (const scope of scopes)
          expect(isScope(scope), `${method.toUpperCase()} ${path} declares unknown scope ${scope}`).toBe(true)
      }
      if (method !== 'get') {
        expect(
          operation!.parameters?.map((p) => p.name),
          `${method.toUpperCase()} ${path} lacks Idempotency-Key`
        ).toContain('Idempotency-Key')
      }
    }
  })

  it('refuses anonymous calls with a 401 problem carrying the request id and rate-limit headers', async () => {
    for (const { method, path } of served) {
      const concrete = path.replace(/\{\w+\}/g, 'x_1')
      const response = await platform.http.request(method.toUpperCase(), concrete, method === 'get' ? {} : { body: {} })
      const label = `${method.toUpperCase()} ${concrete}`
      expect(response.status, label).toBe(401)
      expect(response.headers.get('content-type'), label).toMatch(/^application\/problem\+json/)
      expect(response.body.code, label).toBe('invalid_token')
      expect(response.headers.get('www-authenticate'), label).toMatch(/^Bearer/)
      const formats = {
        'x-request-id': /^req_[0-9a-f]{32}$/,
        'x-ratelimit-limit': /^\d+$/,
        'x-ratelimit-remaining': /^\d+$/,
        'x-ratelimit-reset': /^\d+$/,
        'x-api-version': /^\d+\.\d+\.\d+$/,
      }
      for (const [header, format] of Object.entries(formats)) {
        expect(response.headers.get(header), `${label}: ${header}`).toMatch(format)
      }
    }
  })

  it('refuses a token without the declared scope with 403', async () => {
    const client = await platform.newTenant(['pets.read'])
    const token = await platform.token(client)
    for (const { method, path } of served) {
      // Skipped: a route the token's one scope opens (a requirement of that scope alone).
      const requirements = openapi.paths[path]![method]!.security!.map((s) => s.oauth2!)
      if (requirements.some((scopes) => scopes.length === 1 && scopes[0] === 'pets.read')) continue
      const concrete = path.replace(/\{\w+\}/g, 'x_1')
      const response = await platform.http.request(method.toUpperCase(), concrete, {
        token,
        ...(method === 'get' ? {} : { body: {} }),
      })
      // /v0 routes past their sunset answer 410 before any scope check; everything else must refuse the scope.
      expect([403, 410], `${method.toUpperCase()} ${concrete}`).toContain(response.status)
      if (response.status === 403) expect(response.body.code).toBe('insufficient_scope')
    }
  })
})
