/**
 * @module `npm start`: the whole platform on one machine with one command. Starts (or reuses) the database and the
 * Temporal dev server with its Web UI, applies migrations, seeds a demo tenant on an empty database, then runs the
 * API and the worker as supervised child processes (start/supervise.ts): one that dies is restarted with backoff;
 * everything stops on Ctrl-C / SIGTERM, or when a child keeps dying at start (exit code 1).
 *
 * DATABASE_URL set: use that PostgreSQL; otherwise an embedded one (PGlite, data in <START_DATA_DIR>/pglite).
 * TEMPORAL_ADDRESS set: use that Temporal; otherwise `temporal server start-dev` (data in <START_DATA_DIR>/temporal).
 * START_DATA_DIR (default .data) also holds the demo credentials and the children's logs (logs/api.log, worker.log).
 *
 * Start-up, in the order of a warm start's seconds (docs/operations.md, "Start-up"): the API and the worker are started
 * first and load their modules while the rest comes up, then wait for the database's and Temporal's addresses
 * (start/hold.ts); a new data directory starts as a copy of the migrated cluster kept in the project cache
 * (db/cluster-cache.ts); the database and Temporal start side by side; the summary is printed once the API answers
 * /health.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { openLocalDatabase, startDataDir, type LocalDatabase } from './db/local-database.ts'
import type { DemoCredentials } from './seed-demo.ts'
import { untilAnswering } from './start/api-answering.ts'
import { leaveTsxCli, startLaunchedAt } from './start/own-process.ts'
import { obtainSentenceModel, type SentenceModelOutcome } from './start/sentence-model.ts'
import {
  DEVELOPMENT_CLIENT_ID,
  developmentSignInOn,
  listenConsoleSignIn,
  serveConsoleSignIn,
} from './start/console-sign-in.ts'
import { supervise } from './start/supervise.ts'
import { COMPILE_CACHE, typeScriptLoader } from './start/worker-process.ts'
import type { TemporalHandle } from './temporal/dev-server.ts'

// First: under the tsx CLI, this script runs in a process of its own (start/own-process.ts).
await leaveTsxCli(import.meta.url)
const launchedAt = startLaunchedAt()
delete process.env.START_LAUNCHED_AT

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const DATA_DIR = startDataDir()
const DEMO_FILE = join(DATA_DIR, 'demo-credentials.json')
const LOG_DIR = join(DATA_DIR, 'logs')
const log = (message: string) => process.stderr.write(`[start] ${message}\n`)

const port = Number(process.env.PORT ?? 3000)
/** How long the summary waits for the API to answer before it is printed saying the API is still loading. */
const SUMMARY_WAIT_MS = 60_000

// What the children run with that is known now; the database's and Temporal's addresses follow when they run (below).
const env = {
  ...process.env,
  NODE_ENV: process.env.NODE_ENV ?? 'development',
  PORT: String(port),
  // Receivers and identity providers on this machine (http://localhost:4000/hooks): the outbound policy is strict
  // unless relaxed (infra/config.ts), so the local platform relaxes it, explicitly and saying so below.
  OUTBOUND_ALLOW_PRIVATE_NETWORKS: process.env.OUTBOUND_ALLOW_PRIVATE_NETWORKS ?? 'true',
  OUTBOUND_ALLOW_HTTP: process.env.OUTBOUND_ALLOW_HTTP ?? 'true',
  // The embedded database serves this one API process: its rate-limit counters can stay in memory (infra/config.ts).
  DATABASE_EMBEDDED: process.env.DATABASE_URL ? 'false' : 'true',
  // Node's compile cache (22.1+; Node 20 ignores it), the one the tests' children share: a start after the first loads
  // V8's cached code for the modules it loaded before (start/worker-process.ts has the measurements).
  NODE_COMPILE_CACHE: COMPILE_CACHE,
}

// The children run TypeScript as the tests' workers do (start/worker-process.ts): natively where Node strips types
// (22.18+, 24), so a start and a restart load their modules with less CPU; through tsx on Node 20.
const node = (entry: string, extra: Record<string, string> = {}) => ({
  command: process.execPath,
  args: [...typeScriptLoader, entry],
  cwd: ROOT,
  env: { ...env, ...extra },
})
// On one machine, requests come before webhook deliveries and workflow tasks (infra/process-priority.ts). The worker
// lowers its own priority once its modules are loaded; run through nice(1) it has the lower priority from its first
// instruction, so the seconds both spend loading modules go to the API first (nice execs: the pid stays the worker's).
const workerNice = process.env.WORKER_CPU_NICE ?? '10'
const niced = (spec: ReturnType<typeof node>) =>
  /^[1-9]\d*$/.test(workerNice) && process.platform !== 'win32'
    ? { ...spec, command: 'nice', args: ['-n', workerNice, spec.command, ...spec.args] }
    : spec

let releaseChildren: (runtimeEnv: Record<string, string>) => void = () => undefined
let holdChildren: (error: unknown) => void = () => undefined
let workerRunning = false
const supervisor = supervise(
  [
    // Each entry loads its process's modules, waits for the rest of its environment, then runs api/server.ts or
    // worker/main.ts (start/api-entry.ts, start/worker-entry.ts).
    { name: 'api', ...node('scripts/start/api-entry.ts') },
    // The worker finds the workflow bundle of this code, made once and kept outside the clone: it, and each restart of
    // it, starts without running webpack.
    { name: 'worker', ...niced(node('scripts/start/worker-entry.ts', { WORKER_CPU_NICE: workerNice })) },
  ],
  {
    log,
    logDir: LOG_DIR,
    onLine: (name, line) => {
      if (name === 'worker') workerRunning ||= line.includes('"msg":"worker running"')
    },
    hold: new Promise((resolve, reject) => {
      releaseChildren = resolve
      holdChildren = reject
    }),
  }
)

// The sentence model (docs/ai.md) is obtained beside the rest, once per machine; without it the platform answers on the
// lexical embeddings and says so.
const sentenceModel = obtainSentenceModel()
// The console (docs/console.md): built into console/dist (under a second), and its development sign-in, an OpenID
// Connect provider on 127.0.0.1 whose one account is the demo tenant's owner.
const consoleBuilt = import('./console/build-console.ts').then(({ buildConsole }) =>
  buildConsole(join(ROOT, 'console', 'dist'))
)
const signInReady = developmentSignInOn(env.NODE_ENV)
  ? listenConsoleSignIn(Number(process.env.CONSOLE_SIGN_IN_PORT ?? 0))
  : Promise.resolve(undefined)
// The database and Temporal do not need each other: they start side by side (Temporal's dev server is a process of its
// own), and the demo tenant is seeded as soon as the database is there. Their modules (PGlite, Temporal's client, Prisma)
// are loaded here, after the children have been started.
// On a PostgreSQL server the API and the worker log in as two ordinary roles made here, never as the owner
// (docs/security.md, "Least privilege in the database").
const databaseReady = openLocalDatabase({ serve: true, log, logins: true })
const temporalReady = import('./temporal/dev-server.ts').then(({ ensureTemporal }) =>
  ensureTemporal({
    port: Number(process.env.TEMPORAL_PORT ?? 7233),
    uiPort: Number(process.env.TEMPORAL_UI_PORT ?? 8233),
    dbFile: join(DATA_DIR, 'temporal', 'temporal.db'),
    log,
  })
)
// The children need the database, Temporal and the model's directory; the demo tenant is seeded meanwhile (its
// credentials end the summary).
const ready: Promise<[LocalDatabase, TemporalHandle, SentenceModelOutcome, unknown]> = Promise.all([
  databaseReady,
  temporalReady,
  sentenceModel,
  consoleBuilt,
])
const demoReady = databaseReady.then((database) => seedDemoTenant(database.url))

/**
 * Seeds the demo tenant on an empty database and keeps its credentials beside the local data: the client's secret is
 * shown once, at creation, and later starts read it from there.
 */
async function seedDemoTenant(url: string): Promise<DemoCredentials | undefined> {
  const { closeDb, createDb } = await import('../infra/db.ts')
  const { seedDemo } = await import('./seed-demo.ts')
  const db = createDb(url, 2)
  try {
    const seeded = await seedDemo(db)
    if (!seeded) {
      return (JSON.parse(await readFile(DEMO_FILE, 'utf8').catch(() => 'null')) as DemoCredentials | null) ?? undefined
    }
    await mkdir(DATA_DIR, { recursive: true })
    await writeFile(DEMO_FILE, JSON.stringify(seeded, null, 2), { mode: 0o600 })
    return seeded
  } finally {
    await closeDb(db)
  }
}

let stopping: Promise<void> | undefined
const stopped = new AbortController()
/** Stops the children (their grace time, then SIGKILL), then Temporal and the database, and exits with `code`. */
function shutdown(code: number): Promise<void> {
  stopped.abort()
  stopping ??= (async () => {
    await supervisor.stop()
    await signInReady.then(
      (identity) => identity?.close(),
      () => undefined
    )
    // What did start is stopped (once it has started); what failed to has nothing to stop.
    await temporalReady.then(
      (temporal) => temporal.stop(),
      () => undefined
    )
    await databaseReady.then(
      (database) => database.stop(),
      () => undefined
    )
    process.exit(code)
  })()
  return stopping
}
// SIGHUP: the terminal was closed; its children got it too and must not be restarted.
// One Ctrl-C can arrive twice: the terminal sends it to every process of the group, and npm and tsx pass theirs on. A
// repeat within a second is that one; a second Ctrl-C after it kills at once.
let firstSignalAt = 0
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(signal, () => {
    if (stopping) {
      if (performance.now() - firstSignalAt < 1_000) return
      log(`${signal} again: killing what is still running`)
      void supervisor.stop({ force: true })
      return
    }
    firstSignalAt = performance.now()
    log(`${signal}: stopping the platform (${signal} again to kill at once)`)
    void shutdown(0)
  })
}
void supervisor.gaveUp.then((failure) => {
  process.stderr.write(`\n[start] ${failure.message}\n\n`)
  return shutdown(1)
})

/**
 * Says why and stops everything when the database, Temporal or the demo tenant could not be made; never settles (the
 * process exits once all has stopped).
 */
function couldNotStart(error: unknown): Promise<never> {
  if (!stopping) {
    holdChildren(error)
    process.stderr.write(`\n[start] the platform could not start:\n${String((error as Error).stack ?? error)}\n\n`)
  }
  void shutdown(1)
  return new Promise<never>(() => undefined)
}
void demoReady.catch(couldNotStart)
const [database, temporal, knowledge] = await ready.catch(couldNotStart)
const identity = await signInReady.catch(couldNotStart)
// Loaded with the database (the demo's seed has loaded Prisma by now), not before the children start.
const { databaseLoginsEnv } = await import('../infra/db.ts')
releaseChildren({
  ...(knowledge.dir ? { AI_SENTENCE_MODEL_DIR: knowledge.dir } : {}),
  ...databaseLoginsEnv(database.logins),
  TEMPORAL_ADDRESS: temporal.address,
  TEMPORAL_NAMESPACE: temporal.namespace,
  CONSOLE_IDENTITY_ORIGINS: process.env.CONSOLE_IDENTITY_ORIGINS ?? identity?.issuer ?? '',
  ...(temporal.uiUrl ? { TEMPORAL_UI_URL: `${temporal.uiUrl}/namespaces/${temporal.namespace}` } : {}),
  // One embedded PGlite serves every connection in turn; a small pool per process is plenty.
  DATABASE_POOL_MAX: process.env.DATABASE_POOL_MAX ?? (database.started || !process.env.DATABASE_URL ? '4' : '10'),
})

const base = `http://localhost:${port}`
const health = `http://127.0.0.1:${port}/health`
if (!stopped.signal.aborted) {
  log(`the database and Temporal run; the summary follows once the API answers ${base}/health`)
}
const answered = await untilAnswering(health, { timeoutMs: SUMMARY_WAIT_MS, signal: stopped.signal })
if (!stopped.signal.aborted) printSummary(answered)
// The demo tenant is usually seeded by now; its lines end the summary once it is.
const demo = await demoReady.catch(couldNotStart)
if (demo && !stopped.signal.aborted) {
  if (identity) {
    await serveConsoleSignIn(identity, `${base}/console/`, database.url, demo.tenantId).catch(couldNotStart)
  }
  printDemo(demo)
}
if (!answered && !stopped.signal.aborted) {
  void untilAnswering(health, { timeoutMs: Infinity, signal: stopped.signal }).then(
    (late) => late && log(`API answering now, ${secondsSinceStart()} s after the start (${base})`)
  )
}

function secondsSinceStart(): string {
  return ((Date.now() - launchedAt) / 1000).toFixed(1)
}

/** What runs where, printed once the API answers (or, when it has not within SUMMARY_WAIT_MS, saying so). */
function printSummary(apiAnswers: boolean): void {
  const api = apiAnswers
    ? `${base}  (health: ${base}/health, OpenAPI: ${base}/openapi.json)`
    : `${base}  NOT answering /health yet after ${SUMMARY_WAIT_MS / 1000} s: still loading, or failing (${LOG_DIR}/api.log); a line follows when it answers`
  if (apiAnswers) log(`platform ready: the API answered /health ${secondsSinceStart()} s after the start`)
  log(`API:          ${api}`)
  log(
    `Worker:       ${workerRunning ? 'running' : 'still starting (bookings are taken; workflow steps and webhook deliveries wait for it): it logs "worker running"'}`
  )
  log(`Temporal UI:  ${temporal.uiUrl ?? '(external Temporal at ' + temporal.address + ')'}`)
  log(`Database:     ${database.description}`)
  log(
    `Outbound:     private networks ${env.OUTBOUND_ALLOW_PRIVATE_NETWORKS === 'true' ? 'allowed' : 'refused'}, plain http ${env.OUTBOUND_ALLOW_HTTP === 'true' ? 'allowed' : 'refused'} for webhooks, agent calls and SSO (local receivers; never in production: OUTBOUND_ALLOW_* unset)`
  )
  log(`Knowledge:    ${knowledge.summary}`)
  log(`Logs:         ${LOG_DIR}/api.log, ${LOG_DIR}/worker.log (crashed processes are restarted; see the README)`)
}

function printDemo(demo: DemoCredentials): void {
  log(`Demo tenant credentials (also in ${DEMO_FILE}):`)
  log(`  curl -s ${base}/oauth/token -H 'Content-Type: application/json' \\`)
  log(
    `    -d '{"grant_type":"client_credentials","client_id":"${demo.client_id}","client_secret":"${demo.client_secret}","scope":"children providers bookings"}'`
  )
  log(`  demo provider ${demo.providerId}, demo child ${demo.childId}`)
  if (!identity) {
    log(`Console:      ${base}/console/  (no development sign-in under NODE_ENV=production)`)
    return
  }
  const link = new URLSearchParams({ issuer: identity.issuer, client_id: DEVELOPMENT_CLIENT_ID })
  log(`Console:      ${base}/console/?${link}  (development sign-in as the demo tenant's owner)`)
}
