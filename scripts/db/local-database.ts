/**
 * @module "The database": DATABASE_URL when set; otherwise the embedded PostgreSQL (PGlite) that `npm start` serves
 * on EMBEDDED_DB_PORT, or, when nothing is serving it, the same data directory (`<START_DATA_DIR>/pglite`) opened by
 * this process. A data directory that does not exist yet starts as a copy of the migrated cluster kept in the project
 * cache (cluster-cache.ts), made there once per version of the migrations.
 */
import { existsSync, readdirSync } from 'node:fs'
import net from 'node:net'
import { join } from 'node:path'
import type { DatabaseLogins } from '../../infra/db.ts'

type Env = Readonly<Record<string, string | undefined>>

/** Where `npm start` keeps its local state (embedded database, Temporal's SQLite file, logs): START_DATA_DIR. */
export const startDataDir = (env: Env = process.env) => env.START_DATA_DIR || '.data'
/** The embedded database's data directory, inside {@link startDataDir}. */
export const embeddedDataDir = (env: Env = process.env) => join(startDataDir(env), 'pglite')
export const embeddedPort = (env: Env = process.env) => Number(env.EMBEDDED_DB_PORT ?? 5433)

export interface LocalDatabase {
  /** The owner's URL: migrations, the operator commands, the demo tenant's seed. */
  url: string
  /**
   * What the platform's processes log in as (infra/db.ts): on a PostgreSQL server, when asked for, two ordinary
   * logins made here (application-logins.ts); the embedded database's one login otherwise.
   */
  logins: DatabaseLogins
  /** Whether this process started the embedded server (and `stop()` ends it). */
  started: boolean
  /** What the database is, in words for a summary line: which server, where; never the password. */
  description: string
  stop(): Promise<void>
}

/**
 * A PostgreSQL URL named plainly: `PostgreSQL server therapy@127.0.0.1:5432/therapy (DATABASE_URL)`, without its
 * password or parameters. A URL that does not parse is named only as DATABASE_URL.
 */
export function describeDatabaseUrl(url: string): string {
  try {
    const { username, hostname, port, pathname } = new URL(url)
    const user = username ? `${decodeURIComponent(username)}@` : ''
    return `PostgreSQL server ${user}${hostname}:${port || '5432'}${pathname || '/'} (DATABASE_URL)`
  } catch {
    return 'PostgreSQL server (DATABASE_URL, not a URL this summary can read)'
  }
}

const isListening = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port })
    socket.once('connect', () => {
      socket.destroy()
      resolve(true)
    })
    socket.once('error', () => resolve(false))
  })

/**
 * Resolves the database to use and brings its schema up to date.
 * @param options.serve - start the embedded server on its fixed port (for `npm start`) rather than a free one
 * @param options.env - where DATABASE_URL, EMBEDDED_DB_PORT and START_DATA_DIR are read (default `process.env`)
 * @param options.logins - on a PostgreSQL server, make the platform's two logins (`npm start`)
 * @param options.migrateServer - apply pending migrations to a PostgreSQL server too (default true); the operator
 *   commands say false, as they may run under the platform's own logins, which cannot migrate
 */
export async function openLocalDatabase(
  options: { serve?: boolean; log?: (m: string) => void; env?: Env; logins?: boolean; migrateServer?: boolean } = {}
): Promise<LocalDatabase> {
  const log = options.log ?? (() => undefined)
  const env = options.env ?? process.env
  const port = embeddedPort(env)
  let database: Omit<LocalDatabase, 'logins'>
  // A copy of the cached cluster of these migrations is up to date by construction: nothing to apply.
  let migrated = false
  if (env.DATABASE_URL) {
    database = {
      url: env.DATABASE_URL,
      started: false,
      description: describeDatabaseUrl(env.DATABASE_URL),
      stop: async () => undefined,
    }
  } else if (await isListening(port)) {
    database = {
      url: `postgresql://postgres:postgres@127.0.0.1:${port}/postgres?sslmode=disable`,
      started: false,
      description: `embedded PGlite served by another process on port ${port} (EMBEDDED_DB_PORT; another npm start)`,
      stop: async () => undefined,
    }
  } else {
    // PGlite and Prisma's schema engine are loaded when used: `npm start` reads startDataDir() before it starts the API.
    const { startEmbeddedPostgres } = await import('./embedded-postgres.ts')
    const { migratedCluster } = await import('./cluster-cache.ts')
    const dataDir = embeddedDataDir(env)
    const cluster = isNewDataDir(dataDir) ? await migratedCluster({ log }) : undefined
    if (cluster?.applied.length) log(`applied migrations: ${cluster.applied.join(', ')}`)
    const embedded = await startEmbeddedPostgres({
      dataDir,
      port: options.serve ? port : 0,
      log,
      templateDir: cluster?.dir,
    })
    migrated = embedded.fromTemplate
    const copied = embedded.fromTemplate ? ` (new: a copy of the migrated cluster ${cluster?.dir})` : ''
    log(`embedded PostgreSQL (PGlite) serving ${dataDir} on port ${embedded.port}${copied}`)
    database = {
      url: embedded.connectionString,
      started: true,
      description: `embedded PGlite (${dataDir}) on port ${embedded.port}`,
      stop: () => embedded.stop(),
    }
  }
  if (!migrated && (options.migrateServer !== false || !env.DATABASE_URL)) {
    // Prisma's schema engine is loaded only when migrations may have to be applied.
    const { applyMigrations } = await import('./migrations.ts')
    const { applied } = await applyMigrations(database.url)
    if (applied.length) log(`applied migrations: ${applied.join(', ')}`)
  }
  if (options.logins && env.DATABASE_URL) {
    const { derivedLogins, provisionApplicationLogins } = await import('./application-logins.ts')
    const logins = derivedLogins(database.url)
    await provisionApplicationLogins(database.url, logins)
    return { ...database, logins }
  }
  return { ...database, logins: { system: database.url, units: database.url } }
}

/** Whether `dataDir` holds no cluster yet: absent or empty (as a start stopped before creating one leaves it). */
function isNewDataDir(dataDir: string): boolean {
  return !existsSync(dataDir) || readdirSync(dataDir).length === 0
}
