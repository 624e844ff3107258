#!/usr/bin/env node
/**
 * `npm run generate`: runs `prisma generate` without letting the Prisma CLI download engines.
 *
 * Every Prisma CLI command first resolves the native schema engine and downloads it from binaries.prisma.sh
 * when it is missing, which fails offline. Generation itself runs in WebAssembly and never calls that engine,
 * so pointing PRISMA_SCHEMA_ENGINE_BINARY at a harmless executable is enough. Extra arguments are passed on.
 *
 * A client generated from the same schema, configuration, Prisma version and arguments is not generated again: the
 * output records what it was made from (`.generated-from`). `npm test`, `npm start` and `npm run fuzz` each generate
 * first, and CI runs all three (3 s of CPU each). PRISMA_GENERATE_ALWAYS=1 generates regardless.
 */
import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const cli = path.join(root, 'node_modules', 'prisma', 'build', 'index.js')
if (!existsSync(cli)) {
  console.error(`prisma CLI not found at ${cli}; run npm ci first`)
  process.exit(1)
}

const output = path.join(root, 'generated', 'prisma')
const client = path.join(output, 'client.ts')
const stamp = path.join(output, '.generated-from')
const madeFrom = createHash('sha256')
for (const file of ['prisma/schema.prisma', 'prisma.config.ts', 'node_modules/prisma/package.json']) {
  madeFrom.update(`${file}\n`).update(readFileSync(path.join(root, file)))
}
madeFrom.update(JSON.stringify(process.argv.slice(2)))
const key = madeFrom.digest('hex')
if (
  process.env.PRISMA_GENERATE_ALWAYS !== '1' &&
  existsSync(client) &&
  existsSync(stamp) &&
  readFileSync(stamp, 'utf8').trim() === key
) {
  console.log('Prisma client up to date (generated from this schema and Prisma version): not generated again')
  process.exit(0)
}

const env = {
  ...process.env,
  // Any existing executable works: generate only checks that the engine is there, it never runs it.
  PRISMA_SCHEMA_ENGINE_BINARY:
    process.env.PRISMA_SCHEMA_ENGINE_BINARY ?? (process.platform === 'win32' ? process.execPath : '/bin/true'),
  // No telemetry/update check: those are network calls too.
  CHECKPOINT_DISABLE: '1',
  PRISMA_HIDE_UPDATE_MESSAGE: '1',
}

// node + the CLI's entry point rather than node_modules/.bin/prisma, so this also works where .bin shims are
// missing or not executable (Windows, some CI caches).
const result = spawnSync(process.execPath, [cli, 'generate', ...process.argv.slice(2)], {
  cwd: root,
  env,
  stdio: 'inherit',
})
if (result.error) {
  console.error(result.error)
  process.exit(1)
}
if (result.status !== 0) process.exit(result.status ?? 1)

if (!existsSync(client)) {
  console.error(`prisma generate succeeded but ${path.relative(root, client)} is missing; check the generator output`)
  process.exit(1)
}
writeFileSync(stamp, `${key}\n`)
