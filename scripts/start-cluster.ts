/**
 * @module `npm run start:cluster`: the production topology on one machine, every part a process of its own
 * (docs/operations.md, "Running at scale"). With DATABASE_URL naming a PostgreSQL server (a role that may create
 * databases and roles):
 * - the platform's database migrated, and the two ordinary logins the APIs and workers use made (as `npm start` does);
 * - the Temporal Server (built once from the Go module proxy, scripts/temporal/obtain-server.sh) on the same server,
 *   in databases `temporal` and `temporal_visibility`, as four services: frontend, history, matching, worker
 *   (scripts/temporal/cluster.ts), and the Temporal UI in front of it where it was built;
 * - CLUSTER_APIS APIs (default 2) and CLUSTER_WORKERS workers (default 2), restarted when they crash as `npm start`
 *   restarts its two (start/supervise.ts);
 * - HAProxy on PORT (default 3000), health-checking the APIs and retrying what is safe to retry
 *   (cluster/haproxy-config.ts).
 * It writes `<START_DATA_DIR>/cluster/processes.json` (`[{ role, pid, port }]`, kept current as processes restart) and
 * stops everything on Ctrl-C. TEMPORAL_HISTORY_SHARDS (default 16) is fixed when the Temporal databases are first made;
 * TEMPORAL_DATABASE (default `temporal`) names them. With TEMPORAL_ADDRESS set, no Temporal Server or UI is started:
 * the APIs and workers use that one (a cluster an operator already runs, Temporal Cloud, or the development server
 * bench/cluster-scaling.bench.ts compares the cluster with), after its search attributes are checked.
 */
import { mkdir, rename, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { haproxyConfig } from './cluster/haproxy-config.ts'
import { findHaproxy } from './cluster/haproxy.ts'
import { openLocalDatabase, startDataDir } from './db/local-database.ts'
import { untilAnswering } from './start/api-answering.ts'
import { freePort } from './start/start-process.ts'
import { supervise, type ChildSpec } from './start/supervise.ts'
import { COMPILE_CACHE, typeScriptLoader } from './start/worker-process.ts'
import { startTemporalCluster, type ClusterProcess, type TemporalCluster } from './temporal/cluster.ts'
import { startTemporalUi, type TemporalUi } from './temporal/cluster-ui.ts'
import { ensureTemporal } from './temporal/dev-server.ts'
import { databaseLoginsEnv } from '../infra/db.ts'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const log = (message: string) => process.stderr.write(`[cluster] ${message}\n`)
const count = (name: string, fallback: number) => {
  const value = Number(process.env[name] ?? fallback)
  if (!Number.isInteger(value) || value < 1 || value > 16)
    throw new Error(`${name} must be a whole number from 1 to 16`)
  return value
}

const databaseUrl = process.env.DATABASE_URL
if (!databaseUrl) {
  log('DATABASE_URL must name a PostgreSQL server (a role that may create databases and roles): README, "At scale"')
  process.exit(2)
}
const port = Number(process.env.PORT ?? 3000)
const apis = count('CLUSTER_APIS', 2)
const workers = count('CLUSTER_WORKERS', 2)
const dataDir = join(startDataDir(), 'cluster')
const processesFile = join(dataDir, 'processes.json')
await mkdir(join(dataDir, 'logs'), { recursive: true })

const haproxy = await findHaproxy()
const database = await openLocalDatabase({ log, logins: true })
const temporal: Pick<TemporalCluster, 'address' | 'namespace' | 'version' | 'processes' | 'stop'> = process.env
  .TEMPORAL_ADDRESS
  ? await externalTemporal()
  : await startTemporalCluster({
      databaseUrl,
      databasePrefix: process.env.TEMPORAL_DATABASE ?? 'temporal',
      dataDir: join(dataDir, 'temporal'),
      historyShards: Number(process.env.TEMPORAL_HISTORY_SHARDS ?? 16),
      log,
    })
const ui: Pick<TemporalUi, 'url' | 'why' | 'port' | 'pid' | 'stop'> = process.env.TEMPORAL_ADDRESS
  ? {
      why: 'the Temporal Server at TEMPORAL_ADDRESS serves its own',
      port: 0,
      pid: () => undefined,
      stop: async () => {},
    }
  : await startTemporalUi({
      temporalAddress: temporal.address,
      port: Number(process.env.TEMPORAL_UI_PORT ?? 8233),
      dataDir: join(dataDir, 'temporal'),
      log,
    })

/** The server at TEMPORAL_ADDRESS, its search attributes added where missing (ensureTemporal starts nothing then). */
async function externalTemporal() {
  const handle = await ensureTemporal({ log })
  return {
    address: handle.address,
    namespace: handle.namespace,
    version: 'the server at TEMPORAL_ADDRESS',
    processes: () => [],
    stop: async () => {},
  }
}

const env = {
  ...process.env,
  NODE_ENV: process.env.NODE_ENV ?? 'development',
  // Local receivers, as `npm start` allows them; a deployment leaves both unset (docs/security.md).
  OUTBOUND_ALLOW_PRIVATE_NETWORKS: process.env.OUTBOUND_ALLOW_PRIVATE_NETWORKS ?? 'true',
  OUTBOUND_ALLOW_HTTP: process.env.OUTBOUND_ALLOW_HTTP ?? 'true',
  DATABASE_EMBEDDED: 'false',
  // The address clients use, the balancer's, for every API: it is the tokens' issuer, so each API's default (its own
  // port) would refuse the tokens the others issued.
  PUBLIC_URL: process.env.PUBLIC_URL ?? `http://localhost:${port}`,
  NODE_COMPILE_CACHE: COMPILE_CACHE,
  ...databaseLoginsEnv(database.logins),
  TEMPORAL_ADDRESS: temporal.address,
  TEMPORAL_NAMESPACE: temporal.namespace,
}
/** Every process of ours gets its own metrics ports: they share the machine. */
const metricsPorts = async () => ({
  METRICS_PORT: String(await freePort()),
  WORKER_METRICS_PORT: String(await freePort()),
  TEMPORAL_METRICS_PORT: String(await freePort()),
})
const node = (entry: string, extra: Record<string, string>): Omit<ChildSpec, 'name'> => ({
  command: process.execPath,
  args: [...typeScriptLoader, entry],
  cwd: ROOT,
  env: { ...env, ...extra },
})

const apiPorts: number[] = []
const children: ChildSpec[] = []
for (let i = 1; i <= apis; i++) {
  const apiPort = await freePort()
  apiPorts.push(apiPort)
  children.push({
    name: `api-${i}`,
    ...node('scripts/start/api-entry.ts', { PORT: String(apiPort), ...(await metricsPorts()) }),
  })
}
for (let i = 1; i <= workers; i++) {
  children.push({ name: `worker-${i}`, ...node('scripts/start/worker-entry.ts', { ...(await metricsPorts()) }) })
}
const statsPort = await freePort()
const balancerConfig = join(dataDir, 'haproxy.cfg')
await writeFile(balancerConfig, haproxyConfig({ port, apiPorts, statsPort }))
// -db: in the foreground, so the supervisor sees it exit and restarts it.
children.push({ name: 'balancer', command: haproxy, args: ['-db', '-f', balancerConfig] })

const supervisor = supervise(children, { log, logDir: join(dataDir, 'logs') })

/** The roles and ports of processes.json; pids are read when it is written (restarts change them). */
const portOf = (name: string) =>
  name === 'balancer' ? port : name.startsWith('api-') ? apiPorts[Number(name.slice(4)) - 1] : undefined
let written = ''
async function writeProcesses(): Promise<void> {
  const ours = Object.entries(supervisor.pids()).flatMap(([name, pid]) =>
    pid === undefined ? [] : [{ role: name.replace(/-\d+$/, ''), name, pid, port: portOf(name) ?? null }]
  )
  const all: Array<ClusterProcess | Record<string, unknown>> = [
    ...temporal.processes(),
    ...(ui.pid() ? [{ role: 'temporal-ui', pid: ui.pid(), port: ui.port }] : []),
    ...ours,
  ]
  const text = `${JSON.stringify(all, null, 2)}\n`
  if (text === written) return
  written = text
  await writeFile(`${processesFile}.tmp`, text)
  await rename(`${processesFile}.tmp`, processesFile)
}
const keepWriting = setInterval(() => void writeProcesses(), 500)

let stopping: Promise<void> | undefined
function shutdown(code: number): Promise<void> {
  stopping ??= (async () => {
    clearInterval(keepWriting)
    await supervisor.stop()
    await ui.stop()
    await temporal.stop()
    await database.stop()
    process.exit(code)
  })()
  return stopping
}
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(signal, () => {
    log(`${signal}: stopping the cluster`)
    void shutdown(0)
  })
}
void supervisor.gaveUp.then((failure) => {
  process.stderr.write(`\n[cluster] ${failure.message}\n\n`)
  return shutdown(1)
})

const base = `http://localhost:${port}`
const answered = await untilAnswering(`http://127.0.0.1:${port}/health`, { timeoutMs: 120_000 })
await writeProcesses()
log(`${answered ? 'cluster ready' : 'NOT answering /health after 120 s'}: ${base} (HAProxy over ${apis} APIs)`)
log(`APIs:         ${apiPorts.map((p) => `127.0.0.1:${p}`).join(', ')} (health-checked by the balancer)`)
log(`Workers:      ${workers}`)
log(
  `Temporal:     ${temporal.version} at ${temporal.address}` +
    (process.env.TEMPORAL_ADDRESS ? '' : ', 4 services (frontend, history, matching, worker)')
)
log(`Temporal UI:  ${ui.url ?? ui.why}`)
log(`Database:     ${database.description}`)
log(`Balancer:     statistics at http://127.0.0.1:${statsPort}/stats`)
log(`Processes:    ${processesFile}; logs in ${join(dataDir, 'logs')} and ${join(dataDir, 'temporal', 'logs')}`)
