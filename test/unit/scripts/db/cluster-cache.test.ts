import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from 'node:fs'
import { mkdir, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  clusterCacheKey,
  engineVersions,
  fillCacheEntry,
  pruneClusterCache,
} from '../../../../scripts/db/cluster-cache.ts'

let root: string

beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), 'cluster-cache-test-'))
})

afterEach(() => {
  rmSync(root, { recursive: true, force: true })
})

/** A migrations folder in Prisma's layout with the given migrations (name → SQL). */
function migrations(name: string, scripts: Record<string, string>): string {
  const dir = path.join(root, name)
  mkdirSync(dir, { recursive: true })
  writeFileSync(path.join(dir, 'migration_lock.toml'), 'provider = "postgresql"\n')
  for (const [migration, sql] of Object.entries(scripts)) {
    mkdirSync(path.join(dir, migration))
    writeFileSync(path.join(dir, migration, 'migration.sql'), sql)
  }
  return dir
}

const versions = ['@electric-sql/pglite 0.4.6', '@prisma/schema-engine-wasm 7.10.0']
const init = { '20260101000000_init': 'CREATE TABLE tenant (id text PRIMARY KEY);' }

describe('the embedded cluster cache key', () => {
  it('is the same for the same migrations, and new when a migration changes, is added or removed', () => {
    const key = clusterCacheKey({ migrationsDir: migrations('a', init), versions })
    expect(key).toMatch(/^[0-9a-f]{32}$/)
    expect(clusterCacheKey({ migrationsDir: migrations('b', init), versions })).toBe(key)

    const edited = { '20260101000000_init': 'CREATE TABLE tenant (id text PRIMARY KEY, name text);' }
    expect(clusterCacheKey({ migrationsDir: migrations('c', edited), versions })).not.toBe(key)
    const added = { ...init, '20260102000000_child': 'CREATE TABLE child (id text PRIMARY KEY);' }
    const withAdded = clusterCacheKey({ migrationsDir: migrations('d', added), versions })
    expect(withAdded).not.toBe(key)
    // Renamed: the name is what Prisma records.
    const renamed = { '20260101000001_init': init['20260101000000_init'] }
    expect(clusterCacheKey({ migrationsDir: migrations('e', renamed), versions })).not.toBe(key)

    const dir = migrations('f', added)
    expect(clusterCacheKey({ migrationsDir: dir, versions })).toBe(withAdded)
    rmSync(path.join(dir, '20260102000000_child'), { recursive: true })
    expect(clusterCacheKey({ migrationsDir: dir, versions })).toBe(key)
  })

  it('is new for another PGlite or schema engine', () => {
    const dir = migrations('a', init)
    const key = clusterCacheKey({ migrationsDir: dir, versions })
    expect(clusterCacheKey({ migrationsDir: dir, versions: ['@electric-sql/pglite 0.4.7', versions[1]!] })).not.toBe(
      key
    )
    expect(
      clusterCacheKey({ migrationsDir: dir, versions: [versions[0]!, '@prisma/schema-engine-wasm 7.11.0'] })
    ).not.toBe(key)
  })

  it('names the installed versions, and keys the repository migrations by default', () => {
    expect(engineVersions()).toEqual([
      expect.stringMatching(/^@electric-sql\/pglite \d+\.\d+\.\d+/),
      expect.stringMatching(/^@prisma\/schema-engine-wasm \d+\.\d+\.\d+/),
    ])
    expect(clusterCacheKey()).toBe(clusterCacheKey())
  })
})

/** A build that takes its time and leaves a recognisable file. */
const slowBuild = (content: string) => async (dir: string) => {
  await mkdir(dir, { recursive: true })
  await writeFile(path.join(dir, 'PG_VERSION'), content)
  await new Promise((resolve) => setTimeout(resolve, 50))
  await writeFile(path.join(dir, 'done'), content)
}

describe('a cache entry', () => {
  it('is built once, then found', async () => {
    const entry = path.join(root, 'cache', 'k1')
    await mkdir(path.dirname(entry))
    expect(await fillCacheEntry(entry, slowBuild('one'))).toEqual({ dir: entry, built: true })
    expect(await fillCacheEntry(entry, slowBuild('two'))).toEqual({ dir: entry, built: false })
    expect(readFileSync(path.join(entry, 'done'), 'utf8')).toBe('one')
  })

  it('built by two processes at once is whole, one of them, with nothing left beside it', async () => {
    const entry = path.join(root, 'cache', 'k1')
    await mkdir(path.dirname(entry))
    const results = await Promise.all([fillCacheEntry(entry, slowBuild('a')), fillCacheEntry(entry, slowBuild('b'))])
    expect(results.map((result) => result.dir)).toEqual([entry, entry])
    expect(results.filter((result) => result.built)).toHaveLength(1)
    const content = readFileSync(path.join(entry, 'PG_VERSION'), 'utf8')
    expect(readFileSync(path.join(entry, 'done'), 'utf8')).toBe(content)
    expect(readdirSync(path.dirname(entry))).toEqual(['k1'])
  })

  it('is not there while it is being built, nor after a build that failed', async () => {
    const entry = path.join(root, 'cache', 'k1')
    await mkdir(path.dirname(entry))
    let seenDuringBuild: boolean | undefined
    const failing = fillCacheEntry(entry, async (dir) => {
      await slowBuild('x')(dir)
      seenDuringBuild = existsSync(entry)
      throw new Error('migration 2 failed')
    })
    await expect(failing).rejects.toThrow('migration 2 failed')
    expect(seenDuringBuild).toBe(false)
    expect(readdirSync(path.dirname(entry))).toEqual([])
  })
})

describe('pruning the cache', () => {
  const key = (n: number) => String(n).repeat(32)

  it('removes partial builds of processes that no longer run, and keeps those of running ones', async () => {
    const dead = `${key(1)}.partial-999999999-abcd`
    const alive = `${key(1)}.partial-${process.pid}-abcd`
    for (const name of [dead, alive]) mkdirSync(path.join(root, name))
    writeFileSync(path.join(root, `${dead}.lock`), '999999999\n')
    await pruneClusterCache(root, key(1))
    expect(readdirSync(root).sort()).toEqual([alive])
  })

  it('keeps the current entry and the two most recently used others, and older ones used within the hour', async () => {
    const hoursAgo = (hours: number) => new Date(Date.now() - hours * 3_600_000)
    for (const [n, hours] of [
      [1, 5],
      [2, 4],
      [3, 3],
      [4, 0.5],
      [5, 2],
      [6, 6],
      [7, 0.2],
      [8, 0.3],
    ] as const) {
      mkdirSync(path.join(root, key(n)))
      utimesSync(path.join(root, key(n)), hoursAgo(hours), hoursAgo(hours))
    }
    // The current entry is the oldest; 7 and 8 are the most recently used others; 4 is beyond them but was used half an
    // hour ago (a start may be copying it); 1, 2, 3 and 5 go.
    await pruneClusterCache(root, key(6))
    expect(readdirSync(root).sort()).toEqual([key(4), key(6), key(7), key(8)])
  })
})
