/**
 * @module The embedded database's cluster, created and migrated once and kept in the project cache
 * (`${XDG_CACHE_HOME:-~/.cache}/therapy-care/embedded-cluster/<key>`), so that a fresh data directory starts as a copy
 * of it: creating a PGlite cluster (initdb, in WebAssembly) and applying every migration took 15 of a warm `npm start`'s
 * 28 s; the copy takes under one.
 *
 * The key is the content of the migrations folder (every file's name and content) and the versions of PGlite and of
 * Prisma's schema engine, so a changed, added or removed migration, or an upgrade, files a new entry and an old one is
 * never used. An entry is built aside (`<key>.partial-<pid>-<random>`) and renamed into place: two starts building at
 * once each finish, one entry stays, and nothing ever copies half a cluster. Clear it with
 * `rm -rf ~/.cache/therapy-care/embedded-cluster` (docs/operations.md, "Start-up").
 */
import { randomBytes } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { mkdir, readdir, rename, rm, stat, utimes } from 'node:fs/promises'
import { createRequire } from 'node:module'
import path from 'node:path'

import { contentKey, filesUnder, projectCacheDir } from '../../infra/project-cache.ts'
import { startEmbeddedPostgres } from './embedded-postgres.ts'
import { defaultMigrationsDir } from './migrations-dir.ts'

/** Says how an entry is made; changed when that changes (the PGlite options, the extensions a cluster is made with). */
const RECIPE = 'embedded-cluster 1: PGlite with the platform extensions, migrated with scripts/db/migrations.ts'
/** Entries of other keys kept: a branch with other migrations, and back, should not build again. */
const KEEP = 3
/** An entry beyond {@link KEEP} is removed only when unused this long: a start may be copying it right now. */
const UNUSED_MS = 60 * 60 * 1000

const ENTRY = /^[0-9a-f]{32}$/
const PARTIAL = /^[0-9a-f]{32}\.partial-(\d+)-[0-9a-f]+$/

/** Where the entries are: `<project cache>/embedded-cluster`. */
const clusterCacheRoot = () => projectCacheDir('embedded-cluster')

/** The version of an installed package, from the package.json above its entry point (neither "exports" lists it). */
function packageVersion(name: string): string {
  let dir = path.dirname(createRequire(import.meta.url).resolve(name))
  for (;;) {
    try {
      const manifest = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as {
        name?: string
        version: string
      }
      if (manifest.name === name) return manifest.version
    } catch {
      // No package.json here (dist/): look further up.
    }
    if (path.dirname(dir) === dir) throw new Error(`no package.json of ${name} above its entry point`)
    dir = path.dirname(dir)
  }
}

/** What besides the migrations decides the cluster: the PGlite build and the engine that records the migrations. */
export const engineVersions = (): string[] => [
  `@electric-sql/pglite ${packageVersion('@electric-sql/pglite')}`,
  `@prisma/schema-engine-wasm ${packageVersion('@prisma/schema-engine-wasm')}`,
]

/**
 * The key of the cluster the migrations in `migrationsDir` make.
 * @param options.versions - the engines' versions (default {@link engineVersions}); tests pass their own
 */
export function clusterCacheKey(options: { migrationsDir?: string; versions?: readonly string[] } = {}): string {
  const migrationsDir = options.migrationsDir ?? defaultMigrationsDir
  return contentKey([RECIPE, ...(options.versions ?? engineVersions())], migrationsDir, filesUnder(migrationsDir))
}

/** A migrated cluster in the cache, ready to be copied. */
export interface CachedCluster {
  /** The entry's directory: a closed, migrated PGlite data directory. Read only: copy it, never open it. */
  dir: string
  key: string
  /** The migrations this call applied (it built the entry), else empty (the entry was there). */
  applied: string[]
}

/**
 * The migrated cluster of the current migrations, built into the cache first when it has none.
 * @param options.cacheRoot - where entries are kept (default {@link clusterCacheRoot})
 * @returns the entry, or undefined when the cache cannot be written (a read-only home): the caller makes its own
 * @throws when a migration fails (nothing is kept then)
 */
export async function migratedCluster(
  options: { cacheRoot?: string; migrationsDir?: string; log?: (message: string) => void } = {}
): Promise<CachedCluster | undefined> {
  const log = options.log ?? (() => undefined)
  const root = options.cacheRoot ?? clusterCacheRoot()
  const migrationsDir = options.migrationsDir ?? defaultMigrationsDir
  const key = clusterCacheKey({ migrationsDir })
  try {
    await mkdir(root, { recursive: true })
  } catch (error) {
    log(`no embedded cluster cache (${(error as Error).message}): creating the cluster in place`)
    return undefined
  }
  let applied: string[] = []
  const started = performance.now()
  const entry = await fillCacheEntry(path.join(root, key), async (dir) => {
    log(`creating the embedded cluster once and keeping it in ${root} (later fresh starts copy it)`)
    // `migrations.ts` loads Prisma's schema engine: only when a cluster is made.
    const { applyMigrations } = await import('./migrations.ts')
    const embedded = await startEmbeddedPostgres({ dataDir: dir, port: 0, vacuumIntervalMs: 0 })
    try {
      ;({ applied } = await applyMigrations(embedded.connectionString, { migrationsDir }))
    } finally {
      // Closed cleanly: the copies start from a shut-down cluster, with nothing to recover.
      await embedded.stop()
    }
  })
  if (entry.built) log(`embedded cluster ${key} made in ${((performance.now() - started) / 1000).toFixed(1)} s`)
  await pruneClusterCache(root, key)
  return { dir: entry.dir, key, applied: entry.built ? applied : [] }
}

/**
 * Makes the cache entry `entry` (a directory) with `build` unless it exists. `build` fills a private directory beside
 * it, which is then renamed into place: an entry either does not exist or is whole. When another process put the entry
 * in place first, its entry is kept and this build is discarded.
 * @returns the entry, and whether this call built it
 * @throws what `build` throws (its partial directory is removed)
 */
export async function fillCacheEntry(
  entry: string,
  build: (dir: string) => Promise<void>
): Promise<{ dir: string; built: boolean }> {
  if (await exists(entry)) {
    // Used now: the last to be removed.
    const now = new Date()
    await utimes(entry, now, now).catch(() => undefined)
    return { dir: entry, built: false }
  }
  const partial = `${entry}.partial-${process.pid}-${randomBytes(4).toString('hex')}`
  try {
    await build(partial)
    await rename(partial, entry)
    return { dir: entry, built: true }
  } catch (error) {
    await removeDir(partial)
    const code = (error as NodeJS.ErrnoException).code
    // Another process renamed its build into place first (ENOTEMPTY on Linux, EEXIST elsewhere): use that one.
    if ((code === 'ENOTEMPTY' || code === 'EEXIST') && (await exists(entry))) return { dir: entry, built: false }
    throw error
  }
}

/**
 * Removes what a cache root should not keep: partial builds of processes no longer running (a start killed while
 * building), and entries beyond the {@link KEEP} most recently used that nobody used for an hour. `current` stays.
 */
export async function pruneClusterCache(root: string, current: string): Promise<void> {
  const names = await readdir(root).catch(() => [] as string[])
  for (const name of names) {
    const pid = PARTIAL.exec(name)?.[1]
    if (pid && !isRunning(Number(pid))) {
      await removeDir(path.join(root, name))
      await rm(path.join(root, `${name}.lock`), { force: true })
    }
  }
  const entries = await Promise.all(
    names
      .filter((name) => ENTRY.test(name) && name !== current)
      .map(async (name) => ({ name, usedAt: (await stat(path.join(root, name)).catch(() => undefined))?.mtimeMs ?? 0 }))
  )
  entries.sort((a, b) => b.usedAt - a.usedAt)
  for (const old of entries.slice(KEEP - 1)) {
    if (Date.now() - old.usedAt > UNUSED_MS) await removeDir(path.join(root, old.name))
  }
}

const exists = (dir: string) =>
  stat(dir).then(
    () => true,
    () => false
  )

const removeDir = (dir: string) => rm(dir, { recursive: true, force: true, maxRetries: 3 })

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}
