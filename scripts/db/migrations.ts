/**
 * Applies the committed Prisma migrations without the Prisma CLI (whose native schema engine cannot be
 * downloaded here), with the same bookkeeping as `prisma migrate deploy`.
 */
import { performance } from 'node:perf_hooks'
import pg from 'pg'

import { createEngineAdapterFactory } from './engine-adapter.ts'
import { defaultMigrationsDir, readMigrationsList } from './migrations-dir.ts'
import { noExternalEntities, withSchemaEngine } from './schema-engine.ts'
import { withSharedSessionLock } from './shared-session-lock.ts'

/** Options of {@link applyMigrations}. */
export interface ApplyMigrationsOptions {
  /** Receives progress messages and the schema engine's log; without it, applying is silent. */
  log?: (msg: string) => void
  /** Folder in Prisma's layout; defaults to this repository's `prisma/migrations`. */
  migrationsDir?: string
}

/**
 * Applies every migration under `prisma/migrations` that the database has not recorded yet, in name order.
 *
 * Uses Prisma's WASM schema engine (`applyMigrations`, the command behind `prisma migrate deploy`), so
 * `_prisma_migrations` gets the same rows, names and checksums, and a later real `prisma migrate deploy` or
 * `prisma migrate status` sees these migrations as applied. Each migration script runs as one implicit
 * transaction. A no-op returning `applied: []` (a few tens of ms) when the database is up to date.
 *
 * Safe to call from several processes at once: on PostgreSQL the engine's advisory lock serialises them; on
 * the embedded PGlite server, where advisory locks exclude nobody, a lock in the shared session does. As with
 * Prisma, use a direct connection, not a transaction-pooling proxy (PgBouncer), which breaks session locks.
 *
 * @param connectionString - `postgresql://` URL of the database to migrate.
 * @returns names of the migrations applied by this call (e.g. `20250101120000_init`).
 * @throws if a migration fails (it is then recorded as failed and its script rolled back, as with
 *   `prisma migrate deploy`), if an earlier failed migration is recorded (resolve it first), or if
 *   migration_lock.toml names another provider. Like `migrate deploy`, it does not check whether applied
 *   migrations were edited since.
 */
export async function applyMigrations(
  connectionString: string,
  opts: ApplyMigrationsOptions = {}
): Promise<{ applied: string[] }> {
  const { log } = opts
  const started = performance.now()
  const migrationsList = await readMigrationsList(opts.migrationsDir ?? defaultMigrationsDir)
  log?.(`${migrationsList.migrationDirectories.length} migration(s) in ${migrationsList.baseDir}`)

  const lockOptions = { name: 'app_migrations.lock', log }
  const applied = await withSharedSessionLock(connectionString, lockOptions, async () => {
    const factory = createEngineAdapterFactory(connectionString)
    try {
      return await withSchemaEngine(factory, log, async (engine) => {
        const result = await engine.applyMigrations({ migrationsList, filters: noExternalEntities })
        return result.appliedMigrationNames
      })
    } finally {
      // Closing the engine's connection is what releases its session-level advisory lock.
      await factory.closeAll()
    }
  })

  // What a migration made belongs to the NOLOGIN owner (migration 20261127110000_nologin_owner), not to this login.
  if (applied.length > 0) await assignOwner(connectionString)

  const ms = Math.round(performance.now() - started)
  log?.(applied.length === 0 ? `up to date (${ms} ms)` : `applied ${applied.join(', ')} (${ms} ms)`)
  return { applied }
}

/** Hands what the migrating login made to therapy_owner, once the migration that defines the function has run. */
async function assignOwner(connectionString: string): Promise<void> {
  const client = new pg.Client({ connectionString })
  await client.connect()
  try {
    const { rows } = await client.query<{ defined: boolean }>(
      "SELECT to_regprocedure('app_assign_owner()') IS NOT NULL AS defined"
    )
    if (rows[0]?.defined) await client.query('SELECT app_assign_owner()')
  } finally {
    await client.end()
  }
}
