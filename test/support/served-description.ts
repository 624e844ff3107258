/**
 * @module The OpenAPI description as the API serves it (`GET /openapi.json`), for the unit tests that check it: built
 * from the app's real routes with dependencies that never connect to anything.
 */
import { afterAll, beforeAll } from 'vitest'
import { createApp } from '../../api/app.ts'
import { buildDeps } from '../../api/deps.ts'
import { loadConfig } from '../../infra/config.ts'
import { createLogger } from '../../infra/logger.ts'

/**
 * Serves the description once for the calling file (or describe block) and releases the app after it.
 * @returns a getter for the description, valid inside the tests
 */
export function servedDescription<T>(): () => T {
  let description: T | undefined
  let close: (() => Promise<void>) | undefined
  beforeAll(async () => {
    const config = loadConfig({ NODE_ENV: 'development', DATABASE_URL: 'postgresql://unused@127.0.0.1:1/unused' })
    const built = buildDeps(config, createLogger('silent', 'test'))
    close = built.close
    description = (await (await createApp(built.deps).request('/openapi.json')).json()) as T
  })
  afterAll(async () => {
    await close?.()
  })
  return () => {
    if (description === undefined) throw new Error('the description is served in beforeAll: read it inside a test')
    return description
  }
}
