/**
 * The integrator's reference: /docs renders the description offline under a strict policy, and /postman.json holds
 * exactly the operations of /openapi.json, so neither can drift from the routes the API serves.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startPlatform, type Platform } from '../support/platform.ts'

let platform: Platform

beforeAll(async () => {
  platform = await startPlatform({ withWorker: false })
})

afterAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await platform?.stop()
})

describe('the API reference', () => {
  it('serves an interactive reference whose scripts and styles come from this server', async () => {
    const page = await fetch(`${platform.api.url}/docs`)
    expect(page.status).toBe(200)
    const html = await page.text()
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'")
    const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!)
    expect(assets.length).toBeGreaterThanOrEqual(4)
    for (const asset of assets) {
      expect(asset.startsWith('/docs/assets/'), asset).toBe(true)
      const response = await fetch(`${platform.api.url}${asset}`)
      expect(response.status, asset).toBe(200)
      expect((await response.arrayBuffer()).byteLength, asset).toBeGreaterThan(100)
    }
    expect((await fetch(`${platform.api.url}/docs/assets/package.json`)).status).toBe(404)
    expect((await fetch(`${platform.api.url}/docs/assets/..%2Fpackage.json`)).status).toBe(404)
  })

  it('offers a Postman collection with every operation of the description, and OAuth set up', async () => {
    const openapi = (await platform.http.get('/openapi.json')).body as {
      paths: Record<string, Record<string, unknown>>
    }
    const collection = (await platform.http.get('/postman.json')).body as {
      info: { schema: string; version: string }
      auth: { type: string }
      item: Array<{
        item: Array<{ request: { method: string; url: { path: string[] }; header: Array<{ key: string }> } }>
      }>
    }
    expect(collection.info.schema).toContain('v2.1.0')
    expect(collection.auth.type).toBe('oauth2')
    const described = Object.entries(openapi.paths)
      .flatMap(([path, item]) =>
        Object.keys(item)
          .filter((m) => ['get', 'post', 'put', 'patch', 'delete'].includes(m))
          .map((m) => `${m.toUpperCase()} ${path}`)
      )
      .sort()
    const requests = collection.item.flatMap((folder) => folder.item)
    const offered = requests
      .map((i) => `${i.request.method} /${i.request.url.path.map((s) => s.replace(/^:(\w+)$/, '{$1}')).join('/')}`)
      .sort()
    expect(offered).toEqual(described)
    for (const request of requests.filter((r) => r.request.method !== 'GET' && r.request.url.path[0] === 'v1')) {
      expect(request.request.header.map((h) => h.key)).toContain('Idempotency-Key')
    }
  })
})
