/**
 * @module `npm run test:durations`: writes the durations vitest recorded in its cache (vitest.config.ts, `cacheDir`)
 * to test/support/file-durations.json, which orders the files of a run on a machine without that cache
 * (test/support/duration-sequencer.ts). Files under a second are left out: their order does not matter.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { projectCacheDir } from '../../infra/project-cache.ts'

const repository = new URL('../../', import.meta.url)
const root = projectCacheDir('vite', 'vitest')
const durations: Record<string, number> = {}
for (const dir of readdirSync(root)) {
  const { results } = JSON.parse(readFileSync(path.join(root, dir, 'results.json'), 'utf8')) as {
    results: Array<[string, { duration: number }]>
  }
  for (const [key, { duration }] of results) {
    const file = key.slice(key.indexOf(':') + 1)
    // A file removed or renamed since stays out.
    if (duration >= 1000 && existsSync(new URL(file, repository))) durations[file] = Math.round(duration / 100) / 10
  }
}
const sorted = Object.fromEntries(Object.entries(durations).sort(([a], [b]) => a.localeCompare(b)))
const out = new URL('../../test/support/file-durations.json', import.meta.url)
writeFileSync(out, `${JSON.stringify(sorted, null, 2)}\n`)
console.log(`${Object.keys(sorted).length} durations written to test/support/file-durations.json`)
