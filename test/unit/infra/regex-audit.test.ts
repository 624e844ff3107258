/**
 * Every regular expression of the production code, audited for catastrophic backtracking (issue 54): one heading
 * pattern, cubic on a line of spaces, froze the worker that runs every tenant's work. Each regex literal of api/,
 * domain/, adapters/, infra/, common/, activities/ and worker/ is checked by recheck (a ReDoS checker that proves a
 * pattern linear or finds an attack string and confirms it by running it). A pattern that is not linear is allowed
 * only where its input is bounded, listed below with the bound and why it holds; for those the test builds recheck's
 * attack string at that bound and runs the pattern on it under a time limit. A new non-linear pattern fails here until
 * it is made linear or its input is bounded and listed.
 */
import { createHash } from 'node:crypto'
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { check, type Diagnostics } from 'recheck'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'
import { projectCacheDir } from '../../../infra/project-cache.ts'

const ROOT = fileURLToPath(new URL('../../..', import.meta.url))
const PRODUCTION_FOLDERS = ['api', 'domain', 'adapters', 'infra', 'common', 'activities', 'worker']

/** Non-linear patterns whose input is bounded: the file, the pattern's source, the longest input, and why. */
const BOUNDED: Array<{ file: string; source: string; maxInput: number; why: string }> = [
  {
    file: 'api/client-address.ts',
    source: String.raw`(\d+)\.(\d+)\.(\d+)\.(\d+)$`,
    maxInput: 45,
    why: 'runs only on an address isIP() accepted as IPv6, its zone cut off',
  },
  {
    file: 'adapters/outbound/network-policy.ts',
    source: String.raw`(\d+\.\d+\.\d+\.\d+)$`,
    maxInput: 45,
    why: 'expandIpv6 refuses a text longer than the longest IPv6 address first',
  },
  {
    file: 'api/routes/health/index.ts',
    source: String.raw`\/\/[^@\s]*@`,
    maxInput: 120,
    why: "the dependency's error message is cut to 120 characters first",
  },
  {
    file: 'infra/safe-error.ts',
    source: String.raw`(invocation[^:\n]*:)[\s\S]*$`,
    maxInput: 4096,
    why: 'redactValues cuts a message to MAX_REDACTED_INPUT before any pattern reads it',
  },
  ...[
    String.raw`\be-?mail( address)?\b.*\?|\bwhat is .*\be-?mail\b`,
    String.raw`\bhow much\b|\bwhat (does|do|will) .* cost\b|\bwhat is the (cost|price|fee|charge|fine|deposit|copay|surcharge)\b|\bwhat (are|is) the fees?\b`,
    String.raw`[\w.+-]+@[\w-]+(\.[\w-]+)+`,
  ].map((source) => ({
    file: 'domain/ai/answering/answerability.ts',
    source,
    maxInput: 2000,
    why: 'a question is at most 2,000 characters (the API refuses longer); a quote is a sentence of a 700-character chunk',
  })),
  ...[
    String.raw`\$\s?\d|\b\d+\s?(dollars|usd|percent)\b|\bfree\b|\bno charge\b|\bfull\b.*\bfee\b`,
    String.raw`(^|\n)\s*(?:[-*\u2022]|\d+[.)])\s*$`,
  ].map((source) => ({
    file: 'domain/ai/answering/extractive-answerer.ts',
    source,
    maxInput: 2000,
    why: 'runs on a sentence or the gap between two sentences of one chunk (700 characters by default)',
  })),
  ...[String.raw`\(.*\)$`, String.raw`[;\s]+$`].map((source) => ({
    file: 'domain/ai/lexicon/wordnet.ts',
    source,
    maxInput: 2000,
    why: "WordNet's own data files, shipped in a package: no request or document reaches them",
  })),
  ...['adapters/anthropic/anthropic-chat.ts', 'adapters/openai-compatible/openai-compatible-client.ts'].map((file) => ({
    file,
    source: String.raw`\/+$`,
    maxInput: 2048,
    why: "the operator's configured base URL, not a tenant's input",
  })),
]

/** Runs of a bounded pattern on its attack string may take this long (a slow machine beside other tests). */
const ATTACK_LIMIT_MS = 100

/**
 * recheck's verdicts, kept outside the clone by what was checked: a few patterns of the answerer cost its checker
 * seconds of CPU each (about 30 s for all), and a pattern's verdict never changes under the same checker and options.
 */
const VERDICTS = projectCacheDir('regex-audit')
const RECHECK_VERSION = (
  JSON.parse(readFileSync(path.join(ROOT, 'node_modules/recheck/package.json'), 'utf8')) as {
    version: string
  }
).version

async function verdictOf(literal: Literal): Promise<Diagnostics> {
  const bound = boundOf(literal)
  const params = bound ? { maxAttackStringSize: bound.maxInput } : {}
  const key = createHash('sha256')
    .update(JSON.stringify([RECHECK_VERSION, literal.source, literal.flags, params]))
    .digest('hex')
  const file = path.join(VERDICTS, `${key}.json`)
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Diagnostics
  } catch {
    const verdict = await check(literal.source, literal.flags, params)
    mkdirSync(VERDICTS, { recursive: true })
    writeFileSync(file, JSON.stringify(verdict))
    return verdict
  }
}

interface Literal {
  file: string
  line: number
  source: string
  flags: string
}

function productionFiles(folder: string): string[] {
  return readdirSync(path.join(ROOT, folder), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.(ts|mjs)$/.test(entry.name))
    .map((entry) => path.relative(ROOT, path.join(entry.parentPath, entry.name)))
}

/** Every regular expression literal of a file, as the TypeScript scanner reads it. */
function literalsOf(file: string): Literal[] {
  const source = ts.createSourceFile(file, readFileSync(path.join(ROOT, file), 'utf8'), ts.ScriptTarget.Latest, true)
  const found: Literal[] = []
  const visit = (node: ts.Node) => {
    if (node.kind === ts.SyntaxKind.RegularExpressionLiteral) {
      const text = node.getText(source)
      const end = text.lastIndexOf('/')
      found.push({
        file,
        line: source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1,
        source: text.slice(1, end),
        flags: text.slice(end + 1),
      })
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
  return found
}

const literals = PRODUCTION_FOLDERS.flatMap(productionFiles).flatMap(literalsOf)
const boundOf = (literal: Literal) => BOUNDED.find((b) => b.file === literal.file && b.source === literal.source)

describe('regular expressions of the production code', () => {
  it('finds the literals it audits', () => {
    expect(literals.length).toBeGreaterThan(150)
  })

  it('are linear, or run only on input bounded as listed, fast enough at that bound', async () => {
    const verdicts: Diagnostics[] = []
    for (const literal of literals) verdicts.push(await verdictOf(literal))
    const problems: string[] = []
    for (const [i, literal] of literals.entries()) {
      const bound = boundOf(literal)
      const verdict = verdicts[i]!
      const where = `${literal.file}:${literal.line} /${literal.source}/${literal.flags}`
      if (verdict.status === 'safe') continue
      if (!bound) {
        problems.push(
          `${where}: ${verdict.status}${verdict.status === 'vulnerable' ? ` (${verdict.complexity.type})` : ''}`
        )
        continue
      }
      if (verdict.status !== 'vulnerable') continue
      const attack = verdict.attack.string.slice(0, bound.maxInput)
      const pattern = new RegExp(literal.source, literal.flags.replace('g', ''))
      const started = performance.now()
      pattern.test(attack)
      const ms = performance.now() - started
      if (ms > ATTACK_LIMIT_MS) problems.push(`${where}: ${ms.toFixed(0)} ms on a ${attack.length}-character attack`)
    }
    expect(problems).toEqual([])
  }, 180_000)

  it('lists no bound for a pattern that is gone', () => {
    const stale = BOUNDED.filter((b) => !literals.some((l) => l.file === b.file && l.source === b.source))
    expect(stale.map((b) => `${b.file} /${b.source}/`)).toEqual([])
  })
})
