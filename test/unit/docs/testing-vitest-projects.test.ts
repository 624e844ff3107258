/**
 * The unit files that replace a module with `vi.mock` need a fresh module cache each: the `unit` project shares one per
 * worker process, so such a file runs in `unit-mocks` (vitest.config.ts, UNIT_FILES_THAT_MOCK_MODULES). One left out
 * would fail, or pass against the real module, depending on which file its worker ran first.
 */
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { expect, it } from 'vitest'

const root = path.resolve(import.meta.dirname, '../../..')

it('runs every unit file that mocks a module in the unit-mocks project, and only those', () => {
  const mocking = readdirSync(path.join(root, 'test/unit'), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.test.ts'))
    .map((file) => `test/unit/${file.split(path.sep).join('/')}`)
    .filter((file) => /^\s*vi\.(do)?[mM]ock\(/m.test(readFileSync(path.join(root, file), 'utf8')))
    .sort()
  const config = readFileSync(path.join(root, 'vitest.config.ts'), 'utf8')
  const listBody = /const UNIT_FILES_THAT_MOCK_MODULES = \[([^\]]*)\]/.exec(config)?.[1] ?? ''
  const listed = [...listBody.matchAll(/'([^']+)'/g)].map(([, file]) => file!).sort()
  expect(mocking.length).toBeGreaterThan(0)
  expect(listed).toEqual(mocking)
})
