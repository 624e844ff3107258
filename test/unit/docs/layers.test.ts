/**
 * docs/architecture.md's layer table against the code: the folder graph drawn from every production file's relative
 * imports must be exactly the table's "may import" column (no arrow the table does not allow, no allowed arrow the code
 * no longer has), and the only arrow that points both ways is the one the layering rule allows, through workflows'
 * contracts and the domain rules bundled into them: domain ⇄ workflows. Activities point one way, to the contracts:
 * a workflow proxies its activities through the interface its contract declares and imports nothing from activities/.
 * eslint.config.js rules on single imports; this test on the drawing.
 */
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'

const root = path.resolve(import.meta.dirname, '../../..')
const PRODUCTION = ['api', 'domain', 'infra', 'workflows', 'activities', 'worker'] as const

function tsFiles(folder: string): string[] {
  return readdirSync(path.join(root, folder), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts'))
    .map((file) => path.join(folder, file))
}

/** `from` → the top-level folders its files import from (relative imports only: packages are not folders). */
function drawnArrows(): Map<string, Set<string>> {
  const arrows = new Map<string, Set<string>>()
  for (const from of PRODUCTION) {
    const targets = new Set<string>()
    for (const file of tsFiles(from)) {
      const text = readFileSync(path.join(root, file), 'utf8')
      for (const [, specifier] of text.matchAll(/^(?:import|export)\b[^']*?\bfrom\s*'(\.{1,2}\/[^']+)'/gm)) {
        const top = path.relative(root, path.resolve(root, path.dirname(file), specifier!)).split(path.sep)[0]!
        if (top !== from) targets.add(top)
      }
    }
    arrows.set(from, targets)
  }
  return arrows
}

/** The layer table's rows: folder → the top-level folders its "may import" cell names in backticks. */
function documentedArrows(): Map<string, Set<string>> {
  const doc = readFileSync(path.join(root, 'docs/architecture.md'), 'utf8')
  const table = doc.slice(doc.indexOf('## Layers'), doc.indexOf('**The layering rule.**'))
  const arrows = new Map<string, Set<string>>()
  for (const line of table.split('\n')) {
    const cells = line.split(' | ')
    const folder = /^\| `([\w-]+)\/`/.exec(line)?.[1]
    if (!folder || cells.length < 3) continue
    const mayImport = cells.at(-1)!
    const named = [...mayImport.matchAll(/`([\w-]+)\/[^`]*`/g)].map(([, top]) => top!)
    arrows.set(folder, new Set(named.filter((top) => top !== folder)))
  }
  return arrows
}

const sorted = (set: Set<string> | undefined) => [...(set ?? [])].sort()

describe('the layers of docs/architecture.md', () => {
  const drawn = drawnArrows()
  const documented = documentedArrows()

  it.each(PRODUCTION)('%s/ imports exactly the folders its row allows', (folder) => {
    expect(documented.has(folder), `docs/architecture.md has a row for ${folder}/`).toBe(true)
    expect(sorted(drawn.get(folder))).toEqual(sorted(documented.get(folder)))
  })

  it('has no two-way arrow but domain ⇄ workflows, through workflow contracts', () => {
    const twoWay = PRODUCTION.flatMap((a) =>
      PRODUCTION.filter((b) => a < b && drawn.get(a)?.has(b) && drawn.get(b)?.has(a)).map((b) => `${a} ⇄ ${b}`)
    )
    expect(twoWay.sort()).toEqual(['domain ⇄ workflows'])
  })
})
