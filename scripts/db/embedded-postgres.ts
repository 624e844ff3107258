/**
 * Embedded PostgreSQL for development and tests: PGlite (PostgreSQL 17 compiled to WASM) served over the
 * PostgreSQL wire protocol, so `pg`, `@prisma/adapter-pg` and `psql` can talk to it like to a real server.
 *
 * Run directly (`npm run db:embedded`) it serves `<START_DATA_DIR>/pglite` (default `.data/pglite`, the directory
 * `npm start` uses) on EMBEDDED_DB_PORT (default 5433).
 */
import { spawn } from 'node:child_process'
import { constants } from 'node:fs'
import { cp, mkdir, readdir, readFile, rename, rm, rmdir, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

import { PGlite, type Extensions } from '@electric-sql/pglite'
import { btree_gin } from '@electric-sql/pglite/contrib/btree_gin'
import { btree_gist } from '@electric-sql/pglite/contrib/btree_gist'
import { citext } from '@electric-sql/pglite/contrib/citext'
import { fuzzystrmatch } from '@electric-sql/pglite/contrib/fuzzystrmatch'
import { hstore } from '@electric-sql/pglite/contrib/hstore'
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm'
import { pgcrypto } from '@electric-sql/pglite/contrib/pgcrypto'
import { unaccent } from '@electric-sql/pglite/contrib/unaccent'
import { uuid_ossp } from '@electric-sql/pglite/contrib/uuid_ossp'
import { vector } from '@electric-sql/pglite/vector'

import { WORKER_APPLICATION_NAME } from '../../infra/application-names.ts'
import { startEmbeddedMaintenance } from './embedded-maintenance.ts'
import { servePGlite } from './pglite-wire-server.ts'

/** Options of {@link startEmbeddedPostgres}. */
export interface EmbeddedPostgresOptions {
  /** Directory that keeps the data between runs; `undefined` keeps everything in memory. */
  dataDir?: string
  /** TCP port to listen on; `0` (the default) picks a free one. */
  port?: number
  /** Interface to listen on; defaults to `127.0.0.1`. */
  host?: string
  /** Concurrent client connections the server accepts; defaults to 100. */
  maxConnections?: number
  /** A data directory dumped by {@link EmbeddedPostgres.dump} to start from (tests clone a migrated database). */
  loadDataDir?: Blob
  /**
   * A closed cluster directory to start from when `dataDir` does not exist yet or is empty: `dataDir` becomes a copy
   * of it (the migrated cluster `npm start` keeps in the project cache, cluster-cache.ts) instead of a new cluster.
   */
  templateDir?: string
  /**
   * Between two runs of `VACUUM (ANALYZE)`, which PGlite has no autovacuum to do (embedded-maintenance.ts); default
   * EMBEDDED_DB_VACUUM_INTERVAL_MS or 30 s, `0` never.
   */
  vacuumIntervalMs?: number
  /**
   * Connections served behind the others (pglite-wire-server.ts); by default the worker's
   * (infra/application-names.ts), so requests do not queue behind webhook deliveries and workflow steps.
   */
  backgroundApplications?: readonly string[]
  /** Where maintenance reports slow runs and failures. */
  log?: (message: string) => void
}

/** A running embedded server. */
export interface EmbeddedPostgres {
  /** `postgresql://` URL usable by `pg` and `new PrismaPg({ connectionString })`. */
  connectionString: string
  /** The port actually listened on (useful with `port: 0`). */
  port: number
  /** Closes client connections, the listener and the database (flushing a persistent data dir). */
  stop: () => Promise<void>
  /** The whole data directory as an uncompressed tarball, for {@link EmbeddedPostgresOptions.loadDataDir}. */
  dump: () => Promise<Blob>
  /** Whether `dataDir` was made now as a copy of {@link EmbeddedPostgresOptions.templateDir}. */
  fromTemplate: boolean
}

/**
 * Extensions that `CREATE EXTENSION` can enable. PGlite can only load extensions that were registered when it
 * started, so this registers the ones the platform is likely to need (vector search, crypto, fuzzy text
 * search, exclusion constraints over ranges) rather than only those used today. The SQL names differ for
 * some: `uuid_ossp` is `"uuid-ossp"`.
 */
const extensions = {
  vector,
  pgcrypto,
  uuid_ossp,
  pg_trgm,
  citext,
  btree_gist,
  btree_gin,
  hstore,
  fuzzystrmatch,
  unaccent,
} satisfies Extensions

/**
 * Starts PGlite (in memory, or persisted in `opts.dataDir`) and serves it on `opts.host:opts.port`.
 *
 * PGlite is a single backend: every client connection shares one session (settings, advisory locks), and
 * statements run one at a time. While one connection is inside a transaction, statements of the other
 * connections wait until it ends, so keep transactions short, and never wait inside a transaction for a query
 * on another connection (it would wait for itself). Each client's Parse/Bind/Execute/Sync exchange is kept
 * together (see {@link servePGlite}).
 */
export async function startEmbeddedPostgres(opts: EmbeddedPostgresOptions = {}): Promise<EmbeddedPostgres> {
  const host = opts.host ?? '127.0.0.1'
  const unlock = opts.dataDir === undefined ? async () => {} : await lockDataDir(opts.dataDir)
  let fromTemplate = false
  if (opts.dataDir !== undefined && opts.templateDir !== undefined && (await readdir(opts.dataDir)).length === 0) {
    await copyCluster(opts.templateDir, opts.dataDir).catch(async (error: unknown) => {
      await unlock()
      throw error
    })
    fromTemplate = true
  }

  // Options-object form: PGlite.create(undefined, options) silently ignores `options`, extensions included.
  const db = await PGlite.create({ dataDir: opts.dataDir, extensions, loadDataDir: opts.loadDataDir }).catch(
    async (error: unknown) => {
      await unlock()
      throw error
    }
  )
  const server = await servePGlite(db, {
    host,
    port: opts.port ?? 0,
    maxConnections: opts.maxConnections ?? 100,
    backgroundApplications: opts.backgroundApplications ?? [WORKER_APPLICATION_NAME],
  }).catch(async (error: unknown) => {
    // Listen errors (EADDRINUSE, EACCES).
    await db.close()
    await unlock()
    throw error
  })

  const port = server.port
  // PGlite accepts any user and password. sslmode=disable: the server does not speak TLS.
  const url = new URL(`postgresql://postgres:postgres@${clientHost(host)}:${port}/postgres`)
  url.searchParams.set('sslmode', 'disable')
  const connectionString = url.toString()
  const vacuumIntervalMs = opts.vacuumIntervalMs ?? Number(process.env.EMBEDDED_DB_VACUUM_INTERVAL_MS ?? 30_000)
  const stopMaintenance =
    vacuumIntervalMs > 0
      ? startEmbeddedMaintenance({ connectionString, intervalMs: vacuumIntervalMs, log: opts.log })
      : async () => undefined

  let stopping: Promise<void> | undefined
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      await stopMaintenance()
      await server.close()
      await db.close()
      await unlock()
    })()
    return stopping
  }
  return { connectionString, port, stop, dump: () => db.dumpDataDir('none'), fromTemplate }
}

/**
 * Makes the empty `dataDir` a copy of the cluster in `templateDir`: copied beside it, then renamed into place, so a
 * copy cut short leaves `dataDir` empty (the next start copies again) rather than half a cluster. GNU cp where there is
 * one (a clone on file systems that have them, else 0.2 s for the 40 MB), else Node's copy.
 */
async function copyCluster(templateDir: string, dataDir: string): Promise<void> {
  const partial = `${path.resolve(dataDir)}.copying-${process.pid}`
  await rm(partial, { recursive: true, force: true })
  try {
    const copied =
      process.platform === 'linux' &&
      (await new Promise<boolean>((resolve) => {
        const child = spawn('cp', ['-a', '--reflink=auto', templateDir, partial], { stdio: 'ignore' })
        child.once('error', () => resolve(false))
        child.once('exit', (code) => resolve(code === 0))
      }))
    if (!copied) {
      await rm(partial, { recursive: true, force: true })
      await cp(templateDir, partial, { recursive: true, mode: constants.COPYFILE_FICLONE })
    }
    await rmdir(dataDir)
    await rename(partial, dataDir)
  } catch (error) {
    await rm(partial, { recursive: true, force: true })
    throw error
  }
}

/**
 * Claims `dataDir` for this process with a `<dataDir>.lock` file holding our pid, and returns the release.
 *
 * Why: PGlite does not lock its data directory; a second instance opened on the same directory runs happily
 * and the two overwrite each other's files. A lock left by a process that no longer runs is taken over.
 */
async function lockDataDir(dataDir: string): Promise<() => Promise<void>> {
  await mkdir(dataDir, { recursive: true })
  const lockPath = `${path.resolve(dataDir)}.lock`
  for (;;) {
    try {
      await writeFile(lockPath, `${process.pid}\n`, { flag: 'wx' })
      return () => rm(lockPath, { force: true })
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    }
    const owner = Number((await readFile(lockPath, 'utf8').catch(() => '')).trim())
    if (Number.isInteger(owner) && owner > 0 && isRunning(owner)) {
      throw new Error(`${dataDir} is in use by process ${owner} (remove ${lockPath} if that is wrong)`)
    }
    await rm(lockPath, { force: true })
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    // EPERM: it exists but belongs to another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/** A wildcard listen address is not a destination; clients reach it through loopback. */
function clientHost(host: string): string {
  if (host === '0.0.0.0' || host === '') return '127.0.0.1'
  if (host === '::') return '[::1]'
  return host.includes(':') ? `[${host}]` : host
}

async function main(): Promise<void> {
  const port = Number(process.env.EMBEDDED_DB_PORT ?? 5433)
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`bad EMBEDDED_DB_PORT: ${port}`)
  const dataDir = path.resolve(process.env.START_DATA_DIR || '.data', 'pglite')

  const pg = await startEmbeddedPostgres({ dataDir, port, log: (message) => console.log(message) })
  console.log(`embedded PostgreSQL (PGlite) serving ${dataDir}`)
  console.log(`DATABASE_URL=${pg.connectionString}`)

  const shutdown = (signal: string): void => {
    console.log(`${signal}: stopping`)
    pg.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error(error)
        process.exit(1)
      }
    )
  }
  process.once('SIGINT', shutdown)
  process.once('SIGTERM', shutdown)
}

const invokedDirectly =
  process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)
if (invokedDirectly) {
  main().catch((error: unknown) => {
    console.error(error)
    process.exit(1)
  })
}
