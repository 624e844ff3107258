/**
 * @module The project's cache outside the clone, `${XDG_CACHE_HOME:-~/.cache}/therapy-care` (where the scripts also keep
 * the Temporal CLI, stripe-mock and the sentence model), and the content keys its entries are filed under: fresh
 * clones on one machine share what was built, and an entry is found only for the same inputs.
 */
import { createHash } from 'node:crypto'
import { readdirSync, readFileSync } from 'node:fs'
import { homedir } from 'node:os'
import path from 'node:path'

/** A folder of the project's cache. */
export const projectCacheDir = (...parts: string[]) =>
  path.join(process.env.XDG_CACHE_HOME || path.join(homedir(), '.cache'), 'therapy-care', ...parts)

/** Every file below `root/dir`, as sorted `/`-separated paths relative to `root`. */
export function filesUnder(root: string, dir = '.'): string[] {
  return readdirSync(path.join(root, dir), { recursive: true, withFileTypes: true })
    .filter((entry) => !entry.isDirectory())
    .map((entry) => path.relative(root, path.join(entry.parentPath, entry.name)).split(path.sep).join('/'))
    .sort()
}

/** A key for what `recipe` says and what `files` (relative to `root`) hold, names and contents. */
export function contentKey(recipe: readonly string[], root: string, files: readonly string[]): string {
  const hash = createHash('sha256')
  for (const line of recipe) hash.update(`${line}\n`)
  for (const file of files) hash.update(`${file}\n`).update(readFileSync(path.join(root, file)))
  return hash.digest('hex').slice(0, 32)
}
