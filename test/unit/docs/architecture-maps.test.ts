/**
 * The maps a newcomer reads first stay true (issue 79, item 6): the README's Architecture section names every
 * top-level folder that holds the product's code or its tools (it once had no `common/` and put the contracts under
 * workflows/), and docs/architecture.md's size of domain/ is within a sixth of the code's (it said 300 files and 36k
 * lines when there were 370 and 41k). docs/architecture.md's map is checked against the code by layers.test.ts.
 */
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { expect, it } from 'vitest'
import { PRODUCTION_FOLDERS, TOOL_FOLDERS, tsFiles } from '../../../scripts/ci/house-figures.ts'

const root = path.resolve(import.meta.dirname, '../../..')

it("names every folder of the product and its tools in the README's Architecture section", () => {
  const readme = readFileSync(path.join(root, 'README.md'), 'utf8')
  const start = readme.indexOf('\n## Architecture\n')
  const end = readme.indexOf('\n## ', start + 1)
  const section = readme.slice(start, end < 0 ? undefined : end)
  const missing = [...PRODUCTION_FOLDERS, ...TOOL_FOLDERS].filter((folder) => !section.includes(`\`${folder}/\``))
  expect(start).toBeGreaterThan(0)
  expect(missing).toEqual([])
})

it("states domain/'s size in docs/architecture.md within a sixth of what it is", () => {
  const doc = readFileSync(path.join(root, 'docs/architecture.md'), 'utf8')
  const stated = /about (\d+) files and (\d+)k lines/.exec(doc.slice(doc.indexOf('\n### `domain/`\n')))
  expect(stated).not.toBeNull()
  const files = tsFiles(root, 'domain')
  const lines = files.reduce((sum, file) => sum + readFileSync(path.join(root, file), 'utf8').split('\n').length - 1, 0)
  const within = (statedValue: number, actual: number) => Math.abs(statedValue - actual) / actual <= 1 / 6
  expect(within(Number(stated![1]), files.length), `${files.length} files`).toBe(true)
  expect(within(Number(stated![2]) * 1000, lines), `${lines} lines`).toBe(true)
})
