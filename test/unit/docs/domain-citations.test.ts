/**
 * Comments and docs cite the domain facts as "docs/domain.md, 'Heading'", so a heading of docs/domain.md is renamed
 * only together with its citations: every citation must name a heading the page has. The customer's brief and
 * specification are not in this repository, so nothing may cite them ("DOMAIN.md §…", "spec Part N").
 */
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'

const root = path.resolve(import.meta.dirname, '../../..')
const FOLDERS = [
  'adapters',
  'api',
  'activities',
  'common',
  'domain',
  'infra',
  'workflows',
  'worker',
  'scripts',
  'prisma',
  'docs',
  'sdks/typescript/src',
  'test',
]
/** This file names what it forbids. */
const SELF = path.relative(root, import.meta.filename)
const EXTENSIONS = new Set(['.ts', '.js', '.mjs', '.md', '.prisma'])

/** Every source and documentation file of the folders, with its text, comment markers at line starts removed. */
function sources(): Array<{ file: string; text: string }> {
  const files = FOLDERS.flatMap((folder) =>
    readdirSync(path.join(root, folder), { recursive: true, encoding: 'utf8' })
      .filter((name) => EXTENSIONS.has(path.extname(name)) && !name.includes('node_modules'))
      .map((name) => path.join(folder, name))
      .filter((file) => file !== SELF)
  )
  // A citation may wrap across comment lines (" * ", "/// "): joined into one line, it reads as one.
  return files.map((file) => ({
    file,
    text: readFileSync(path.join(root, file), 'utf8').replace(/\n\s*(?:\*(?!\/)|\/\/\/?|#+)?\s*/g, ' '),
  }))
}

/** The headings cited in `text`: "docs/domain.md, 'A'" or "docs/domain.md, "A" and "B"". */
function citedHeadings(text: string): string[] {
  const citations = text.matchAll(/docs\/domain\.md, (["'][^"'\n]+["'](?: and ["'][^"'\n]+["'])*)/g)
  return [...citations].flatMap(([, quoted = '']) => [...quoted.matchAll(/["']([^"'\n]+)["']/g)].map(([, h = '']) => h))
}

const headings = new Set(
  readFileSync(path.join(root, 'docs/domain.md'), 'utf8')
    .split('\n')
    .filter((line) => line.startsWith('## '))
    .map((line) => line.slice(3).trim())
)

describe('docs/domain.md citations', () => {
  const all = sources()

  it('reads a citation that wraps, and both headings of "A" and "B"', () => {
    expect(citedHeadings(`see docs/domain.md, 'Session billing rules'.`)).toEqual(['Session billing rules'])
    expect(citedHeadings(`docs/domain.md, "SOAP notes" and "Judging progress on a goal")`)).toEqual([
      'SOAP notes',
      'Judging progress on a goal',
    ])
  })

  it('name headings the page has', () => {
    const citations = all.flatMap(({ file, text }) => citedHeadings(text).map((heading) => ({ file, heading })))
    expect(citations.length).toBeGreaterThan(20)
    expect(citations.filter((c) => !headings.has(c.heading))).toEqual([])
  })

  it('replace the customer documents, which are not in this repository', () => {
    const outside = all.filter(({ text }) => /DOMAIN\.md|[Ss]pec Part \d|docs STYLE/.test(text)).map((s) => s.file)
    expect(outside).toEqual([])
  })
})
