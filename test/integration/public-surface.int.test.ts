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
