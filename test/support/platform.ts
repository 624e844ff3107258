/**
 * @module The platform under test: the real API (in this process, on a free port) and the real worker (a child
 * process), both on the Temporal server and database from the global setup. Each test file gets its own task queue
 * so its workflows run only on its own worker.
 */
import { Client } from '@temporalio/client'
import { randomBytes } from 'node:crypto'
import { inspect } from 'node:util'
import { inject } from 'vitest'
import { startApi, type RunningApi } from '../../api/start-api.ts'
import type { Clock } from '../../infra/clock.ts'
import { loadConfig, type Config } from '../../infra/config.ts'
import { closeDb, createDb, databaseLogins, databaseLoginsEnv, type Db } from '../../infra/db.ts'
import { createLogger } from '../../infra/logger.ts'
import { temporalDataConverter } from '../../infra/payload-codec.ts'
import { lazyTemporalConnection } from '../../infra/temporal-connection.ts'
import { httpClient, type HttpClient } from './http.ts'
import { startWorkerProcess, type WorkerProcess } from '../../scripts/start/worker-process.ts'
import { testDatabaseLogins, testDatabaseUrl } from './file-database.ts'
import { tenantAccess, type TenantAccess } from './tenant-access.ts'
import { hostable, startWorkerInHost } from './worker-hosts.ts'

/**
 * What the dev-server platform and the time-skipping one (time-skipping.ts) both offer: the API, a client of the
 * platform's Temporal server, the file's database, and tenants with tokens. The per-area scenario modules take this,
 * so a timer file and its outage file drive the API with the same helpers.
 */
export interface PlatformBase extends TenantAccess {
  api: RunningApi
  http: HttpClient
  /** A client of the platform's Temporal server, decoding what the worker and the API encrypt. */
  temporal: Client
  /** A client of the file's database, as its owner (the API's own client is `api.deps.db`). */
  db: Db
  config: Config
}

export interface Platform extends PlatformBase {
  workerEnv: Record<string, string>
  startWorker(): Promise<WorkerProcess>
  /** The worker processes running now, first started first. */
  workers(): readonly WorkerProcess[]
  /** Kills every worker process of this platform with `signal` (SIGKILL: a crash). */
  killWorkers(signal: NodeJS.Signals): Promise<void>
  stop(): Promise<void>
}

/** The database settings of a platform's processes, for a command that must run as they do (the operator CLI). */
export const databaseEnvOf = (config: Config) => databaseLoginsEnv(databaseLogins(config))

/** Environment for the API and the worker of one test file. */
export function testEnv(overrides: Record<string, string> = {}): Record<string, string> {
  return {
    NODE_ENV: 'test',
    // The platform's own two logins on PostgreSQL (never the owner), so every test runs under the grants production
    // has; a file that names another database names its one login.
    ...(overrides.DATABASE_URL ? {} : databaseLoginsEnv(testDatabaseLogins())),
    TEMPORAL_ADDRESS: inject('temporalAddress'),
    TEMPORAL_NAMESPACE: inject('temporalNamespace'),
    TEMPORAL_TASK_QUEUE: `test-${randomBytes(4).toString('hex')}`,
    DATABASE_POOL_MAX: '10',
    PORT: '0',
    PUBLIC_URL: 'http://localhost:3000',
    // The outbox sweeper, agent dispatcher and schedule keepers look every second (production: 5 s), so a start lost in
    // a crash is taken up soon; at 500 ms they cost each idle platform ~50 ms of CPU a second, some 8% of the CPU of
    // eight crash and outage files side by side (docs/testing.md, session 35).
    OUTBOX_SWEEP_INTERVAL_MS: '1000',
    // One delivery pump per file is plenty, and each polls the file's database: a second would only cost CPU.
    WEBHOOK_PUMP_PARTITIONS: '1',
    LOG_LEVEL: 'silent',
    // The outbound policy as in production, stated rather than left to defaults: a file whose receivers are on loopback
    // relaxes it for its caller (WEBHOOK_ALLOW_PRIVATE_NETWORKS, SSO_ALLOW_PRIVATE_NETWORKS...) in its overrides.
    OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'false',
    OUTBOUND_ALLOW_HTTP: 'false',
    // Every response of every integration test must match its OpenAPI description (api/openapi/response-conformance.ts).
    RESPONSE_VALIDATION: 'enforce',
    // Metrics on free ports, so files running side by side never collide; the Temporal SDK's own endpoint (which
    // cannot pick a free port) only where a test asks for it.
    METRICS_PORT: '0',
    WORKER_METRICS_PORT: '0',
    TEMPORAL_METRICS_PORT: 'off',
    // The lexical embeddings: a test of anything but the sentence model itself (which sets it) need not load 23 MB
    // of model into every API and worker it starts; their answers are the same for the features under test.
    AI_EMBEDDINGS_PROVIDER: 'local',
    // Knowledge readers at the test's own priority: on two cores busy with other files, a reader lowered to nice 10
    // waits seconds for a core, which is the point in production and only noise here (the hostile-upload file keeps
    // the production value).
    KNOWLEDGE_PARSE_NICE: '0',
    ...overrides,
  }
}

/**
 * Starts the API, and the worker unless `withWorker` is false.
 * @param overrides - environment overrides (e.g. another TEMPORAL_ADDRESS for the API)
 * @param clock - the API's clock, to stand on either side of a date (the worker keeps the system clock)
 */
export async function startPlatform(
  options: { overrides?: Record<string, string>; withWorker?: boolean; clock?: Clock } = {}
) {
  const env = testEnv(options.overrides)
  const config = loadConfig(env)
  const api = await startApi(config, createLogger(config.LOG_LEVEL, 'api'), options.clock)
  const http = httpClient(api.url)
  // Closed after its calls still retrying have ended, as the API's is (infra/temporal-connection.ts).
  const temporalConnection = lazyTemporalConnection(inject('temporalAddress'))
  const { connection } = temporalConnection
  // The tests' client decodes what the worker and the API encrypt: the same codec, from the same configuration.
  const dataConverter = temporalDataConverter(config.TEMPORAL_CODEC_KEYS)
  const temporal = new Client({ connection, namespace: config.TEMPORAL_NAMESPACE, dataConverter })
  const workerEnv = {
    WORKFLOW_BUNDLE_PATH: inject('workflowBundlePath'),
    ...env,
    TEMPORAL_ADDRESS: inject('temporalAddress'),
    LOG_LEVEL: 'info',
  }
  const workers: WorkerProcess[] = []
  const startWorker = async () => {
    // In the slot's worker host where the environment allows (worker-hosts.ts), else a process of its own.
    const worker = hostable(workerEnv) ? await startWorkerInHost(workerEnv) : await startWorkerProcess(workerEnv)
    workers.push(worker)
    return worker
  }
  if (options.withWorker !== false) await startWorker()

  // The tests' own client logs in as the owner, like their fixtures: what they arrange (a trigger that refuses a write,
  // a tampered record) is more than the platform's logins may do. Where the platform runs as the owner too (the
  // embedded database, a file's own database), it is the API's client.
  const ownerUrl = options.overrides?.DATABASE_URL ? undefined : testDatabaseUrl()
  const ownDb = ownerUrl && ownerUrl !== config.DATABASE_URL ? createDb(ownerUrl, 4) : undefined
  const platform: Platform = {
    api,
    http,
    temporal,
    db: ownDb ?? api.deps.db,
    config,
    workerEnv,
    startWorker,
    workers: () => workers,
    async killWorkers(signal) {
      await Promise.all(workers.splice(0).map((w) => w.kill(signal)))
    },
    ...tenantAccess(api, http),
    async stop() {
      await Promise.allSettled(workers.map((w) => w.kill('SIGTERM')))
      await temporalConnection.close()
      await api.stop()
      if (ownDb) await closeDb(ownDb)
    },
  }
  return platform
}

/** Polls `probe` until it returns a value other than undefined, or fails after `timeoutMs`. */
export async function eventually<T>(
  probe: () => Promise<T | undefined>,
  timeoutMs = 30_000,
  intervalMs = 200
): Promise<T> {
  const deadline = Date.now() + timeoutMs
  let lastError: unknown
  while (Date.now() < deadline) {
    try {
      const value = await probe()
      if (value !== undefined) return value
    } catch (error) {
      lastError = error
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs))
  }
  const detail = lastError instanceof Error ? String(lastError) : inspect(lastError)
  throw new Error(`condition not met within ${timeoutMs} ms${lastError ? `: ${detail}` : ''}`, { cause: lastError })
}

/** Resolves once the wall clock (the dev server's, and so its workflows' and worker's) has passed `at` (epoch ms). */
export const until = (at: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, at - Date.now() + 1)))
