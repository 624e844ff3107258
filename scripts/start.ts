/**
 * @module `npm start`: the whole platform on one machine with one command. Starts (or reuses) the database and the
 * Temporal dev server with its Web UI, applies migrations, seeds a demo tenant on an empty database, then runs the
 * API and the worker as child processes and stops everything on Ctrl-C.
 *
 * DATABASE_URL set: use that PostgreSQL; otherwise an embedded one (PGlite, data in .data/pglite).
 * TEMPORAL_ADDRESS set: use that Temporal; otherwise `temporal server start-dev` (data in .data/temporal).
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { closeDb, createDb } from '../infra/db.ts'
import { openLocalDatabase } from './db/local-database.ts'
import { seedDemo, type DemoCredentials } from './seed-demo.ts'
import { ensureTemporal } from './temporal/dev-server.ts'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const DEMO_FILE = '.data/demo-credentials.json'
const log = (message: string) => process.stderr.write(`[start] ${message}\n`)

const port = Number(process.env.PORT ?? 3000)
const database = await openLocalDatabase({ serve: true, log })
const temporal = await ensureTemporal({
  port: Number(process.env.TEMPORAL_PORT ?? 7233),
  uiPort: Number(process.env.TEMPORAL_UI_PORT ?? 8233),
  dbFile: '.data/temporal/temporal.db',
  log,
})

// The demo client's secret is shown once at creation; keep it beside the local data so later starts can show it.
const db = createDb(database.url, 2)
let demo: DemoCredentials | undefined
try {
  demo = await seedDemo(db)
  if (demo) {
    await mkdir('.data', { recursive: true })
    await writeFile(DEMO_FILE, JSON.stringify(demo, null, 2), { mode: 0o600 })
  } else {
    demo = (JSON.parse(await readFile(DEMO_FILE, 'utf8').catch(() => 'null')) as DemoCredentials | null) ?? undefined
  }
} finally {
  await closeDb(db)
}

const env = {
  ...process.env,
  NODE_ENV: process.env.NODE_ENV ?? 'development',
  DATABASE_URL: database.url,
  TEMPORAL_ADDRESS: temporal.address,
  TEMPORAL_NAMESPACE: temporal.namespace,
  PORT: String(port),
  // One embedded PGlite serves every connection in turn; a small pool per process is plenty.
  DATABASE_POOL_MAX: process.env.DATABASE_POOL_MAX ?? (database.started || !process.env.DATABASE_URL ? '4' : '10'),
}

const children: ChildProcess[] = []
let stopping = false
function run(role: string, entry: string) {
  const child = spawn(process.execPath, ['--import', 'tsx', entry], { cwd: ROOT, env, stdio: 'inherit' })
  child.on('exit', (code, signal) => {
    if (!stopping) {
      log(`${role} exited (${signal ?? code}); stopping the platform`)
      void shutdown(1)
    }
  })
  children.push(child)
}

async function shutdown(code = 0) {
  if (stopping) return
  stopping = true
  log('stopping')
  await Promise.all(
    children.map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve()
          child.once('exit', () => resolve())
          child.kill('SIGTERM')
        })
    )
  )
  await temporal.stop()
  await database.stop()
  process.exit(code)
}
process.on('SIGINT', () => void shutdown())
process.on('SIGTERM', () => void shutdown())

run('worker', 'worker/main.ts')
run('api', 'api/server.ts')

const base = `http://localhost:${port}`
log(`API:          ${base}  (health: ${base}/health, OpenAPI: ${base}/openapi.json)`)
log(`Temporal UI:  ${temporal.uiUrl ?? '(external Temporal at ' + temporal.address + ')'}`)
log(`Database:     ${database.started ? 'embedded PGlite (.data/pglite)' : 'DATABASE_URL / running embedded server'}`)
if (demo) {
  log('Demo tenant credentials (also in .data/demo-credentials.json):')
  log(`  curl -s ${base}/oauth/token -H 'Content-Type: application/json' \\`)
  log(
    `    -d '{"grant_type":"client_credentials","client_id":"${demo.client_id}","client_secret":"${demo.client_secret}","scope":"children providers bookings"}'`
  )
  log(`  demo provider ${demo.providerId}, demo child ${demo.childId}`)
}
