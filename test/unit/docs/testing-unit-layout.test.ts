/**
 * Where a unit test lives (docs/testing.md, "Where a unit test lives"; issue 79): `test/unit/` mirrors the source tree
 * path for path. A test of `domain/payments/refund-lines.ts` is `test/unit/domain/payments/refund-lines.test.ts`, or
 * `refund-lines-<aspect>.test.ts` beside it: its folder is a source folder and its name starts with the name of a
 * file in it. The few named below test no one file; the list only shrinks (a file that moves, or is deleted, must
 * leave it), so a new test is placed where a newcomer looks for it.
 */
import { readdirSync, statSync, existsSync } from 'node:fs'
import { basename, dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const root = fileURLToPath(new URL('../../../', import.meta.url))
const unitRoot = join(root, 'test/unit')

/**
 * Tests of no one source file, by path under test/unit, each with why: a test of the whole tree, or of a file at the
 * repository's root (which has no folder to mirror). The list only shrinks.
 */
const NOT_MIRRORED: Record<string, string> = {
  'common/workflow-types.test.ts': 'every workflow type name in workflows/, activities/ and common/',
  'infra/regex-audit.test.ts': 'every regular expression of the production code',
  'ops/compose-secrets.test.ts': 'temporal-compose.yml, at the root',
  'ops/compose.test.ts': 'temporal-compose.yml, at the root',
}
const NOT_YET_MIRRORED = Object.keys(NOT_MIRRORED)

const filesUnder = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? filesUnder(path) : [path]
  })

/** Whether a test at `path` (under test/unit) sits beside the source it is named for. */
function mirrors(path: string): boolean {
  const folder = join(root, dirname(path))
  if (dirname(path) === '.' || !existsSync(folder) || !statSync(folder).isDirectory()) return false
  const name = basename(path).replace(/\.test\.(ts|mjs)$/, '')
  return readdirSync(folder)
    .filter((entry) => statSync(join(folder, entry)).isFile())
    .map((entry) => entry.replace(/\.[^.]+$/, ''))
    .some((source) => name === source || name.startsWith(`${source}-`))
}

describe('test/unit mirrors the source tree', () => {
  const tests = filesUnder(unitRoot)
    .filter((path) => /\.test\.(ts|mjs)$/.test(path))
    .map((path) => relative(unitRoot, path))

  it('places every unit test beside the source file it is named for', () => {
    const misplaced = tests.filter((path) => !mirrors(path) && !NOT_YET_MIRRORED.includes(path))
    expect(misplaced, 'move each to test/unit/<source folder>/<source file>[-<aspect>].test.ts').toEqual([])
  })

  it('keeps the list of older tests to files that still exist and still sit elsewhere', () => {
    const stale = NOT_YET_MIRRORED.filter((path) => !tests.includes(path) || mirrors(path))
    expect(stale, 'take these out of NOT_YET_MIRRORED').toEqual([])
  })

  it('tells a test beside its source from one that is not', () => {
    expect(mirrors('domain/payments/refund-lines.test.ts')).toBe(true)
    expect(mirrors('domain/payouts/transfer-conversion.test.ts')).toBe(true)
    expect(mirrors('domain/payouts/transfer-conversion-rates.test.ts')).toBe(true)
    expect(mirrors('domain/payouts/transfer.test.ts')).toBe(false)
    expect(mirrors('domain/refund-lines.test.ts')).toBe(false)
    expect(mirrors('nowhere/refund-lines.test.ts')).toBe(false)
  })
})
