/**
 * @module The servers a workflow benchmark runs against: a database of its own (bench-database.ts), a Temporal dev
 * server on free ports, a task queue of its own and a prebuilt workflow bundle (workers load it as deployed ones do:
 * a restart takes what a production restart takes, not a webpack build), and the environment an API and a worker
 * of the benchmark share.
 */
import { randomBytes } from 'node:crypto'
import { rm } from 'node:fs/promises'
import os from 'node:os'
import { join } from 'node:path'
import { ensureTemporal } from '../scripts/temporal/dev-server.ts'
import { writeWorkflowBundle } from '../worker/create-worker.ts'
import { provisionBenchDatabase } from './bench-database.ts'
import { databaseLoginsEnv } from '../infra/db.ts'

/**
 * Starts the servers (`BENCH_DATABASE_URL` names a PostgreSQL server; otherwise the embedded database).
 * @param name - the benchmark's, in the bundle's file name
 */
export async function startBenchServers(name: string) {
  if (process.env.BENCH_DATABASE_URL) process.env.TEST_DATABASE_URL = process.env.BENCH_DATABASE_URL
  const [database, temporal] = await Promise.all([
    provisionBenchDatabase(),
    ensureTemporal({ port: 0, uiPort: false, log: () => undefined }),
  ])
  const taskQueue = `bench-${randomBytes(4).toString('hex')}`
  const workflowBundle = join(os.tmpdir(), `${name}-${taskQueue}.js`)
  await writeWorkflowBundle(workflowBundle)
  const env = {
    NODE_ENV: 'test',
    // The platform's own logins on a server, as deployed (docs/security.md, "Least privilege in the database");
    // BENCH_LOGIN=owner runs it as the tables' owner instead, to measure what the logins cost.
    ...databaseLoginsEnv(
      process.env.BENCH_LOGIN === 'owner' ? { system: database.url, units: database.url } : database.logins
    ),
    // The owner's login is refused at start outside development unless said so (infra/login-privileges.ts).
    ...(process.env.BENCH_LOGIN === 'owner' ? { DATABASE_ALLOW_PRIVILEGED_LOGIN: 'true' } : {}),
    DATABASE_POOL_MAX: '10',
    TEMPORAL_ADDRESS: temporal.address,
    TEMPORAL_NAMESPACE: temporal.namespace,
    TEMPORAL_TASK_QUEUE: taskQueue,
    PORT: '0',
    LOG_LEVEL: 'silent',
    // The load is the point; the limiter would refuse it.
    RATE_LIMIT_PER_MINUTE: '100000000',
    WORKFLOW_BUNDLE_PATH: workflowBundle,
  }
  return {
    database,
    temporal,
    taskQueue,
    env,
    stop: () => Promise.allSettled([temporal.stop(), database.stop(), rm(workflowBundle, { force: true })]),
  }
}
