/**
 * @module `npm start`: the whole platform on one machine with one command. Starts (or reuses) the database and the
 * Temporal dev server with its Web UI, applies migrations, seeds a demo tenant on an empty database, then runs the
 * API and the worker as supervised child processes (start/supervise.ts): one that dies is restarted with backoff;
 * everything stops on Ctrl-C / SIGTERM, or when a child keeps dying at start (exit code 1).
 *
 * DATABASE_URL set: use that PostgreSQL; otherwise an embedded one (PGlite, data in <START_DATA_DIR>/pglite).
 * TEMPORAL_ADDRESS set: use that Temporal; otherwise `temporal server start-dev` (data in <START_DATA_DIR>/temporal).
 * START_DATA_DIR (default .data) also holds the demo credentials and the children's logs (logs/api.log, worker.log).
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { closeDb, createDb } from '../infra/db.ts'
import { openLocalDatabase, startDataDir } from './db/local-database.ts'
import { seedDemo, type DemoCredentials } from './seed-demo.ts'
import { supervise } from './start/supervise.ts'
import { ensureTemporal } from './temporal/dev-server.ts'
import { obtainSentenceModel } from './start/sentence-model.ts'
import { cachedWorkflowBundle } from '../worker/workflow-bundle-cache.ts'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const DATA_DIR = startDataDir()
const DEMO_FILE = join(DATA_DIR, 'demo-credentials.json')
const LOG_DIR = join(DATA_DIR, 'logs')
const log = (message: string) => process.stderr.write(`[start] ${message}\n`)

const port = Number(process.env.PORT ?? 3000)
// The sentence model (docs/ai.md) is obtained beside the rest, once per machine; without it the platform answers on the
// lexical embeddings and says so.
const sentenceModel = obtainSentenceModel()
const database = await openLocalDatabase({ serve: true, log })
const temporal = await ensureTemporal({
  port: Number(process.env.TEMPORAL_PORT ?? 7233),
  uiPort: Number(process.env.TEMPORAL_UI_PORT ?? 8233),
  dbFile: join(DATA_DIR, 'temporal', 'temporal.db'),
  log,
})

// The demo client's secret is shown once at creation; keep it beside the local data so later starts can show it.
const db = createDb(database.url, 2)
let demo: DemoCredentials | undefined
try {
  demo = await seedDemo(db)
  if (demo) {
    await mkdir(DATA_DIR, { recursive: true })
    await writeFile(DEMO_FILE, JSON.stringify(demo, null, 2), { mode: 0o600 })
  } else {
    demo = (JSON.parse(await readFile(DEMO_FILE, 'utf8').catch(() => 'null')) as DemoCredentials | null) ?? undefined
  }
} finally {
  await closeDb(db)
}

const knowledge = await sentenceModel
const env = {
  ...process.env,
  ...(knowledge.dir ? { AI_SENTENCE_MODEL_DIR: knowledge.dir } : {}),
  NODE_ENV: process.env.NODE_ENV ?? 'development',
  DATABASE_URL: database.url,
  TEMPORAL_ADDRESS: temporal.address,
  TEMPORAL_NAMESPACE: temporal.namespace,
  PORT: String(port),
  // Receivers and identity providers on this machine (http://localhost:4000/hooks): the outbound policy is strict
  // unless relaxed (infra/config.ts), so the local platform relaxes it, explicitly and saying so below.
  OUTBOUND_ALLOW_PRIVATE_NETWORKS: process.env.OUTBOUND_ALLOW_PRIVATE_NETWORKS ?? 'true',
  OUTBOUND_ALLOW_HTTP: process.env.OUTBOUND_ALLOW_HTTP ?? 'true',
  // The embedded database serves this one API process: its rate-limit counters can stay in memory (infra/config.ts).
  DATABASE_EMBEDDED: process.env.DATABASE_URL ? 'false' : 'true',
  // One embedded PGlite serves every connection in turn; a small pool per process is plenty.
  DATABASE_POOL_MAX: process.env.DATABASE_POOL_MAX ?? (database.started || !process.env.DATABASE_URL ? '4' : '10'),
}

// Where Node strips TypeScript types itself (22.18+, 24) the children run natively, as the tests' workers do: a start,
// and so a restart, loads their modules with less CPU than through tsx. Elsewhere (Node 20) through tsx.
const typeScriptLoader = (process.features as { typescript?: string | false }).typescript ? [] : ['--import', 'tsx']
const node = (entry: string, extra: Record<string, string> = {}) => ({
  command: process.execPath,
  args: [...typeScriptLoader, entry],
  cwd: ROOT,
  env: { ...env, ...extra },
})
const supervisor = supervise(
  [
    // On one machine, requests come before webhook deliveries and workflow tasks (infra/process-priority.ts).
    // The workflow bundle of this code, made once and kept outside the clone (worker/workflow-bundle-cache.ts): the
    // worker, and each restart of it, starts without running webpack.
    {
      name: 'worker',
      ...node('worker/main.ts', {
        WORKER_CPU_NICE: process.env.WORKER_CPU_NICE ?? '10',
        WORKFLOW_BUNDLE_PATH: process.env.WORKFLOW_BUNDLE_PATH ?? (await cachedWorkflowBundle()),
      }),
    },
    { name: 'api', ...node('api/server.ts') },
  ],
  { log, logDir: LOG_DIR }
)

let stopping: Promise<void> | undefined
/** Stops the children (their grace time, then SIGKILL), then Temporal and the database, and exits with `code`. */
function shutdown(code: number): Promise<void> {
  stopping ??= (async () => {
    await supervisor.stop()
    await temporal.stop()
    await database.stop()
    process.exit(code)
  })()
  return stopping
}
// SIGHUP: the terminal was closed; its children got it too and must not be restarted.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(signal, () => {
    if (stopping) {
      log(`${signal} again: killing what is still running`)
      void supervisor.stop({ force: true })
      return
    }
    log(`${signal}: stopping the platform (${signal} again to kill at once)`)
    void shutdown(0)
  })
}
void supervisor.gaveUp.then((failure) => {
  process.stderr.write(`\n[start] ${failure.message}\n\n`)
  return shutdown(1)
})

const base = `http://localhost:${port}`
log(`API:          ${base}  (health: ${base}/health, OpenAPI: ${base}/openapi.json)`)
log(`Temporal UI:  ${temporal.uiUrl ?? '(external Temporal at ' + temporal.address + ')'}`)
log(`Database:     ${database.description}`)
log(
  `Outbound:     private networks ${env.OUTBOUND_ALLOW_PRIVATE_NETWORKS === 'true' ? 'allowed' : 'refused'}, plain http ${env.OUTBOUND_ALLOW_HTTP === 'true' ? 'allowed' : 'refused'} for webhooks, agent calls and SSO (local receivers; never in production: OUTBOUND_ALLOW_* unset)`
)
log(`Knowledge:    ${knowledge.summary}`)
log(`Logs:         ${LOG_DIR}/api.log, ${LOG_DIR}/worker.log (crashed processes are restarted; see the README)`)
if (demo) {
  log(`Demo tenant credentials (also in ${DEMO_FILE}):`)
  log(`  curl -s ${base}/oauth/token -H 'Content-Type: application/json' \\`)
  log(
    `    -d '{"grant_type":"client_credentials","client_id":"${demo.client_id}","client_secret":"${demo.client_secret}","scope":"children providers bookings"}'`
  )
  log(`  demo provider ${demo.providerId}, demo child ${demo.childId}`)
}
