/**
 * @module Starts what the integration tests need, once per run: a real Temporal dev server (or the one named by
 * TEMPORAL_ADDRESS) and a migrated template of the database that every test file clones (file-database.ts), and hands
 * their addresses to the test files. It also finds the workflow bundle of this code (made once, kept outside the
 * clone: worker/workflow-bundle-cache.ts) for every worker the tests start (each would otherwise spend seconds of CPU
 * bundling them again).
 */
import { execFile } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import type { ProvidedContext } from 'vitest'
import type { TestProject } from 'vitest/node'
import { ensureTemporal } from '../../scripts/temporal/dev-server.ts'
import { cachedWorkflowBundle } from '../../worker/workflow-bundle-cache.ts'
import { provisionDatabaseTemplate, type DatabaseTemplate } from '../../scripts/db/test-database.ts'

declare module 'vitest' {
  export interface ProvidedContext {
    temporalAddress: string
    temporalNamespace: string
    databaseTemplate: DatabaseTemplate
    databaseKind: DatabaseTemplate['kind']
    workflowBundlePath: string
    /** The executable that starts Temporal's time-skipping test server (time-skipping.ts). */
    timeSkippingServer: string
  }
}

/** What the setup started, and how many projects are using it. */
interface Started {
  provided: ProvidedContext
  stop(): Promise<void>
  users: number
}

/**
 * Two projects use this setup (the integration files, and the timing-sensitive ones run after them, vitest.config.ts):
 * the first to run starts everything, the second shares it, and the last teardown stops it. On globalThis, since each
 * project may load this module afresh.
 */
const shared = globalThis as typeof globalThis & { therapyTestSetup?: Promise<Started> }

export default async function setup(project: TestProject) {
  shared.therapyTestSetup ??= start()
  const started = await shared.therapyTestSetup
  started.users++
  for (const [key, value] of Object.entries(started.provided)) {
    project.provide(key as keyof typeof started.provided, value as never)
  }
  return async () => {
    if (--started.users > 0) return
    shared.therapyTestSetup = undefined
    await started.stop()
  }
}

async function start(): Promise<Started> {
  const runDir = await mkdtemp(join(tmpdir(), 'therapy-tests-'))
  const [temporal, database, timeSkippingServer, workflowBundlePath] = await Promise.all([
    ensureTemporal({ port: 0, uiPort: false, log: () => undefined }),
    provisionDatabaseTemplate(join(runDir, 'pglite-template.tar')),
    obtainTimeSkippingServer(),
    cachedWorkflowBundle(),
  ])
  return {
    provided: {
      temporalAddress: temporal.address,
      temporalNamespace: temporal.namespace,
      databaseTemplate: database.template,
      databaseKind: database.template.kind,
      workflowBundlePath,
      timeSkippingServer,
    },
    users: 0,
    async stop() {
      await Promise.allSettled([temporal.stop(), database.stop()])
      await rm(runDir, { recursive: true, force: true })
    },
  }
}

/** The Java test server from Maven Central, fetched once into the cache outside the clone (the script says how). */
async function obtainTimeSkippingServer(): Promise<string> {
  const script = fileURLToPath(new URL('../../scripts/temporal/obtain-test-server.sh', import.meta.url))
  const { stdout } = await promisify(execFile)('bash', [script], { timeout: 600_000 })
  return stdout.trim()
}
