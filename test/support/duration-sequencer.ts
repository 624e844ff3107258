/**
 * @module The order files start in: the longest first, so that the last minutes of a run are not one long file alone
 * (vitest.config.ts). vitest's own order does that from the durations it recorded in its cache; a machine without
 * them (a first run, a cache cleared) ordered files by size, and the Java SDK's 60-second build once started last.
 * There, the durations recorded in `file-durations.json` stand in (`npm run test:durations` refreshes them from a
 * run's JSON report). Everything else is vitest's: groups and projects in their order, a file that failed last time
 * first.
 */
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { BaseSequencer, type TestSpecification } from 'vitest/node'

/** Seconds per file (its path from the root), from a measured run; only the order depends on them. */
const RECORDED = JSON.parse(readFileSync(new URL('./file-durations.json', import.meta.url), 'utf8')) as Record<
  string,
  number
>

export default class DurationSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const fileOf = (spec: TestSpecification) => path.relative(this.ctx.config.root, spec.moduleId)
    const cached = (spec: TestSpecification) =>
      this.ctx.cache.getFileTestResults(`${spec.project.name}:${fileOf(spec)}`)
    // Without a duration of its own from vitest's cache, a file is given the recorded one, so vitest orders by time.
    const known = files.every((spec) => cached(spec) !== undefined)
    if (known) return super.sort(files)
    const seconds = (spec: TestSpecification) => cached(spec)?.duration ?? (RECORDED[fileOf(spec)] ?? 0) * 1000
    const sorted = await super.sort(files)
    return sorted
      .map((spec, index) => ({ spec, index }))
      .sort((a, b) => {
        const groupA = a.spec.project.config.sequence.groupOrder
        const groupB = b.spec.project.config.sequence.groupOrder
        if (groupA !== groupB || a.spec.project.name !== b.spec.project.name) return a.index - b.index
        return seconds(b.spec) - seconds(a.spec) || a.index - b.index
      })
      .map(({ spec }) => spec)
  }
}
