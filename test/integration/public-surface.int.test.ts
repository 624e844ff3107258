/**
 * What the public port answers about itself (issue 39, "Safe by default"): liveness with no internal detail at
 * /health (readiness and its details only on the metrics port), a 404 and no error log for asset names that are
 * Object.prototype's members, and 405 with `Allow` for a path served with other methods (404 for unknown paths).
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { startPlatform, type Platform } from '../support/platform.ts'

let platform: Platform

beforeAll(async () => {
  platform = await startPlatform({ withWorker: false })
})

afterAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await platform?.stop()
})

describe('/health', () => {
  it('says only that the API is alive on the public port', async () => {
    const health = await platform.http.get('/health')
    expect(health.status).toBe(200)
    expect(health.body).toEqual({ status: 'ok' })
    expect(health.headers.get('cache-control')).toBe('no-store')
  })

  it('answers readiness with its checks and versions on the metrics port only', async () => {
    const ready = await fetch(platform.api.readinessUrl!)
    expect(ready.status).toBe(200)
    expect(ready.headers.get('content-type')).toContain('application/json')
    expect(await ready.json()).toMatchObject({
      status: 'ok',
      versions: { api: '2.3.0', node: process.version, temporalServer: expect.any(String) },
      checks: {
        database: { status: 'up', latencyMs: expect.any(Number) },
        temporal: { status: 'up', namespace: platform.config.TEMPORAL_NAMESPACE },
      },
      // The knowledge models in use (docs/ai.md): the lexical default here, with no fallback to report.
      knowledge: { embeddings: 'local-lexical-v1-768', answerer: 'extractive-v3' },
    })
    expect((await fetch(new URL('/health', platform.api.readinessUrl), { method: 'POST' })).status).toBe(404)
  })
})

describe('/docs/assets', () => {
  it.each(['constructor', '__proto__', 'hasOwnProperty', 'toString', 'valueOf'])(
    'answers %s with a 404 problem and logs no error',
    async (name) => {
      const logged = vi.spyOn(platform.api.deps.logger, 'error')
      try {
        const response = await platform.http.get(`/docs/assets/${name}`)
        expect(response.status).toBe(404)
        expect(response.headers.get('content-type')).toContain('application/problem+json')
        expect(response.body).toMatchObject({ status: 404, code: 'not_found' })
        expect(logged).not.toHaveBeenCalled()
      } finally {
        logged.mockRestore()
      }
    }
  )
})

describe('a path served with other methods', () => {
  it('answers 405 method_not_allowed with Allow on public routes', async () => {
    const put = await platform.http.request('PUT', '/openapi.json')
    expect(put.status).toBe(405)
    expect(put.headers.get('allow')).toBe('GET, HEAD')
    expect(put.headers.get('content-type')).toContain('application/problem+json')
    expect(put.body).toMatchObject({ status: 405, code: 'method_not_allowed', instance: '/openapi.json' })

    const deleteToken = await platform.http.request('DELETE', '/oauth/token')
    expect(deleteToken.status).toBe(405)
    expect(deleteToken.headers.get('allow')).toBe('POST')
  })

  it('answers 405 on versioned routes for an authenticated caller, listing every method the path has', async () => {
    const client = await platform.newTenant(['children'])
    const token = await platform.token(client)
    const put = await platform.http.request('PUT', '/v1/children', { token, body: {} })
    expect(put.status).toBe(405)
    expect(put.headers.get('allow')).toBe('GET, POST, HEAD')
    expect(put.body).toMatchObject({ code: 'method_not_allowed' })
    const post = await platform.http.request('POST', '/v1/children/chd_missing', { token, body: {} })
    expect(post.status).toBe(405)
    expect(post.headers.get('allow')!.split(', ').sort()).toEqual(['DELETE', 'GET', 'HEAD', 'PATCH'])
  })

  it('keeps 404 for unknown paths and for what a handler did not find', async () => {
    const unknown = await platform.http.request('PUT', '/no-such-thing')
    expect(unknown.status).toBe(404)
    expect(unknown.headers.get('allow')).toBeNull()
    expect(unknown.body).toMatchObject({ code: 'not_found' })
    const missingAsset = await platform.http.get('/docs/assets/nothing.js')
    expect(missingAsset.status).toBe(404)
    expect(missingAsset.headers.get('allow')).toBeNull()
  })
})
