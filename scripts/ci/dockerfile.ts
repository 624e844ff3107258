/**
 * @module Reads a Dockerfile and its .dockerignore as Docker's builder does, far enough for the image checks
 * (scripts/ci/check-image-install.ts): instructions with their continuation lines joined and comments dropped, the
 * arguments of COPY, RUN, ENV, WORKDIR and CMD, the dependency layer, and which context paths .dockerignore leaves
 * out; and the files the image's install must see and must not. No Docker engine runs on the CI machines, so this is
 * how the image's build steps are known there.
 */

/** Files npm reads from the project folder to install: each one the repository has must be in the dependency layer. */
export const NPM_INSTALL_INPUTS = ['package.json', 'package-lock.json', 'npm-shrinkwrap.json', '.npmrc']

/** Context paths the image must never receive: secrets, and host state that would replace the image's own. */
export const MUST_BE_IGNORED = ['node_modules/hono/package.json', '.env', '.env.production', '.data/pglite/PG_VERSION']

export interface Instruction {
  /** Upper case: `COPY`, `RUN`... */
  keyword: string
  /** Everything after the keyword, continuation lines joined with a space. */
  args: string
  /** 1-based line of the keyword in the Dockerfile. */
  line: number
}

/** A command in exec form (`["node", "x.ts"]`) or shell form (run by `/bin/sh -c`). */
export type Command = { form: 'exec'; argv: string[] } | { form: 'shell'; script: string }

export interface Copy {
  sources: string[]
  dest: string
  /** `--from=...`, `--chown=...` and the like, without their dashes: `{ from: 'build' }`. */
  flags: Record<string, string>
}

/** Splits a Dockerfile into instructions: comments and empty lines go, `\` at a line's end joins the next line. */
export function parseDockerfile(text: string): Instruction[] {
  const instructions: Instruction[] = []
  let pending: { parts: string[]; line: number } | undefined
  text.split(/\r?\n/).forEach((raw, index) => {
    const trimmed = raw.trim()
    // A comment line inside a continuation is dropped too, as Docker does.
    if (trimmed === '' || trimmed.startsWith('#')) return
    const continued = trimmed.endsWith('\\')
    const part = continued ? trimmed.slice(0, -1).trim() : trimmed
    pending ??= { parts: [], line: index + 1 }
    pending.parts.push(part)
    if (continued) return
    const joined = pending.parts.filter((p) => p !== '').join(' ')
    const match = /^(\S+)\s*(.*)$/.exec(joined)
    if (match) instructions.push({ keyword: match[1]!.toUpperCase(), args: match[2]!, line: pending.line })
    pending = undefined
  })
  if (pending) throw new Error(`Dockerfile line ${pending.line}: the last instruction ends in a continuation`)
  return instructions
}

/** A JSON array of strings (exec form), or undefined when the text is not one. */
function jsonArray(args: string): string[] | undefined {
  if (!args.startsWith('[')) return undefined
  try {
    const value: unknown = JSON.parse(args)
    return Array.isArray(value) && value.every((item) => typeof item === 'string') ? value : undefined
  } catch {
    return undefined
  }
}

/** RUN, CMD or ENTRYPOINT arguments as a command. */
export function parseCommand(args: string): Command {
  const argv = jsonArray(args)
  return argv ? { form: 'exec', argv } : { form: 'shell', script: args }
}

/** COPY or ADD arguments: leading `--flag=value`s, then sources and the destination (exec or space-separated form). */
export function parseCopy(args: string): Copy {
  const flags: Record<string, string> = {}
  let rest = args
  for (let match = /^--([\w-]+)(?:=(\S*))?\s+/.exec(rest); match; match = /^--([\w-]+)(?:=(\S*))?\s+/.exec(rest)) {
    flags[match[1]!] = match[2] ?? 'true'
    rest = rest.slice(match[0].length)
  }
  const paths = jsonArray(rest) ?? rest.split(/\s+/).filter((word) => word !== '')
  if (paths.length < 2) throw new Error(`COPY ${args}: needs at least one source and a destination`)
  return { sources: paths.slice(0, -1), dest: paths.at(-1)!, flags }
}

/** ENV arguments: `KEY=value KEY2="a b"`, or the old one-variable form `KEY value`. */
export function parseEnv(args: string): Record<string, string> {
  if (!/^[^\s=]+=/.test(args)) {
    const match = /^(\S+)\s+(.*)$/.exec(args)
    if (!match) throw new Error(`ENV ${args}: expected KEY=value`)
    return { [match[1]!]: match[2]! }
  }
  const env: Record<string, string> = {}
  const pair = /([^\s=]+)=("(?:[^"\\]|\\.)*"|'[^']*'|\S*)/g
  for (const [, key, raw] of args.matchAll(pair)) {
    env[key!] = raw!.startsWith('"')
      ? raw!.slice(1, -1).replace(/\\(.)/g, '$1')
      : raw!.startsWith("'")
        ? raw!.slice(1, -1)
        : raw!
  }
  return env
}

/** A shell script's `&&`-joined steps (`npm ci ... && npm cache clean --force` is two), trimmed. */
export function shellSteps(script: string): string[] {
  return script
    .split('&&')
    .map((step) => step.trim())
    .filter((step) => step !== '')
}

/** `npm ci`, `npm install` or `npm i`: a step that installs dependencies from package.json and the lock file. */
export const isNpmInstall = (step: string) => /^npm\s+(ci|install|i)(\s|$)/.test(step)

/** `npm cache clean`: shrinks the image, installs nothing. */
export const isNpmCacheClean = (step: string) => /^npm\s+cache\s+clean(\s|$)/.test(step)

export interface DependencyLayer {
  /** The COPY instructions before the install, with the files they bring in. */
  copies: Array<Instruction & { copy: Copy }>
  /** The RUN that installs the dependencies. */
  install: Instruction & { command: Command }
  /** Its index in the instruction list: what follows it is the rest of the build. */
  index: number
}

/**
 * The image's dependency layer: the first RUN with an npm install step, and the COPY instructions before it. Docker
 * caches that layer until one of those files changes, so they must be everything the install reads.
 */
export function dependencyLayer(instructions: Instruction[]): DependencyLayer {
  const index = instructions.findIndex((instruction) => {
    if (instruction.keyword !== 'RUN') return false
    const command = parseCommand(instruction.args)
    return command.form === 'shell'
      ? shellSteps(command.script).some(isNpmInstall)
      : isNpmInstall(command.argv.join(' '))
  })
  if (index < 0) throw new Error('the Dockerfile has no RUN with `npm ci` or `npm install`')
  const copies = instructions
    .slice(0, index)
    .filter((instruction) => instruction.keyword === 'COPY' || instruction.keyword === 'ADD')
    .map((instruction) => ({ ...instruction, copy: parseCopy(instruction.args) }))
  const install = instructions[index]!
  return { copies, install: { ...install, command: parseCommand(install.args) }, index }
}

/** A glob of Docker's (Go's filepath.Match plus `**`) as an anchored regular expression over `/`-separated paths. */
export function globToRegExp(glob: string): RegExp {
  let source = ''
  for (let i = 0; i < glob.length; i++) {
    const char = glob[i]!
    if (char === '*' && glob[i + 1] === '*') {
      // `**/` may match no directory at all; a trailing `**` matches everything below.
      const slash = glob[i + 2] === '/'
      source += slash ? '(?:.*/)?' : '.*'
      i += slash ? 2 : 1
    } else if (char === '*') source += '[^/]*'
    else if (char === '?') source += '[^/]'
    else if (char === '\\' && i + 1 < glob.length) source += `\\${glob[++i]}`
    else if (char === '[') {
      const end = glob.indexOf(']', i + 1)
      if (end < 0) throw new Error(`glob ${glob}: unterminated [`)
      source += `[${glob.slice(i + 1, end).replace(/^!/, '^')}]`
      i = end
    } else source += char.replace(/[.+^${}()|]/g, '\\$&')
  }
  return new RegExp(`^${source}$`)
}

export interface IgnoreRule {
  pattern: string
  exclusion: boolean
  regex: RegExp
}

/** .dockerignore lines as rules: comments and blank lines dropped, leading `/` and `./` removed, `!` an exception. */
export function parseDockerignore(text: string): IgnoreRule[] {
  return text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const exclusion = line.startsWith('!')
      const pattern = (exclusion ? line.slice(1).trim() : line)
        .replace(/^(\.?\/)+/, '')
        .replace(/\/+$/, '')
        .replace(/\/+/g, '/')
      return { pattern, exclusion, regex: globToRegExp(pattern) }
    })
}

/**
 * Whether .dockerignore leaves a context path (relative, `/`-separated) out of the build context. As Docker's
 * pattern matcher: every rule is tried in order and the last one that matches decides; a rule matches a path or any
 * of its parent directories (`node_modules` leaves out `node_modules/a/b.js`), from the context's root only (`*.log`
 * is `x.log`, not `logs/x.log`).
 */
export function isIgnored(path: string, rules: IgnoreRule[]): boolean {
  const segments = path.split('/')
  const candidates = segments.map((_, i) => segments.slice(0, i + 1).join('/'))
  let ignored = false
  for (const rule of rules) {
    if (candidates.some((candidate) => rule.regex.test(candidate))) ignored = !rule.exclusion
  }
  return ignored
}
