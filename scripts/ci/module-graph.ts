/**
 * @module What a process started in the image loads, found from its entry files without running them: the local
 * files and packages each module imports (`import type` is erased and loads nothing) and the files it opens by a
 * path relative to itself (`new URL('../workflows/index.ts', import.meta.url)`). Used by the image check
 * (scripts/ci/check-image-install.ts) to show that everything the image's commands load is in the image.
 */
import { existsSync, readFileSync, statSync } from 'node:fs'
import { builtinModules } from 'node:module'
import path from 'node:path'

/** A module specifier (`./x.ts`, `hono`, `node:fs`) or a path relative to the referring file (a folder, a data file). */
export type Reference = { kind: 'module'; specifier: string } | { kind: 'path'; path: string }

const CODE = /\.(?:[mc]?ts|[mc]?js)$/

/**
 * Whole-line `//` comments and `/* ... *\/` blocks that open a line (doc comments hold example imports). Comment
 * markers inside strings (`'** /*.ts'`) are left alone by only taking those at the start of a line.
 */
const stripComments = (source: string) => source.replace(/^\s*\/\*[\s\S]*?\*\//gm, '').replace(/^\s*\/\/.*$/gm, '')

/** `{ type A, type B }`: a named import that TypeScript erases whole. */
const onlyTypes = (clause: string) => {
  const named = /\{([^}]*)\}/.exec(clause)
  if (!named || clause.replace(/\{[^}]*\}/, '').replace(/[\s,]/g, '') !== '') return false
  const names = named[1]!
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '')
  return names.length > 0 && names.every((name) => name.startsWith('type '))
}

/** The modules and relative paths a TypeScript or JavaScript source loads when it runs. */
export function references(source: string): Reference[] {
  const code = stripComments(source)
  const found: Reference[] = []
  const module = (specifier: string) => found.push({ kind: 'module', specifier })
  // The clause between `import` and `from` holds only names, braces, commas and `* as`: it cannot run over code.
  for (const [, typeOnly, clause, , specifier] of code.matchAll(
    /\b(?:import|export)\s+(type\s+)?([\w$*{}\s,]+?)\s+from\s+(['"])([^'"]+)\3/g
  )) {
    if (!typeOnly && !onlyTypes(clause!)) module(specifier!)
  }
  for (const [, , specifier] of code.matchAll(/\bimport\s*\(?\s*(['"])([^'"]+)\1/g)) module(specifier!)
  for (const [, , specifier] of code.matchAll(/createRequire\(import\.meta\.url\)\.resolve\(\s*(['"])([^'"]+)\1/g)) {
    module(specifier!)
  }
  for (const [, , relative] of code.matchAll(/new URL\(\s*(['"])([^'"]+)\1\s*,\s*import\.meta\.url\s*\)/g)) {
    found.push({ kind: 'path', path: relative! })
  }
  return found
}

/** The package a bare specifier names (`@prisma/client/runtime/x` is `@prisma/client`), or undefined for a built-in. */
export function packageName(specifier: string): string | undefined {
  if (specifier.startsWith('node:') || builtinModules.includes(specifier.split('/')[0]!)) return undefined
  const parts = specifier.split('/')
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]
}

const isRelative = (specifier: string) => specifier.startsWith('./') || specifier.startsWith('../')

/** The file a relative specifier loads, as Node with tsx resolves it (`.js` may name a `.ts` source). */
function resolveFile(from: string, specifier: string): string | undefined {
  const base = path.resolve(path.dirname(from), specifier)
  const candidates = [base, base.replace(/\.([mc]?)js$/, '.$1ts'), `${base}.ts`, `${base}.js`, `${base}/index.ts`]
  return candidates.find((candidate) => existsSync(candidate) && statSync(candidate).isFile())
}

export interface Missing {
  /** What was looked for: a path relative to the root, or a package name. */
  what: string
  /** The file that refers to it, relative to the root. */
  from: string
}

/**
 * Follows the entry files' imports through the local files under `root`, and checks each imported package is in
 * `root`/node_modules and each referenced path exists. Returns what is missing and how many local files were read.
 */
export function checkClosure(
  root: string,
  entries: Array<{ file: string; from: string }>,
  packages: Array<{ name: string; from: string }> = []
): { missing: Missing[]; files: number } {
  const missing: Missing[] = []
  const seen = new Set<string>()
  const relative = (file: string) => path.relative(root, file)
  const queue: string[] = []
  const visit = (file: string, from: string) => {
    if (!existsSync(file)) missing.push({ what: relative(file), from })
    else if (!seen.has(file)) {
      seen.add(file)
      if (CODE.test(file) && statSync(file).isFile()) queue.push(file)
    }
  }
  const needPackage = (name: string, from: string) => {
    if (!existsSync(path.join(root, 'node_modules', name, 'package.json'))) missing.push({ what: name, from })
  }
  for (const { file, from } of entries) visit(path.resolve(root, file), from)
  for (const { name, from } of packages) needPackage(name, from)
  for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
    const from = relative(file)
    for (const reference of references(readFileSync(file, 'utf8'))) {
      if (reference.kind === 'path') visit(path.resolve(path.dirname(file), reference.path), from)
      else if (isRelative(reference.specifier)) {
        const target = resolveFile(file, reference.specifier)
        if (target) visit(target, from)
        else missing.push({ what: relative(path.resolve(path.dirname(file), reference.specifier)), from })
      } else {
        const name = packageName(reference.specifier)
        if (name !== undefined) needPackage(name, from)
      }
    }
  }
  return { missing, files: seen.size }
}
