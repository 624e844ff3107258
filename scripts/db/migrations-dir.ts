import type { Dirent } from 'node:fs'
import { readdir, readFile } from 'node:fs/promises'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

import type { MigrationDirectory, MigrationList } from '@prisma/schema-engine-wasm/schema_engine_bg'

/** `prisma/migrations` of this repository (as configured in prisma.config.ts). */
export const defaultMigrationsDir = fileURLToPath(new URL('../../prisma/migrations', import.meta.url))

/** `prisma/schema.prisma` of this repository. */
export const defaultSchemaPath = fileURLToPath(new URL('../../prisma/schema.prisma', import.meta.url))

export const lockfileName = 'migration_lock.toml'
export const migrationFileName = 'migration.sql'

/**
 * Reads a Prisma migrations folder the way the Prisma CLI does (same shape, same sorting), so that names and
 * checksums recorded in `_prisma_migrations` match what `prisma migrate deploy` computes.
 */
export async function readMigrationsList(migrationsDir: string = defaultMigrationsDir): Promise<MigrationList> {
  const baseDir = path.resolve(migrationsDir)
  const lockfileContent = await readFile(path.join(baseDir, lockfileName), 'utf8').catch(() => null)

  let entries: Dirent[] = []
  try {
    entries = await readdir(baseDir, { withFileTypes: true })
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
  }

  const migrationDirectories: MigrationDirectory[] = []
  for (const entry of entries.filter((e) => e.isDirectory())) {
    const content = await readFile(path.join(baseDir, entry.name, migrationFileName), 'utf8').then(
      (value) => ({ tag: 'ok' as const, value }),
      (error: Error) => ({ tag: 'error' as const, value: error.message })
    )
    migrationDirectories.push({ path: entry.name, migrationFile: { path: migrationFileName, content } })
  }
  migrationDirectories.sort((a, b) => a.path.localeCompare(b.path))

  return {
    baseDir,
    lockfile: { path: lockfileName, content: lockfileContent },
    shadowDbInitScript: '',
    migrationDirectories,
  }
}
