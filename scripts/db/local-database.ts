/**
 * @module "The database": DATABASE_URL when set; otherwise the embedded PostgreSQL (PGlite) that `npm start` serves
 * on EMBEDDED_DB_PORT, or, when nothing is serving it, the same data directory opened by this process.
 */
import net from 'node:net'
import { startEmbeddedPostgres } from './embedded-postgres.ts'
import { applyMigrations } from './migrations.ts'

export const EMBEDDED_DATA_DIR = '.data/pglite'
export const embeddedPort = (env: Readonly<Record<string, string | undefined>> = process.env) =>
  Number(env.EMBEDDED_DB_PORT ?? 5433)

export interface LocalDatabase {
  url: string
  /** Whether this process started the embedded server (and `stop()` ends it). */
  started: boolean
  stop(): Promise<void>
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
 * @param options.env - where DATABASE_URL and EMBEDDED_DB_PORT are read (default `process.env`)
 */
export async function openLocalDatabase(
  options: { serve?: boolean; log?: (m: string) => void; env?: Readonly<Record<string, string | undefined>> } = {}
): Promise<LocalDatabase> {
  const log = options.log ?? (() => undefined)
  const env = options.env ?? process.env
  const port = embeddedPort(env)
  let database: LocalDatabase
  if (env.DATABASE_URL) {
    database = { url: env.DATABASE_URL, started: false, stop: async () => undefined }
  } else if (await isListening(port)) {
    database = {
      url: `postgresql://postgres:postgres@127.0.0.1:${port}/postgres?sslmode=disable`,
      started: false,
      stop: async () => undefined,
    }
  } else {
    const embedded = await startEmbeddedPostgres({ dataDir: EMBEDDED_DATA_DIR, port: options.serve ? port : 0 })
    log(`embedded PostgreSQL (PGlite) serving ${EMBEDDED_DATA_DIR} on port ${embedded.port}`)
    database = { url: embedded.connectionString, started: true, stop: () => embedded.stop() }
  }
  const { applied } = await applyMigrations(database.url)
  if (applied.length) log(`applied migrations: ${applied.join(', ')}`)
  return database
}
