/**
 * @module `npx tsx scripts/ci/house-figures.ts`: the figures issue 47 ("The house") is judged by, drawn from the code.
 * The import lines between top-level folders (each `import`/`export … from` statement, `import type` included), the
 * pairs of top-level folders that import each other, the production files over 350 lines and the longest production
 * functions. The import graph is what `importLines` returns, which test/unit/docs/architecture-layers.test.ts also reads.
 */
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import type ts from 'typescript'

/** The folders that run in production (docs/architecture.md, "Layers"). */
export const PRODUCTION_FOLDERS = [
  'adapters',
  'api',
  'common',
  'domain',
  'infra',
  'workflows',
  'activities',
  'worker',
] as const
/** The folders around the product: each imports the product; test/ imports all of them. */
export const TOOL_FOLDERS = ['scripts', 'test', 'bench', 'eval'] as const

/** Every `.ts` file under `folder` (relative to `root`), node_modules left out. */
export function tsFiles(root: string, folder: string): string[] {
  return readdirSync(path.join(root, folder), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts') && !file.includes('node_modules'))
    .map((file) => path.join(folder, file))
}

/** One import line: the file it is in and the top-level folder it reaches. */
export interface ImportLine {
  file: string
  to: string
}

/**
 * The relative `import`/`export … from` statements (types included, over several lines too) of every file of the
 * folders that reach another top-level folder.
 */
export function importLines(root: string, folders: readonly string[]): ImportLine[] {
  const lines: ImportLine[] = []
  for (const folder of folders) {
    for (const file of tsFiles(root, folder)) {
      const text = readFileSync(path.join(root, file), 'utf8')
      for (const [, specifier] of text.matchAll(/^(?:import|export)\b[^;']*?\bfrom\s*'(\.{1,2}\/[^']+)'/gm)) {
        const to = path.relative(root, path.resolve(root, path.dirname(file), specifier!)).split(path.sep)[0]!
        if (to !== folder) lines.push({ file, to })
      }
    }
  }
  return lines
}

/** The function-like nodes of a source, each with a name and its length in lines. */
function functionLengths(
  ts: typeof import('typescript'),
  file: string,
  text: string
): Array<{ name: string; lines: number }> {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true)
  const found: Array<{ name: string; lines: number }> = []
  const nameOf = (node: ts.Node): string => {
    const named = node as { name?: ts.Node }
    if (named.name && ts.isIdentifier(named.name)) return named.name.text
    const parent = node.parent as ts.Node | undefined
    if (parent && (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) && ts.isIdentifier(parent.name))
      return parent.name.text
    return '(anonymous)'
  }
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line
      found.push({ name: nameOf(node), lines: end - start + 1 })
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
  return found
}

async function main(root: string) {
  // Loaded here, not at the top: the layering test reads `importLines` and has no use for the compiler.
  const { default: ts } = await import('typescript')
  const all = [...PRODUCTION_FOLDERS, ...TOOL_FOLDERS]
  const lines = importLines(root, all)
  const count = (from: string, to: string) => lines.filter((l) => l.file.startsWith(`${from}/`) && l.to === to).length
  console.log('import lines domain → workflows:', count('domain', 'workflows'))
  console.log('import lines workflows → domain:', count('workflows', 'domain'))
  const pairs: string[] = []
  for (const a of all)
    for (const b of all)
      if (a < b && count(a, b) > 0 && count(b, a) > 0) pairs.push(`${a} ⇄ ${b} (${count(a, b)}/${count(b, a)})`)
  console.log('top-level folders importing each other:', pairs.length ? pairs.join(', ') : 'none')

  const production = PRODUCTION_FOLDERS.flatMap((folder) => tsFiles(root, folder))
  const long = production
    .map((file) => ({ file, lines: readFileSync(path.join(root, file), 'utf8').split('\n').length - 1 }))
    .filter(({ lines }) => lines > 350)
    .sort((a, b) => b.lines - a.lines)
  console.log(`production files over 350 lines: ${long.length}`)
  for (const { file, lines } of long) console.log(`  ${lines} ${file}`)
  const functions = production
    .flatMap((file) =>
      functionLengths(ts, file, readFileSync(path.join(root, file), 'utf8')).map((f) => ({ ...f, file }))
    )
    .sort((a, b) => b.lines - a.lines)
  console.log('longest production functions:')
  for (const f of functions.filter((f, i) => i < 8 || f.lines > 120)) console.log(`  ${f.lines} ${f.file} ${f.name}`)
}

if (import.meta.filename === process.argv[1]) await main(path.resolve(import.meta.dirname, '../..'))
