/**
 * @module Starts what the integration tests need, once per run: a real Temporal dev server (or the one named by
 * TEMPORAL_ADDRESS) and a real PostgreSQL database, and hands their addresses to the test files. It also bundles the
 * workflows once, for every worker the tests start (each would otherwise spend seconds of CPU bundling them again).
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { TestProject } from 'vitest/node'
import { ensureTemporal } from '../../scripts/temporal/dev-server.ts'
import { writeWorkflowBundle } from '../../worker/create-worker.ts'
import { provisionTestDatabase } from './test-database.ts'

declare module 'vitest' {
  export interface ProvidedContext {
    temporalAddress: string
    temporalNamespace: string
    databaseUrl: string
    databaseKind: 'postgresql' | 'pglite'
    workflowBundlePath: string
  }
}

export default async function setup(project: TestProject) {
  const bundleDir = await mkdtemp(join(tmpdir(), 'therapy-workflows-'))
  const workflowBundlePath = join(bundleDir, 'workflow-bundle.js')
  const [temporal, database] = await Promise.all([
    ensureTemporal({ port: 0, uiPort: false, log: () => undefined }),
    provisionTestDatabase(),
    writeWorkflowBundle(workflowBundlePath),
  ])
  project.provide('temporalAddress', temporal.address)
  project.provide('temporalNamespace', temporal.namespace)
  project.provide('databaseUrl', database.url)
  project.provide('databaseKind', database.kind)
  project.provide('workflowBundlePath', workflowBundlePath)
  return async () => {
    await Promise.allSettled([temporal.stop(), database.stop(), rm(bundleDir, { recursive: true, force: true })])
  }
}
