/**
 * The Dockerfile reading behind `npm run check:image` (scripts/ci/check-image-install.ts), and the repository's own
 * Dockerfile and .dockerignore held to what that check relies on: the dependency layer copies what npm reads, and the
 * build context leaves out secrets and host state. The check itself installs and builds (a minute or more); these
 * catch the same drift in milliseconds.
 */
import { existsSync, readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import {
  dependencyLayer,
  isIgnored,
  MUST_BE_IGNORED,
  NPM_INSTALL_INPUTS,
  parseCommand,
  parseCopy,
  parseDockerfile,
  parseDockerignore,
  parseEnv,
  shellSteps,
} from '../../../../scripts/ci/dockerfile.ts'

const repoFile = (name: string) => new URL(`../../../../${name}`, import.meta.url)

describe('parseDockerfile', () => {
  it('joins continuation lines, drops comments (inside a continuation too) and keeps the keyword line', () => {
    const instructions = parseDockerfile(
      [
        '# syntax comment',
        'FROM node:22-slim',
        '',
        'env A=1 \\',
        '    # a comment in the middle',
        '    B=2',
        'RUN npm ci \\',
        '  && npm cache clean --force',
      ].join('\n')
    )
    expect(instructions).toEqual([
      { keyword: 'FROM', args: 'node:22-slim', line: 2 },
      { keyword: 'ENV', args: 'A=1 B=2', line: 4 },
      { keyword: 'RUN', args: 'npm ci && npm cache clean --force', line: 7 },
    ])
  })

  it('refuses a file that ends in the middle of a continuation', () => {
    expect(() => parseDockerfile('RUN a \\\n')).toThrow(/continuation/)
  })
})

describe('instruction arguments', () => {
  it('reads COPY in both forms, with its flags', () => {
    expect(parseCopy('--chown=node:node package.json package-lock.json .npmrc ./')).toEqual({
      sources: ['package.json', 'package-lock.json', '.npmrc'],
      dest: './',
      flags: { chown: 'node:node' },
    })
    expect(parseCopy('["a b.txt", "/dest/"]')).toEqual({ sources: ['a b.txt'], dest: '/dest/', flags: {} })
    expect(() => parseCopy('only-one')).toThrow(/destination/)
  })

  it('reads ENV with several pairs, quotes, and the old one-variable form', () => {
    expect(parseEnv('NODE_ENV=production NPM_CONFIG_FUND=false')).toEqual({
      NODE_ENV: 'production',
      NPM_CONFIG_FUND: 'false',
    })
    expect(parseEnv(`A="two words" B='single' C=`)).toEqual({ A: 'two words', B: 'single', C: '' })
    expect(parseEnv('PATH_VAR /usr/local/bin')).toEqual({ PATH_VAR: '/usr/local/bin' })
  })

  it('tells exec form from shell form and splits a shell command into its && steps', () => {
    expect(parseCommand('["node", "--import", "tsx", "api/server.ts"]')).toEqual({
      form: 'exec',
      argv: ['node', '--import', 'tsx', 'api/server.ts'],
    })
    expect(parseCommand('npm run generate')).toEqual({ form: 'shell', script: 'npm run generate' })
    expect(shellSteps('npm ci --omit=dev && npm cache clean --force')).toEqual([
      'npm ci --omit=dev',
      'npm cache clean --force',
    ])
  })
})

describe('dependencyLayer', () => {
  it('is the first RUN that installs, with the COPY instructions before it', () => {
    const layer = dependencyLayer(
      parseDockerfile(
        [
          'FROM node:22-slim',
          'WORKDIR /app',
          'COPY package.json package-lock.json ./',
          'RUN apt-get update',
          'RUN npm ci --omit=dev && npm cache clean --force',
          'COPY . .',
          'RUN npm run generate',
        ].join('\n')
      )
    )
    expect(layer.index).toBe(4)
    expect(layer.copies.map(({ copy }) => copy.sources)).toEqual([['package.json', 'package-lock.json']])
    expect(layer.install.command).toEqual({ form: 'shell', script: 'npm ci --omit=dev && npm cache clean --force' })
  })

  it('refuses a Dockerfile that installs no dependencies', () => {
    expect(() => dependencyLayer(parseDockerfile('FROM node:22-slim\nCOPY . .'))).toThrow(/npm ci/)
  })
})

describe('isIgnored (.dockerignore)', () => {
  const rules = parseDockerignore(
    ['# comment', 'node_modules', '/dist/', '*.log', '.env', '.env.*', '!.env.example', 'docs/**/*.tmp'].join('\n')
  )

  it('leaves out a matched folder with everything under it', () => {
    expect(isIgnored('node_modules', rules)).toBe(true)
    expect(isIgnored('node_modules/hono/package.json', rules)).toBe(true)
    expect(isIgnored('dist/workflow-bundle.js', rules)).toBe(true)
    expect(isIgnored('api/node_modules.ts', rules)).toBe(false)
  })

  it("matches from the context's root only, as Docker does (unlike .gitignore)", () => {
    expect(isIgnored('npm-debug.log', rules)).toBe(true)
    expect(isIgnored('logs/npm-debug.log', rules)).toBe(false)
    expect(isIgnored('sdks/typescript/node_modules/x.js', rules)).toBe(false)
  })

  it('lets the last matching rule decide, so ! takes a file back', () => {
    expect(isIgnored('.env', rules)).toBe(true)
    expect(isIgnored('.env.production', rules)).toBe(true)
    expect(isIgnored('.env.example', rules)).toBe(false)
  })

  it('reads ** as any number of folders, none included', () => {
    expect(isIgnored('docs/a.tmp', rules)).toBe(true)
    expect(isIgnored('docs/a/b/c.tmp', rules)).toBe(true)
    expect(isIgnored('docs/a.md', rules)).toBe(false)
  })
})

describe("this repository's Dockerfile and .dockerignore", () => {
  const dockerfile = parseDockerfile(readFileSync(repoFile('Dockerfile'), 'utf8'))
  const rules = parseDockerignore(readFileSync(repoFile('.dockerignore'), 'utf8'))
  const layer = dependencyLayer(dockerfile)

  it('copies every file npm reads to install into the dependency layer (.npmrc: legacy-peer-deps)', () => {
    const copied = layer.copies.flatMap(({ copy }) => copy.sources)
    const inputs = NPM_INSTALL_INPUTS.filter((name) => existsSync(repoFile(name)))
    expect(inputs).toContain('.npmrc')
    expect(copied).toEqual(expect.arrayContaining(inputs))
    for (const name of copied) expect(isIgnored(name, rules), `${name} left out of the context`).toBe(false)
  })

  it('installs with npm ci: the lock file as it is, production dependencies only, no install scripts', () => {
    expect(layer.install.command.form).toBe('shell')
    const steps = layer.install.command.form === 'shell' ? shellSteps(layer.install.command.script) : []
    expect(steps[0]).toBe('npm ci --omit=dev --ignore-scripts')
  })

  it('keeps secrets and host state out of the build context', () => {
    for (const sample of MUST_BE_IGNORED) expect(isIgnored(sample, rules), sample).toBe(true)
    expect(isIgnored('prisma/schema.prisma', rules)).toBe(false)
    expect(isIgnored('workflows/index.ts', rules)).toBe(false)
  })
})
