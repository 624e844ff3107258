/**
 * @module The database a benchmark measures, placed as a deployment places it. With BENCH_DATABASE_URL, a scratch
 * database on that PostgreSQL server. Without it, the embedded PGlite as `npm start` runs it: served by a process of
 * its own (scripts/db/embedded-postgres.ts, persisting to a data directory), not by the benchmark's process, which
 * also hosts the API and the load. PGlite runs every statement on one thread; sharing that thread with the API's
 * request handling measured a topology nobody runs. BENCH_EMBEDDED=in-process keeps the earlier placement, to compare.
 */
import { spawn } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { applyMigrations } from '../scripts/db/migrations.ts'
import { freePort } from '../scripts/start/start-process.ts'
import { provisionTestDatabase, type TestDatabase } from '../scripts/db/test-database.ts'

const ROOT = fileURLToPath(new URL('..', import.meta.url))

/** Where the embedded database ran: its own process, as `npm start` runs it, or inside the benchmark's process. */
export type EmbeddedPlacement = 'process' | 'in-process'

export interface BenchDatabase extends TestDatabase {
  /** Only for PGlite. */
  placement?: EmbeddedPlacement
}

/** The benchmark's database (see the module comment); `BENCH_DATABASE_URL` must already be in TEST_DATABASE_URL. */
export async function provisionBenchDatabase(env = process.env): Promise<BenchDatabase> {
  if (env.TEST_DATABASE_URL || env.BENCH_EMBEDDED === 'in-process') {
    const database = await provisionTestDatabase()
    return database.kind === 'pglite' ? { ...database, placement: 'in-process' } : database
  }
  return startEmbeddedProcess()
}

/** Starts scripts/db/embedded-postgres.ts on a fresh data directory and a free port, and migrates it. */
async function startEmbeddedProcess(): Promise<BenchDatabase> {
  const dataRoot = await mkdtemp(join(os.tmpdir(), 'bench-pglite-'))
  const port = await freePort()
  // Through tsx, as `npm run db:embedded` runs it: the wire server uses syntax that Node's type stripping refuses.
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/db/embedded-postgres.ts'], {
    cwd: ROOT,
    env: { ...process.env, START_DATA_DIR: dataRoot, EMBEDDED_DB_PORT: String(port) },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  const url = await new Promise<string>((resolve, reject) => {
    let output = ''
    let serving = false
    child.stdout.on('data', (chunk: Buffer) => {
      const text = chunk.toString('utf8')
      if (serving) {
        // What it logs while serving (maintenance statements over 250 ms, which hold the one backend) belongs in the
        // run's log, next to the figures it moves.
        for (const line of text.split('\n')) if (line.trim()) process.stderr.write(`[embedded database] ${line}\n`)
        return
      }
      output += text
      const found = /^DATABASE_URL=(\S+)$/m.exec(output)
      if (found) {
        serving = true
        resolve(found[1]!)
      }
    })
    child.once('exit', (code) => reject(new Error(`the embedded database exited (${code}) before serving: ${output}`)))
  })
  await applyMigrations(url)
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  return {
    url,
    logins: { system: url, units: url },
    kind: 'pglite',
    placement: 'process',
    async stop() {
      child.kill('SIGTERM')
      await exited
      await rm(dataRoot, { recursive: true, force: true })
    },
  }
}

/** Whether the database's CPU is counted with the API's: PGlite inside the benchmark's process. */
export const databaseInApi = (kind: TestDatabase['kind'], placement?: EmbeddedPlacement) =>
  kind === 'pglite' && placement !== 'process'

/** The database, as a report's machine line names it (figures from before the placement was kept: in the API). */
export function describeDatabase(kind: TestDatabase['kind'], placement?: EmbeddedPlacement): string {
  if (kind === 'postgresql') return 'PostgreSQL 15 server'
  return databaseInApi(kind, placement)
    ? 'embedded PGlite (served from the API process: its CPU is in the API column; `BENCH_EMBEDDED=in-process`)'
    : 'embedded PGlite served by a process of its own, as `npm start` runs it (its CPU is the PostgreSQL column)'
}
