/**
 * @module The workflow bundle, made once per version of the code that goes into it and kept outside the clone
 * (`${XDG_CACHE_HOME:-~/.cache}/therapy-care/workflow-bundles`): the test run, the fuzz run and `npm start` each
 * bundled workflows/ with webpack (5-10 s of CPU each time, more on a loaded machine) although the code had not
 * changed. What goes into a bundle is fixed by the layering rule (eslint.config.js): workflows/ and common/ import
 * only each other and `@temporalio/*` packages, so the key is their files' content, the bundler's options
 * (this folder's create-worker.ts) and the lock file.
 */
import { existsSync, readdirSync, rmSync, statSync, utimesSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { contentKey, filesUnder, projectCacheDir } from '../infra/project-cache.ts'
import { writeWorkflowBundle } from './create-worker.ts'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
/** Bundles of other versions kept: switching branches back and forth should not rebuild. */
const KEEP = 4

const cacheDir = () => projectCacheDir('workflow-bundles')

/** The bundle's key: the content of everything that goes into it or decides how it is made. */
export const workflowBundleKey = (): string =>
  contentKey([], ROOT, [
    ...filesUnder(ROOT, 'workflows'),
    ...filesUnder(ROOT, 'common'),
    'worker/create-worker.ts',
    'package-lock.json',
  ])

/** The path of a bundle of the workflows as they are now, made (and older ones dropped) when the cache has none. */
export async function cachedWorkflowBundle(): Promise<string> {
  const bundle = path.join(cacheDir(), `workflow-bundle-${workflowBundleKey()}.js`)
  if (existsSync(bundle)) {
    // Used now: the last to be dropped.
    const now = new Date()
    utimesSync(bundle, now, now)
    return bundle
  }
  // Written aside and renamed by writeWorkflowBundle: a run reading it meanwhile never sees half a bundle.
  await writeWorkflowBundle(bundle)
  const others = readdirSync(cacheDir())
    .filter((name) => /^workflow-bundle-[0-9a-f]+\.js$/.test(name))
    .map((name) => ({ name, at: statSync(path.join(cacheDir(), name)).mtimeMs }))
    .sort((a, b) => b.at - a.at)
  for (const old of others.slice(KEEP)) rmSync(path.join(cacheDir(), old.name), { force: true })
  return bundle
}
