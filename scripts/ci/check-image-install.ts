/**
 * @module `npm run check:image`: builds the production image's file system without Docker (no engine runs on the CI
 * machines) and fails when the image would not build or start for want of a file or a package. From the Dockerfile
 * itself, so the check follows it when it changes:
 *
 * 1. .dockerignore keeps secrets and host state out of the build context (node_modules, .env files, .data).
 * 2. The dependency layer: its COPY instructions bring every file npm reads to install (package.json, the lock file,
 *    .npmrc), and its RUN, run as written in a clean folder with the npm of the image's Node major, succeeds.
 * 3. The rest of the build: the other COPY instructions (through .dockerignore) and RUN steps, run the same way.
 * 4. Every ENV naming a path in the image names something the build made (WORKFLOW_BUNDLE_PATH).
 * 5. The image's CMD and the commands temporal-compose.yml runs in it: every local file they load (following imports)
 *    and every package they import is there, in the production install (no devDependencies).
 *
 * `npm cache clean --force` is not run: it only makes the image smaller, and here it would empty this machine's npm
 * cache. The host's npm settings are set aside (the user's .npmrc, npm_config_* variables) except where to reach the
 * registry, so the install sees what the image's would: the copied .npmrc and the Dockerfile's ENV. `--keep` keeps
 * the folder for a look afterwards.
 *
 * The dependency layer is cached as Docker caches it (layer-cache.ts): its `npm ci` runs again only when the
 * instructions up to it, the files it starts from or the npm and Node that run it changed; else the folder it left is
 * restored. `--no-cache` runs it whatever the cache holds, as `docker build --no-cache` does.
 */
import { spawnSync } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { parse } from 'yaml'
import {
  type Command,
  dependencyLayer,
  globToRegExp,
  isIgnored,
  isNpmCacheClean,
  MUST_BE_IGNORED,
  NPM_INSTALL_INPUTS,
  parseCommand,
  parseCopy,
  parseDockerfile,
  parseDockerignore,
  parseEnv,
  shellSteps,
} from './dockerfile.ts'
import { projectCacheDir } from '../../infra/project-cache.ts'
import { layerKey, restoreLayer, saveLayer } from './layer-cache.ts'
import { checkClosure } from './module-graph.ts'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))

/** The npm each official `node:<major>` image ships (its major version): the install runs with that npm. */
const NPM_OF_NODE: Record<string, string> = { '20': '10', '22': '10', '24': '11' }

/** npm settings from the host that only say how to reach the registry, not what to install. */
const NETWORK_SETTINGS = /^npm_config_(cache|registry|cafile|ca|proxy|https_proxy|noproxy|strict_ssl)$/i

const checkStarted = Date.now()
const problems: string[] = []
const log = (message: string) => console.log(`[image] ${message}`)
const problem = (message: string) => {
  problems.push(message)
  console.log(`[image] PROBLEM: ${message}`)
}

const dockerfile = parseDockerfile(readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8'))
const ignoreFile = path.join(ROOT, '.dockerignore')
const ignoreRules = existsSync(ignoreFile) ? parseDockerignore(readFileSync(ignoreFile, 'utf8')) : []
const packageJson = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
  scripts?: Record<string, string>
}

// 1. What .dockerignore keeps out.
for (const sample of MUST_BE_IGNORED) {
  if (!isIgnored(sample, ignoreRules)) problem(`.dockerignore lets ${sample} into the build context`)
}

/** The build context: the files of a fresh clone (tracked, or new and not git-ignored) that .dockerignore lets in. */
const listed = spawnSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
  cwd: ROOT,
  encoding: 'utf8',
})
if (listed.status !== 0) throw new Error(`git ls-files failed: ${listed.stderr}`)
const context = listed.stdout
  .split('\0')
  .filter((file) => file !== '' && existsSync(path.join(ROOT, file)) && !isIgnored(file, ignoreRules))

const froms = dockerfile.filter((instruction) => instruction.keyword === 'FROM')
if (froms.length !== 1) throw new Error(`expected one FROM (a single-stage build), found ${froms.length}`)
const nodeMajor = /^node:(\d+)/.exec(froms[0]!.args)?.[1]
const npmMajor = nodeMajor === undefined ? undefined : NPM_OF_NODE[nodeMajor]
if (npmMajor === undefined) {
  throw new Error(`FROM ${froms[0]!.args}: which npm does it ship? Add its Node major to NPM_OF_NODE`)
}

/** The npm of the image's Node major, from the registry, cached outside the clone like CI's Node 24. */
function obtainNpm(major: string): string {
  const dir = projectCacheDir(`npm-${major}`)
  const cli = path.join(dir, 'node_modules', 'npm', 'bin', 'npm-cli.js')
  if (!existsSync(cli)) {
    const args = ['install', '--prefix', dir, '--no-save', '--no-audit', '--no-fund', `npm@${major}`]
    const result = spawnSync('npm', args, { stdio: ['ignore', 'ignore', 'inherit'] })
    if (result.status !== 0 || !existsSync(cli)) throw new Error(`could not install npm@${major} into ${dir}`)
  }
  return cli
}

const layer = dependencyLayer(dockerfile)
const scratch = mkdtempSync(path.join(tmpdir(), 'image-install-'))
const keep = process.argv.includes('--keep')
const noCache = process.argv.includes('--no-cache')
/** An image path (`/app/dist/x.js`) in the scratch folder. */
const host = (imagePath: string) => path.join(scratch, imagePath)

// Commands run with the image's npm first on PATH, the Dockerfile's ENV, and none of the host's npm settings.
const binDir = path.join(scratch, '.bin')
mkdirSync(binDir)
const npmCli = obtainNpm(npmMajor)
for (const [name, cli] of [
  ['npm', npmCli],
  ['npx', path.join(path.dirname(npmCli), 'npx-cli.js')],
] as const) {
  writeFileSync(path.join(binDir, name), `#!/bin/sh\nexec "${process.execPath}" "${cli}" "$@"\n`, { mode: 0o755 })
}
const emptyUserConfig = path.join(scratch, '.npmrc-user')
writeFileSync(emptyUserConfig, '')
const baseEnv: Record<string, string> = Object.fromEntries(
  Object.entries(process.env).filter(
    (entry): entry is [string, string] =>
      entry[1] !== undefined && (!/^npm_/i.test(entry[0]) || NETWORK_SETTINGS.test(entry[0]))
  )
)
baseEnv.PATH = `${binDir}${path.delimiter}${process.env.PATH ?? ''}`
baseEnv.npm_config_userconfig = emptyUserConfig

let workdir = '/'
const imageEnv: Record<string, string> = {}
/** The WORKDIR's image path in commands and ENV values, as the scratch folder's. */
const localise = (text: string) =>
  workdir === '/'
    ? text
    : text.replace(new RegExp(`${workdir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?=/|\\s|$|")`, 'g'), host(workdir))

/** COPY from the build context into the image, as Docker does it; a source outside the context is a problem. */
function copy(args: string, line: number) {
  const { sources, dest, flags } = parseCopy(args)
  if (flags.from !== undefined) throw new Error(`Dockerfile line ${line}: COPY --from is not supported by this check`)
  const target = path.posix.resolve(workdir, dest)
  const intoDir = dest.endsWith('/') || sources.length > 1
  for (const source of sources) {
    const clean = path.posix.normalize(source).replace(/^(\.\/)+|\/$/g, '')
    const whole = clean === '.' || clean === ''
    const glob = /[*?[]/.test(clean) ? globToRegExp(clean) : undefined
    const files = context.filter((file) =>
      whole ? true : glob ? glob.test(file) : file === clean || file.startsWith(`${clean}/`)
    )
    if (files.length === 0) {
      problem(
        `Dockerfile line ${line}: COPY ${source}: not in the build context (missing, or left out by .dockerignore)`
      )
      continue
    }
    for (const file of files) {
      const isDirCopy = whole || (glob === undefined && file !== clean)
      const relative = isDirCopy ? (whole ? file : file.slice(clean.length + 1)) : path.posix.basename(file)
      const to = isDirCopy || intoDir || glob ? path.posix.join(target, relative) : target
      mkdirSync(path.dirname(host(to)), { recursive: true })
      // A new file, not a write into the old one: that may be a hard link into the layer cache (layer-cache.ts).
      rmSync(host(to), { force: true })
      cpSync(path.join(ROOT, file), host(to))
    }
  }
}

/**
 * Runs a RUN instruction's command in the image's WORKDIR, in one shell as Docker does (so a `cd` holds for the steps
 * after it), less any `npm cache clean` step; false when it fails.
 */
function run(command: Command, line: number): boolean {
  const env = {
    ...baseEnv,
    ...Object.fromEntries(Object.entries(imageEnv).map(([name, value]) => [name, localise(value)])),
  }
  const steps =
    command.form === 'shell' ? shellSteps(command.script) : [command.argv.map((arg) => JSON.stringify(arg)).join(' ')]
  for (const step of steps.filter(isNpmCacheClean)) {
    log(`line ${line}: skipping \`${step}\` (only shrinks the image; here it would empty this machine's npm cache)`)
  }
  const script = steps.filter((step) => !isNpmCacheClean(step)).join(' && ')
  const started = Date.now()
  log(`line ${line}: ${script}`)
  const result = spawnSync('/bin/sh', ['-c', localise(script)], { cwd: host(workdir), env, stdio: 'inherit' })
  const status = result.status ?? result.signal
  log(`line ${line}: exit ${status} after ${((Date.now() - started) / 1000).toFixed(1)} s`)
  if (result.status !== 0) problem(`Dockerfile line ${line}: \`${script}\` failed (exit ${status})`)
  return result.status === 0
}

/**
 * The dependency layer's RUN, or the folder it left the last time nothing it starts from had changed: the Dockerfile
 * up to it, the files copied before it, the npm and the Node that run it (layer-cache.ts).
 */
function runDependencyLayer(command: Command, line: number): boolean {
  const dir = host(workdir)
  const npmVersion = (
    JSON.parse(readFileSync(path.join(path.dirname(npmCli), '..', 'package.json'), 'utf8')) as {
      version: string
    }
  ).version
  const recipe = [
    ...dockerfile.slice(0, layer.index + 1).map(({ keyword, args }) => `${keyword} ${args}`),
    `npm ${npmVersion} on node ${process.version} ${process.platform}-${process.arch}`,
  ]
  const key = layerKey(recipe, dir)
  if (!noCache && restoreLayer(key, dir)) {
    log(
      `line ${line}: the dependency layer from the cache (${key}): nothing it is built from changed (--no-cache runs it)`
    )
    return true
  }
  if (!run(command, line)) return false
  saveLayer(key, dir)
  return true
}

/** Whether a `node --import X` names a package (tsx) rather than a local file. */
const isPackage = (specifier: string) => !specifier.startsWith('.') && !specifier.startsWith('/')

/** 2-3. The build, instruction by instruction: false when a step failed and the image would not build. */
function build(entryCommands: Array<{ words: string[]; from: string }>): boolean {
  const words = (command: Command) => (command.form === 'exec' ? command.argv : command.script.split(/\s+/))
  for (const [index, { keyword, args, line }] of dockerfile.entries()) {
    if (keyword === 'WORKDIR') workdir = path.posix.resolve(workdir, args)
    else if (keyword === 'ENV') Object.assign(imageEnv, parseEnv(args))
    else if (keyword === 'COPY') copy(args, line)
    else if (keyword === 'RUN') {
      if (index === layer.index) {
        for (const input of NPM_INSTALL_INPUTS) {
          if (context.includes(input) && !existsSync(path.join(host(workdir), input))) {
            problem(
              `the dependency layer (COPY before line ${line}) does not copy ${input}, which npm reads to install`
            )
          }
        }
      }
      const succeeded =
        index === layer.index ? runDependencyLayer(parseCommand(args), line) : run(parseCommand(args), line)
      if (!succeeded) return false
    } else if (keyword === 'CMD' || keyword === 'ENTRYPOINT') {
      entryCommands.push({ words: words(parseCommand(args)), from: `Dockerfile ${keyword}` })
    } else if (!['FROM', 'USER', 'EXPOSE', 'LABEL', 'STOPSIGNAL', 'HEALTHCHECK'].includes(keyword)) {
      throw new Error(`Dockerfile line ${line}: ${keyword} is not supported by this check`)
    }
  }
  return true
}

/** 4. Every ENV value that names a path in the image names something the build made. */
function checkImagePaths() {
  for (const [name, value] of Object.entries(imageEnv)) {
    if (value.startsWith(`${workdir}/`) && !existsSync(host(value))) {
      problem(`ENV ${name}=${value}: the build made no ${value}`)
    }
  }
}

/**
 * 5. What the image's commands load: the CMD, and the commands temporal-compose.yml gives the services it builds from
 * this Dockerfile (`npm run x` is followed into package.json's script).
 */
function checkEntries(entryCommands: Array<{ words: string[]; from: string }>) {
  const compose = parse(readFileSync(path.join(ROOT, 'temporal-compose.yml'), 'utf8'), { merge: true }) as {
    services: Record<string, { build?: unknown; command?: string | string[] }>
  }
  for (const [name, service] of Object.entries(compose.services)) {
    if (service.build === undefined || service.command === undefined) continue
    const argv = typeof service.command === 'string' ? [service.command] : service.command
    entryCommands.push({ words: argv.flatMap((arg) => arg.split(/\s+/)), from: `temporal-compose.yml ${name}` })
  }
  const entries: Array<{ file: string; from: string }> = []
  const packages: Array<{ name: string; from: string }> = []
  const collect = (commandWords: string[], from: string) => {
    commandWords.forEach((word, i) => {
      const previous = commandWords[i - 1]
      if (['--import', '--require', '-r'].includes(previous ?? '') && isPackage(word))
        packages.push({ name: word, from })
      else if (/^[\w./-]+\.(?:[mc]?ts|[mc]?js)$/.test(word)) entries.push({ file: word, from })
      else if (previous === 'run' && commandWords[i - 2] === 'npm') {
        const script = packageJson.scripts?.[word]
        if (script === undefined) problem(`${from}: npm run ${word}: package.json has no such script`)
        else collect(script.split(/\s+/), `${from} (npm run ${word})`)
      }
    })
  }
  for (const { words, from } of entryCommands) collect(words, from)
  const { missing, files } = checkClosure(host(workdir), entries, packages)
  log(`${entries.length} entry files and the ${files} files they load: ${missing.length} missing`)
  for (const { what, from } of missing) problem(`${from} needs ${what}, which is not in the image`)
}

try {
  const entryCommands: Array<{ words: string[]; from: string }> = []
  if (build(entryCommands)) {
    checkImagePaths()
    checkEntries(entryCommands)
  }
} finally {
  if (keep) log(`kept ${scratch}`)
  else rmSync(scratch, { recursive: true, force: true })
}
const seconds = `${Math.round((Date.now() - checkStarted) / 1000)} s`
if (problems.length > 0) {
  log(`${problems.length} problem(s) in ${seconds}: the image would not build or start as the Dockerfile stands`)
  process.exit(1)
}
log(`the image builds from this Dockerfile and has every file and package its commands load (${seconds})`)
