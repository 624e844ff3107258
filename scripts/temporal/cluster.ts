/**
 * @module The Temporal Server as a centre group would deploy it, on one machine: the real server (not the CLI's
 * development mode) built from the Go module proxy (obtain-server.sh), on PostgreSQL for persistence and SQL
 * visibility, its frontend, history, matching and worker services as four processes that can each be killed and
 * restarted (docs/operations.md, "Running at scale").
 *
 * The schema is created and migrated with the server's own SQL tool and versioned files; the namespace is registered
 * and the platform's search attributes added as on the development server (frontend.ts). Each service has its own
 * gRPC, membership and metrics ports, fixed for the cluster's life so a restarted service rejoins at its old address.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process'
import { createWriteStream } from 'node:fs'
import { mkdir, writeFile } from 'node:fs/promises'
import { connect, createServer } from 'node:net'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { Connection } from '@temporalio/client'
import { msToTs } from '@temporalio/common/lib/time.js'
import pg from 'pg'
import { dieWithParent } from '../start/children-die-with-parent.ts'
import { freePort } from '../start/start-process.ts'
import { ensureSearchAttributes, waitForFrontend } from './frontend.ts'
import { FAIRNESS_CLI_ARGS } from './dev-server.ts'
import { serverConfig, TEMPORAL_SERVICES, type ServicePorts, type TemporalService } from './cluster-config.ts'

const run = promisify(execFile)
const OBTAIN_SERVER = fileURLToPath(new URL('obtain-server.sh', import.meta.url))

export interface ClusterProcess {
  role: `temporal-${TemporalService}`
  pid: number
  port: number
}

export interface TemporalClusterOptions {
  /** A PostgreSQL role that may create databases. */
  databaseUrl: string
  /** Prefix of the two databases (`<prefix>` and `<prefix>_visibility`), created when missing. */
  databasePrefix?: string
  /** Config files and logs. */
  dataDir: string
  namespace?: string
  /**
   * History shards: fixed when the persistence is first set up and never changeable after (a new cluster and a
   * migration of every workflow would be needed). Default 16 (docs/operations.md says why).
   */
  historyShards?: number
  log?: (message: string) => void
}

export interface TemporalCluster {
  /** The frontend's `host:port`. */
  address: string
  namespace: string
  /** `temporal-server --version`. */
  version: string
  /** The services' current processes (a restarted one has a new pid). */
  processes(): ClusterProcess[]
  /** Stops every service (SIGTERM, SIGKILL after 10 s); until then, one that exits is started again after a second. */
  stop(): Promise<void>
}

/**
 * A free port below 32768 for a service's membership address: Temporal keeps it in a PostgreSQL `smallint`
 * (cluster_membership.rpc_port), and one from Linux's ephemeral range (32768 and up) fails the membership heartbeat
 * ("value out of range for type smallint") and the service exits.
 */
async function freeMembershipPort(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = 20_000 + Math.floor(Math.random() * 12_000)
    const free = await new Promise<boolean>((resolve) => {
      const probe = createServer()
      probe.once('error', () => resolve(false))
      probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)))
    })
    if (free) return port
  }
  throw new Error('no free port between 20000 and 32000 for a Temporal membership address')
}

/** The server's folder: binaries and schema files (obtain-server.sh builds them once, ~11 minutes). */
export async function obtainTemporalServer(): Promise<string> {
  const { stdout } = await run('bash', [OBTAIN_SERVER], { timeout: 45 * 60_000, maxBuffer: 1 << 20 })
  return stdout.trim()
}

async function adminQuery(url: string, sql: string, values: unknown[] = []) {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return await client.query(sql, values)
  } finally {
    await client.end()
  }
}

const withDatabase = (url: string, database: string) => {
  const copy = new URL(url)
  copy.pathname = `/${database}`
  return copy.toString()
}

/** Creates `database` when missing, then sets up and migrates its schema with the server's SQL tool. */
async function migrateSchema(
  serverDir: string,
  databaseUrl: string,
  database: string,
  kind: 'temporal' | 'visibility'
) {
  const exists = await adminQuery(databaseUrl, 'SELECT 1 FROM pg_database WHERE datname = $1', [database])
  // The name is ours (a prefix the operator chose, checked below), never a request's input.
  if (exists.rowCount === 0) await adminQuery(databaseUrl, `CREATE DATABASE "${database}"`)
  const url = new URL(databaseUrl)
  const tool = (args: string[]) =>
    run(
      path.join(serverDir, 'temporal-sql-tool'),
      [
        '--plugin',
        'postgres12',
        '--endpoint',
        url.hostname,
        '--port',
        url.port || '5432',
        '--user',
        decodeURIComponent(url.username),
        '--database',
        database,
        ...args,
      ],
      // The password through the environment, not the command line other users can read.
      { env: { ...process.env, SQL_PASSWORD: decodeURIComponent(url.password) }, timeout: 120_000 }
    )
  const versioned = await adminQuery(
    withDatabase(databaseUrl, database),
    "SELECT 1 FROM information_schema.tables WHERE table_name = 'schema_version'"
  )
  if (versioned.rowCount === 0) await tool(['setup-schema', '-v', '0.0'])
  await tool(['update-schema', '-d', path.join(serverDir, 'schema/postgresql/v12', kind, 'versioned')])
}

/**
 * The development server's `--dynamic-config-value key=value` arguments as the server's dynamic config file: the same
 * fair dispatch across tenants in one partition (dev-server.ts says why).
 */
function dynamicConfig(cliArgs: readonly string[]): Record<string, [{ value: unknown }]> {
  const config: Record<string, [{ value: unknown }]> = {}
  for (const pair of cliArgs.filter((arg) => arg !== '--dynamic-config-value')) {
    const [key = '', value = 'null'] = pair.split('=')
    config[key] = [{ value: JSON.parse(value) as unknown }]
  }
  return config
}

/** Resolves when something accepts connections on `port`, or rejects when `child` exits first. */
async function untilListening(port: number, child: ChildProcess, label: string, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`${label} exited (${child.exitCode ?? child.signalCode}) before listening; see its log`)
    }
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1')
      const answer = (listening: boolean) => {
        socket.destroy()
        resolve(listening)
      }
      socket.once('connect', () => answer(true)).once('error', () => answer(false))
      socket.setTimeout(1_000, () => answer(false))
    })
    if (open) return
    if (Date.now() > deadline) throw new Error(`${label} did not listen on ${port} within ${timeoutMs} ms`)
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
}

/** Sets up the schema, starts the four services one after another, registers the namespace and search attributes. */
export async function startTemporalCluster(options: TemporalClusterOptions): Promise<TemporalCluster> {
  const log = options.log ?? ((message: string) => process.stderr.write(`[temporal-cluster] ${message}\n`))
  const prefix = options.databasePrefix ?? 'temporal'
  if (!/^[a-z_][a-z0-9_]{0,40}$/.test(prefix))
    throw new Error(`databasePrefix ${prefix}: lower-case letters, digits, _`)
  const namespace = options.namespace ?? 'default'
  const serverDir = await obtainTemporalServer()
  const databases = { temporal: prefix, visibility: `${prefix}_visibility` }
  await migrateSchema(serverDir, options.databaseUrl, databases.temporal, 'temporal')
  await migrateSchema(serverDir, options.databaseUrl, databases.visibility, 'visibility')
  const { stdout: said } = await run(path.join(serverDir, 'temporal-server'), ['--version'])
  const version = said.trim().replace(/^temporal version /, 'Server ')

  await mkdir(path.join(options.dataDir, 'logs'), { recursive: true })
  const dynamicConfigFile = path.join(options.dataDir, 'dynamicconfig.yaml')
  await writeFile(dynamicConfigFile, JSON.stringify(dynamicConfig(FAIRNESS_CLI_ARGS), null, 2))
  const ports = {} as Record<TemporalService, ServicePorts>
  for (const service of TEMPORAL_SERVICES) {
    ports[service] = {
      grpc: await freePort(),
      membership: await freeMembershipPort(),
      metrics: await freePort(),
      ...(service === 'frontend' ? { http: await freePort() } : {}),
    }
  }
  for (const service of TEMPORAL_SERVICES) {
    const config = serverConfig({
      databaseUrl: options.databaseUrl,
      databases,
      shards: options.historyShards ?? 16,
      ports,
      metricsPort: ports[service].metrics,
      dynamicConfigFile,
    })
    // Holds the database password: readable by this user only.
    await writeFile(path.join(options.dataDir, `${service}.yaml`), config, { mode: 0o600 })
  }

  const children = new Map<TemporalService, ChildProcess>()
  let stopping = false
  const startService = async (service: TemporalService) => {
    const logFile = createWriteStream(path.join(options.dataDir, 'logs', `temporal-${service}.log`), { flags: 'a' })
    const child = spawn(
      path.join(serverDir, 'temporal-server'),
      [
        '--config-file',
        path.join(options.dataDir, `${service}.yaml`),
        '--allow-no-auth',
        'start',
        '--service',
        service,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] }
    )
    child.stdout.pipe(logFile, { end: false })
    child.stderr.pipe(logFile, { end: false })
    child.once('exit', (code, signal) => {
      logFile.end()
      if (stopping) return
      // As an operator's service manager would: the service comes back at its ports and rejoins the membership ring.
      log(`temporal ${service} exited (${signal ?? code}); starting it again in 1 s`)
      setTimeout(() => {
        if (!stopping) startService(service).catch((error: unknown) => log(`temporal ${service}: ${String(error)}`))
      }, 1_000)
    })
    dieWithParent(child)
    children.set(service, child)
    await untilListening(ports[service].grpc, child, `temporal ${service}`)
  }
  const stopService = async (service: TemporalService, signal: NodeJS.Signals) => {
    const child = children.get(service)
    if (!child || child.exitCode !== null || child.signalCode !== null) return
    const exited = new Promise((resolve) => child.once('exit', resolve))
    child.kill(signal)
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000)
    await exited
    clearTimeout(timer)
  }

  const address = `127.0.0.1:${ports.frontend.grpc}`
  try {
    for (const service of TEMPORAL_SERVICES) await startService(service)
    await registerNamespace(address, namespace)
    const connection = await waitForFrontend(address, namespace, 60_000)
    try {
      await ensureSearchAttributes(connection, namespace, log)
    } finally {
      await connection.close()
    }
  } catch (error) {
    stopping = true
    await Promise.all(TEMPORAL_SERVICES.map((service) => stopService(service, 'SIGKILL')))
    throw error
  }
  log(`Temporal ${version} at ${address}: ${TEMPORAL_SERVICES.length} services, namespace ${namespace}`)

  return {
    address,
    namespace,
    version,
    processes: () =>
      TEMPORAL_SERVICES.flatMap((service) => {
        const pid = children.get(service)?.pid
        return pid === undefined ? [] : [{ role: `temporal-${service}` as const, pid, port: ports[service].grpc }]
      }),
    async stop() {
      stopping = true
      // The frontend last: workers polling it see it go after the services behind it.
      for (const service of [...TEMPORAL_SERVICES].reverse()) await stopService(service, 'SIGTERM')
    },
  }
}

/** Registers `namespace` (retention 3 days) unless it exists; the frontend may answer before it can write. */
async function registerNamespace(address: string, namespace: string): Promise<void> {
  const deadline = Date.now() + 60_000
  const connection = await Connection.connect({ address })
  try {
    for (;;) {
      try {
        await connection.workflowService.registerNamespace({
          namespace,
          workflowExecutionRetentionPeriod: msToTs('3 days'),
        })
        return
      } catch (error) {
        // ALREADY_EXISTS (6): a cluster started before on the same databases.
        if ((error as { code?: number }).code === 6) return
        if (Date.now() > deadline) throw error
        await new Promise((resolve) => setTimeout(resolve, 500))
      }
    }
  } finally {
    await connection.close()
  }
}
