/**
 * Every workflow the worker registers (the exports of workflows/index.ts, whose names are the registered workflow
 * types) has one type constant, named `<NAME>_WORKFLOW`, in its contract on the ground floor, and every such constant
 * names a registered workflow. The value is what running workflows and the recorded histories carry: a rename of the
 * function without its constant (or the reverse) fails here, not on a worker that no longer knows its runs.
 */
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'

const root = path.resolve(import.meta.dirname, '../../..')

const registered = [
  ...readFileSync(path.join(root, 'workflows/index.ts'), 'utf8').matchAll(/^export \{ (?:\w+ as )?(\w+) \} from/gm),
].map(([, name]) => name!)

const constants = readdirSync(path.join(root, 'common'), { recursive: true, encoding: 'utf8' })
  .filter((file) => file.endsWith('-contract.ts'))
  .flatMap((file) => [
    ...readFileSync(path.join(root, 'common', file), 'utf8').matchAll(/^export const (\w+) = '(\w+Workflow)'/gm),
  ])
  .map(([, name, value]) => ({ name: name!, value: value! }))

describe('workflow type constants', () => {
  it('name every registered workflow once, in one style', () => {
    expect(registered.length).toBeGreaterThan(10)
    expect(constants.map((c) => c.value).sort()).toEqual([...registered].sort())
    expect(constants.filter((c) => !/^[A-Z_]+_WORKFLOW$/.test(c.name))).toEqual([])
  })
})
