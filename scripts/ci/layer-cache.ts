/**
 * @module The image check's layer cache (scripts/ci/check-image-install.ts), as Docker's build cache keeps a layer: a
 * RUN step is run again only when what it starts from changed (the instructions up to it and the content of every file
 * in the folder before it runs), else the folder it left behind is restored. The dependency layer's `npm ci` took
 * 90 of the check's 126 s in CI, and its inputs (package.json, the lock file, .npmrc) change far less often than the
 * code. Kept outside the clone, beside the project's other caches, so fresh clones on one machine share it.
 */
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { contentKey, filesUnder, projectCacheDir } from '../../infra/project-cache.ts'

/** How many layers to keep: a lock file changed on a branch and back must not rebuild, a year of them need not stay. */
const KEEP = 2

const cacheRoot = () => projectCacheDir('image-layers')

/**
 * The layer's key: the text that says how it is built (the instructions up to its RUN, the tools that run it) and
 * every file in `dir` before it runs, name and content.
 */
export const layerKey = (recipe: readonly string[], dir: string): string => contentKey(recipe, dir, filesUnder(dir))

const entryOf = (key: string) => path.join(cacheRoot(), key)

/**
 * Restores the folder a layer left behind into `dir`, as hard links to the cached files (3.6 s for the 1.2 GB of
 * production packages, against 12 s to unpack them); false when the cache has no such layer. The steps after the
 * layer only read what it installed (the image's own rule: nothing writes under node_modules after `npm ci`).
 */
export function restoreLayer(key: string, dir: string): boolean {
  const entry = entryOf(key)
  if (!existsSync(path.join(entry, COMPLETE))) return false
  for (const name of readdirSync(entry).filter((name) => name !== COMPLETE)) {
    const result = spawnSync('cp', ['-al', '--remove-destination', path.join(entry, name), dir], {
      stdio: ['ignore', 'ignore', 'inherit'],
    })
    if (result.status !== 0) throw new Error(`could not restore ${name} from the layer cache ${entry}`)
  }
  // Used now: the last to be evicted.
  const now = new Date()
  utimesSync(path.join(entry, COMPLETE), now, now)
  return true
}

/** Marks a whole entry: one without it was cut short and is built again. */
const COMPLETE = '.layer-complete'

/** Keeps what a layer's RUN left in `dir` under its key (linked aside, then renamed: a crash leaves no half entry). */
export function saveLayer(key: string, dir: string): void {
  mkdirSync(cacheRoot(), { recursive: true })
  const partial = `${entryOf(key)}.${process.pid}.partial`
  rmSync(partial, { recursive: true, force: true })
  const result = spawnSync('cp', ['-al', dir, partial], { stdio: ['ignore', 'ignore', 'inherit'] })
  if (result.status !== 0) {
    rmSync(partial, { recursive: true, force: true })
    return
  }
  writeFileSync(path.join(partial, COMPLETE), '')
  rmSync(entryOf(key), { recursive: true, force: true })
  renameSync(partial, entryOf(key))
  const layers = readdirSync(cacheRoot())
    .filter((name) => existsSync(path.join(cacheRoot(), name, COMPLETE)))
    .map((name) => ({ name, at: statSync(path.join(cacheRoot(), name, COMPLETE)).mtimeMs }))
    .sort((a, b) => b.at - a.at)
  for (const old of layers.slice(KEEP)) rmSync(path.join(cacheRoot(), old.name), { recursive: true, force: true })
}
