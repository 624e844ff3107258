/**
 * @module `scripts/start-cluster.ts` run as an operator runs it (`npm run start:cluster`), in a database of its own on
 * a PostgreSQL server, for the cluster's failure tests (test/cluster/) and its scaling benchmark
 * (bench/cluster-scaling.bench.ts): the balancer's address, the processes it reports, and a stop that leaves nothing
 * running.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { adminQuery, withDatabase } from '../../scripts/db/test-database.ts'
import { untilAnswering } from '../../scripts/start/api-answering.ts'
import { dieWithParent } from '../../scripts/start/children-die-with-parent.ts'
import { freePort } from '../../scripts/start/start-process.ts'
import { typeScriptLoader } from '../../scripts/start/worker-process.ts'

const ROOT = path.resolve(import.meta.dirname, '../..')

/** One line of processes.json: ours carry a `name` (`api-1`), Temporal's a role only (`temporal-history`). */
export interface ClusterProcessEntry {
  role: string
  name?: string
  pid: number
  port: number | null
}

export interface ClusterTopology {
  /** The balancer's origin, `http://127.0.0.1:<PORT>`. */
  balancer: string
  /** The platform's database (the server role's login, which migrated it). */
  databaseUrl: string
  dataDir: string
  processes(): Promise<ClusterProcessEntry[]>
  /** The process of `name` (ours) or `role` (Temporal's). */
  find(nameOrRole: string): Promise<ClusterProcessEntry>
  /** The last 20 000 characters start-cluster printed. */
  output(): string
  /** Ctrl-C, as an operator stops it (SIGKILL after 30 s), and its data folder removed. */
  stop(): Promise<void>
}

/**
 * Starts the topology in new databases on the server at `serverUrl` (a role that may create databases and roles).
 * @param options.apis / options.workers - CLUSTER_APIS and CLUSTER_WORKERS
 * @param options.temporalAddress - a Temporal Server to use instead of starting the cluster (TEMPORAL_ADDRESS)
 * @param options.env - more of start-cluster's environment (timeouts, log level)
 */
export async function startClusterTopology(options: {
  serverUrl: string
  apis?: number
  workers?: number
  temporalAddress?: string
  env?: Record<string, string>
}): Promise<ClusterTopology> {
  const suffix = randomBytes(4).toString('hex')
  const databaseUrl = withDatabase(options.serverUrl, `therapy_cluster_${suffix}`)
  await adminQuery(options.serverUrl, `CREATE DATABASE therapy_cluster_${suffix}`)
  const dataDir = await mkdtemp(path.join(tmpdir(), 'therapy-cluster-'))
  const port = await freePort()
  const balancer = `http://127.0.0.1:${port}`
  const expected = (options.apis ?? 2) + (options.workers ?? 2) + 1 + (options.temporalAddress ? 0 : 4)
  const cluster: ChildProcess = spawn(process.execPath, [...typeScriptLoader, 'scripts/start-cluster.ts'], {
    cwd: ROOT,
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      TEMPORAL_DATABASE: `temporal_${suffix}`,
      // undefined: not passed on, so start-cluster starts its own Temporal cluster.
      TEMPORAL_ADDRESS: options.temporalAddress,
      CLUSTER_APIS: String(options.apis ?? 2),
      CLUSTER_WORKERS: String(options.workers ?? 2),
      PORT: String(port),
      START_DATA_DIR: dataDir,
      TEMPORAL_UI_PORT: String(await freePort()),
      RATE_LIMIT_PER_MINUTE: '100000000',
      WEBHOOK_REQUIRE_HTTPS: 'false',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      LOG_LEVEL: 'warn',
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  dieWithParent(cluster)
  let output = ''
  const keep = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-20_000))
  cluster.stdout?.on('data', keep)
  cluster.stderr?.on('data', keep)

  const processes = async () =>
    JSON.parse(await readFile(path.join(dataDir, 'cluster', 'processes.json'), 'utf8')) as ClusterProcessEntry[]
  const topology: ClusterTopology = {
    balancer,
    databaseUrl,
    dataDir,
    processes,
    async find(nameOrRole) {
      const found = (await processes()).find((p) => p.name === nameOrRole || p.role === nameOrRole)
      if (!found) throw new Error(`no ${nameOrRole} in processes.json`)
      return found
    },
    output: () => output,
    async stop() {
      if (cluster.exitCode === null) {
        const exited = new Promise((resolve) => cluster.once('exit', resolve))
        cluster.kill('SIGINT')
        await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 30_000))])
        cluster.kill('SIGKILL')
      }
      await rm(dataDir, { recursive: true, force: true })
    },
  }
  // The first start builds nothing (the builds are cached) but migrates and sets up Temporal's schema: a minute or so.
  const up = await untilAnswering(`${balancer}/health`, { timeoutMs: 240_000 })
  if (!up) {
    await topology.stop()
    throw new Error(`the cluster did not answer through the balancer:\n${output}`)
  }
  // Not test/support/platform.ts's `eventually`: that module needs vitest, and the benchmark runs without it.
  for (const until = Date.now() + 30_000; Date.now() < until;) {
    if ((await processes().catch(() => [])).length >= expected) break
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
  return topology
}
