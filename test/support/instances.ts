/**
 * @module Several instances of the platform on one database and one Temporal server, as deployed behind a load
 * balancer: API processes (`api/server.ts`) on fixed ports, so one restarted keeps its address, and worker processes
 * (`worker/main.ts`) on one task queue. Nothing runs in the test's own process but a database client and a Temporal
 * client for the checks: unlike `startPlatform` (platform.ts), whose API serves in-process, every instance here can be killed
 * and started again. {@link spreadingClient} sends each request to the instances in turn and retries it the way a
 * real client does (same Idempotency-Key) when its connection fails.
 */
import { Client } from '@temporalio/client'
import { randomBytes } from 'node:crypto'
import { inject } from 'vitest'
import { loadConfig } from '../../infra/config.ts'
import { closeDb, createDb, databaseLogins, type Db } from '../../infra/db.ts'
import { temporalDataConverter } from '../../infra/payload-codec.ts'
import { lazyTemporalConnection } from '../../infra/temporal-connection.ts'
import { provisionClient, type ProvisionedClient } from '../../domain/tenants/provision-client.ts'
import { httpClient, type HttpResponse } from './http.ts'
import { testEnv } from './platform.ts'
import { freePort } from '../../scripts/start/start-process.ts'
import { startApiProcess, startWorkerProcess, type EntryProcess } from '../../scripts/start/worker-process.ts'

/** One API process and the address it keeps across restarts. */
export interface ApiInstance {
  url: string
  process: EntryProcess
  /** The environment it started with (PORT included); a restart may change other settings. */
  env: Record<string, string>
}

export interface Instances {
  /** The environment shared by every instance (database, task queue, Temporal). */
  env: Record<string, string>
  apis: ApiInstance[]
  workers: EntryProcess[]
  /** The API instances' URLs, in order; an instance keeps its URL when restarted. */
  urls(): string[]
  db: Db
  temporal: Client
  /** A new tenant and a client with `scopes`, and a token for it from the first API instance. */
  newClient(scopes: string[]): Promise<ProvisionedClient & { token: string }>
  /** Stops API instance `i` with `signal` and starts it again on its port, with `overrides` over its environment. */
  restartApi(i: number, signal: NodeJS.Signals, overrides?: Record<string, string>): Promise<void>
  /** Stops worker `i` with `signal` and starts another in its place. */
  restartWorker(i: number, signal: NodeJS.Signals): Promise<void>
  stop(): Promise<void>
}

/**
 * Starts `apis` API processes and `workers` worker processes on the test file's database and a new task queue.
 * @param overrides - environment of every instance, over {@link testEnv}'s
 * @param apiOverrides - environment of the API processes only
 */
export async function startInstances(options: {
  apis: number
  workers: number
  overrides?: Record<string, string>
  apiOverrides?: Record<string, string>
}): Promise<Instances> {
  // LOG_LEVEL info: each entry reports it is ready in an info line (worker-process.ts waits for it).
  const env: Record<string, string> = {
    ...testEnv(options.overrides),
    WORKFLOW_BUNDLE_PATH: inject('workflowBundlePath'),
    LOG_LEVEL: 'info',
  }
  const config = loadConfig(env)
  const db = createDb(databaseLogins(config), 4)
  const temporalConnection = lazyTemporalConnection(config.TEMPORAL_ADDRESS)
  const temporal = new Client({
    connection: temporalConnection.connection,
    namespace: config.TEMPORAL_NAMESPACE,
    dataConverter: temporalDataConverter(config.TEMPORAL_CODEC_KEYS),
  })
  const apiEnvs = await Promise.all(
    Array.from({ length: options.apis }, async () => ({
      ...env,
      ...options.apiOverrides,
      PORT: String(await freePort()),
    }))
  )
  const [apiProcesses, workers] = await Promise.all([
    Promise.all(apiEnvs.map((apiEnv) => startApiProcess(apiEnv))),
    Promise.all(Array.from({ length: options.workers }, () => startWorkerProcess(env))),
  ])
  const apis: ApiInstance[] = apiProcesses.map((process, i) => ({
    url: `http://127.0.0.1:${apiEnvs[i]!.PORT}`,
    process,
    env: apiEnvs[i]!,
  }))

  return {
    env,
    apis,
    workers,
    urls: () => apis.map((api) => api.url),
    db,
    temporal,
    async newClient(scopes) {
      const client = await provisionClient(db, { tenantName: `Scale ${randomBytes(6).toString('hex')}`, scopes })
      const response = await httpClient(apis[0]!.url).post('/oauth/token', {
        body: { grant_type: 'client_credentials', client_id: client.client_id, client_secret: client.client_secret },
      })
      if (response.status !== 200) throw new Error(`token: ${response.status} ${JSON.stringify(response.body)}`)
      return { ...client, token: response.body.access_token as string }
    },
    async restartApi(i, signal, overrides = {}) {
      const api = apis[i]!
      await stopWithin(api.process, signal, `API ${i}`)
      api.env = { ...api.env, ...overrides }
      api.process = await startApiProcess(api.env)
    },
    async restartWorker(i, signal) {
      await stopWithin(workers[i]!, signal, `worker ${i}`)
      workers[i] = await startWorkerProcess(env)
    },
    async stop() {
      const all = [...apis.map((api) => api.process), ...workers]
      await Promise.allSettled(all.map((entry) => stopWithin(entry, 'SIGTERM', 'an instance')))
      await temporalConnection.close()
      await closeDb(db)
    },
  }
}

/** Longer than an API's or a worker's graceful stop (the worker's grace time is 10 s). */
const STOP_TIMEOUT_MS = 15_000

/**
 * Stops `entry` with `signal`; one still running after {@link STOP_TIMEOUT_MS} is killed and reported, so a stop that
 * hangs fails the test that asked for it rather than its hooks' timeout.
 */
async function stopWithin(entry: EntryProcess, signal: NodeJS.Signals, name: string): Promise<void> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), STOP_TIMEOUT_MS)))
  const outcome = await Promise.race([entry.kill(signal), late])
  clearTimeout(timer)
  if (outcome !== 'late') return
  await entry.kill('SIGKILL')
  // Its last lines say which part it was waiting on (stopInOrder logs a step that takes long by name).
  const tail = entry.output().split('\n').slice(-15).join('\n')
  throw new Error(`${name} did not stop within ${STOP_TIMEOUT_MS} ms of ${signal}; its last lines:\n${tail}`)
}

/** What one logical request went through before its final answer. */
export interface Sent {
  final: HttpResponse
  /** Attempts that failed to connect or lost their connection (retried with the same key). */
  connectionErrors: number
  /** Answers 409 `idempotency_request_in_progress` (retried once the first attempt could have finished). */
  inProgress: number
  /** Every status answered, retries included, in order. */
  statuses: number[]
}

/**
 * A client of several API instances behind no load balancer: request n goes to instance n mod N, and a request whose
 * connection fails (refused while an instance restarts, reset when it dies) is sent again, with the same
 * Idempotency-Key, to the next instance, as a load balancer's health check would route it. A 409
 * `idempotency_request_in_progress` is retried too (the documented answer to a duplicate still running elsewhere).
 * Any other answer, 5xx included, is final.
 * @param urls - read on every attempt
 */
export function spreadingClient(urls: () => string[], { retryForMs = 60_000 } = {}) {
  let next = 0
  return async function send(
    method: 'GET' | 'POST',
    path: string,
    options: { token: string; body?: unknown; key?: string }
  ): Promise<Sent> {
    const sent: Sent = { final: undefined as unknown as HttpResponse, connectionErrors: 0, inProgress: 0, statuses: [] }
    let target = next++
    const deadline = Date.now() + retryForMs
    for (;;) {
      const list = urls()
      const url = list[target % list.length]!
      try {
        const response = await httpClient(url).request(method, path, {
          token: options.token,
          body: options.body,
          headers: options.key ? { 'Idempotency-Key': options.key } : {},
        })
        sent.statuses.push(response.status)
        if (response.status !== 409 || response.body?.code !== 'idempotency_request_in_progress') {
          sent.final = response
          return sent
        }
        sent.inProgress += 1
      } catch (error) {
        // fetch rejects only when there is no HTTP answer: refused, reset, or closed mid-request.
        sent.connectionErrors += 1
        if (Date.now() > deadline) throw error
        target += 1
      }
      if (Date.now() > deadline) throw new Error(`${method} ${path}: no final answer within ${retryForMs} ms`)
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
  }
}
