/**
 * How `npm run check:image` finds what the image's commands load (scripts/ci/module-graph.ts): value imports and
 * paths opened relative to a module count, type-only imports and examples in comments do not.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { checkClosure, packageName, references } from '../../../../scripts/ci/module-graph.ts'

const modules = (source: string) =>
  references(source).flatMap((reference) => (reference.kind === 'module' ? [reference.specifier] : []))

describe('references', () => {
  it('finds value imports, re-exports, side-effect and dynamic imports', () => {
    const source = [
      "import { serve } from '@hono/node-server'",
      "import pino, { type Logger } from 'pino'",
      'import {',
      '  a,',
      '  b as c,',
      "} from './multi-line.ts'",
      "import * as ns from 'node:fs'",
      "export { x } from './re-export.ts'",
      "export * from './star.ts'",
      "import './side-effect.ts'",
      "const lazy = await import('./lazy.ts')",
    ].join('\n')
    expect(modules(source)).toEqual([
      '@hono/node-server',
      'pino',
      './multi-line.ts',
      'node:fs',
      './re-export.ts',
      './star.ts',
      './side-effect.ts',
      './lazy.ts',
    ])
  })

  it('skips what TypeScript erases and what only a comment shows', () => {
    const source = [
      "import type { Config } from 'vitest/config'",
      "import { type A, type B } from './types-only.ts'",
      "export type { C } from './more-types.ts'",
      '/**',
      " * import { example } from 'not-a-dependency'",
      ' */',
      "// import { old } from 'removed-package'",
      "const text = 'globs like **/*.ts stay strings'",
    ].join('\n')
    expect(modules(source)).toEqual([])
  })

  it('finds paths opened relative to the module and packages resolved at run time', () => {
    const source = [
      "export const WORKFLOWS = fileURLToPath(new URL('../workflows/index.ts', import.meta.url))",
      "const dir = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'))",
    ].join('\n')
    expect(references(source)).toEqual([
      { kind: 'module', specifier: 'swagger-ui-dist/package.json' },
      { kind: 'path', path: '../workflows/index.ts' },
    ])
  })
})

describe('packageName', () => {
  it('names the package of a bare specifier, and none for a built-in', () => {
    expect(packageName('@prisma/client/runtime/client')).toBe('@prisma/client')
    expect(packageName('hono/http-exception')).toBe('hono')
    expect(packageName('node:fs/promises')).toBeUndefined()
    expect(packageName('fs')).toBeUndefined()
  })
})

describe('checkClosure', () => {
  const root = mkdtempSync(path.join(tmpdir(), 'module-graph-'))
  afterAll(() => rmSync(root, { recursive: true, force: true }))
  const write = (file: string, text: string) => {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true })
    writeFileSync(path.join(root, file), text)
  }

  it('follows imports through local files and reports missing files and packages with who needs them', () => {
    write('node_modules/present/package.json', '{}')
    write('api/server.ts', "import { app } from './app.ts'\nimport 'present'\n")
    write('api/app.ts', "import { gone } from '../domain/gone.ts'\nimport { x } from 'absent'\nexport const app = 1\n")
    write('worker/main.ts', "const p = new URL('../workflows/index.ts', import.meta.url)\n")
    const { missing, files } = checkClosure(
      root,
      [
        { file: 'api/server.ts', from: 'CMD' },
        { file: 'worker/main.ts', from: 'compose worker' },
      ],
      [{ name: 'tsx', from: 'CMD' }]
    )
    expect(files).toBe(3)
    expect(missing).toEqual(
      expect.arrayContaining([
        { what: 'tsx', from: 'CMD' },
        { what: path.join('domain', 'gone.ts'), from: path.join('api', 'app.ts') },
        { what: 'absent', from: path.join('api', 'app.ts') },
        { what: path.join('workflows', 'index.ts'), from: path.join('worker', 'main.ts') },
      ])
    )
    expect(missing).toHaveLength(4)
  })
})
