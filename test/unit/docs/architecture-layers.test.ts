/**
 * docs/architecture.md's layer table against the code: the folder graph drawn from every production file's relative
 * imports (`import type` included) must be exactly the table's "may import" column (no arrow the table does not
 * allow, no allowed arrow the code no longer has), no two top-level folders may import each other, and the ground
 * floor holds: common/ imports no other folder, workflows/ imports only common/, and nothing in production but the
 * worker (by path, not by import) reaches workflows/. eslint.config.js rules on single imports; this test on the
 * drawing. And the map is whole: every top-level folder has a row, every folder under domain/ and common/ is named in
 * its section.
 */
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { importLines, PRODUCTION_FOLDERS, TOOL_FOLDERS } from '../../../scripts/ci/house-figures.ts'

const root = path.resolve(import.meta.dirname, '../../..')
const doc = readFileSync(path.join(root, 'docs/architecture.md'), 'utf8')

/** The text of docs/architecture.md from one heading to the next of the same or a higher level. */
function section(heading: string): string {
  const start = doc.indexOf(`\n${heading}\n`)
  const level = /^#+/.exec(heading)![0]
  const next = doc.slice(start + heading.length + 2).search(new RegExp(`^#{1,${level.length}} `, 'm'))
  return next < 0 ? doc.slice(start) : doc.slice(start, start + heading.length + 2 + next)
}

/** The folders under `folder` (every depth), relative to it. */
const foldersUnder = (folder: string) =>
  readdirSync(path.join(root, folder), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => path.relative(path.join(root, folder), path.join(entry.parentPath, entry.name)))

/** `from` → the top-level folders its files import from (relative imports only: packages are not folders). */
function drawnArrows(folders: readonly string[]): Map<string, Set<string>> {
  const arrows = new Map<string, Set<string>>(folders.map((folder) => [folder, new Set<string>()]))
  for (const { file, to } of importLines(root, folders)) arrows.get(file.split(path.sep)[0]!)!.add(to)
  return arrows
}

/** The layer table's rows: folder → the top-level folders its "may import" cell names in backticks. */
function documentedArrows(): Map<string, Set<string>> {
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
  const drawn = drawnArrows(PRODUCTION_FOLDERS)
  const documented = documentedArrows()

  it.each(PRODUCTION_FOLDERS)('%s/ imports exactly the folders its row allows', (folder) => {
    expect(documented.has(folder), `docs/architecture.md has a row for ${folder}/`).toBe(true)
    expect(sorted(drawn.get(folder))).toEqual(sorted(documented.get(folder)))
  })

  it('has no two-way arrow, between the tools around the product (scripts/, test/, bench/, eval/) neither', () => {
    const folders = [...PRODUCTION_FOLDERS, ...TOOL_FOLDERS]
    const all = drawnArrows(folders)
    const twoWay = folders.flatMap((a) =>
      folders.filter((b) => a < b && all.get(a)?.has(b) && all.get(b)?.has(a)).map((b) => `${a} ⇄ ${b}`)
    )
    expect(twoWay).toEqual([])
  })

  it('stands the workflows on the ground floor: common/ imports no folder, workflows/ only common/, none imports them', () => {
    expect(sorted(drawn.get('common'))).toEqual([])
    expect(sorted(drawn.get('workflows'))).toEqual(['common'])
    const intoWorkflows = PRODUCTION_FOLDERS.filter((folder) => drawn.get(folder)?.has('workflows'))
    expect(intoWorkflows).toEqual([])
  })
})

describe('the map of docs/architecture.md', () => {
  it('has a row in the layer table for every top-level folder', () => {
    const rows = section('## Layers')
    const folders = readdirSync(root, { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && !entry.name.startsWith('.') && entry.name !== 'node_modules')
      .map((entry) => entry.name)
    expect(folders.filter((folder) => !rows.includes(`| \`${folder}/\` |`))).toEqual([])
  })

  it.each(['domain', 'common'])('names every folder under %s/ in its section', (folder) => {
    const text = section(`### \`${folder}/\``)
    // A folder is named by its own name (`agents/` in the ai/ row) or by its path from the section's folder.
    const unnamed = foldersUnder(folder).filter(
      (sub) => !text.includes(`\`${path.basename(sub)}/\``) && !text.includes(`\`${sub}/\``)
    )
    expect(unnamed).toEqual([])
  })
})
