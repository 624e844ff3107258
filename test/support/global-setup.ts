/**
 * @module Starts what the integration tests need, once per run: a real Temporal dev server (or the one named by
 * TEMPORAL_ADDRESS) and a real PostgreSQL database, and hands their addresses to the test files.
 */
import type { TestProject } from 'vitest/node'
import { ensureTemporal } from '../../scripts/temporal/dev-server.ts'
import { provisionTestDatabase } from './test-database.ts'

declare module 'vitest' {
  export interface ProvidedContext {
    temporalAddress: string
    temporalNamespace: string
    databaseUrl: string
    databaseKind: 'postgresql' | 'pglite'
  }
}

export default async function setup(project: TestProject) {
  const [temporal, database] = await Promise.all([
    ensureTemporal({ port: 0, uiPort: false, log: () => undefined }),
    provisionTestDatabase(),
  ])
  project.provide('temporalAddress', temporal.address)
  project.provide('temporalNamespace', temporal.namespace)
  project.provide('databaseUrl', database.url)
  project.provide('databaseKind', database.kind)
  return async () => {
    await Promise.allSettled([temporal.stop(), database.stop()])
  }
}
