#!/usr/bin/env node
/**
 * `npm test` after the Prisma client is generated: the type check (`tsc --noEmit`) and vitest side by side, failing
 * when either fails. The type check took 19 s of wall time before vitest started (25 s of CPU), while vitest's first
 * seconds (starting Temporal, migrating the template database, bundling the workflows) leave a core mostly idle.
 * vitest's output streams as it comes; the type check's is printed once it ends, so the two never interleave.
 * Extra arguments go to vitest (`npm test -- test/unit`).
 */
import { spawn } from 'node:child_process'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')
const bin = (name) => path.join(root, 'node_modules', name)

/** Runs `args` with this Node; resolves with its exit code (1 when killed by a signal). */
function run(args, { quiet }) {
  const child = spawn(process.execPath, args, { cwd: root, stdio: quiet ? ['ignore', 'pipe', 'pipe'] : 'inherit' })
  let output = ''
  if (quiet) for (const stream of [child.stdout, child.stderr]) stream.on('data', (chunk) => (output += chunk))
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code: code ?? 1, output })))
}

const typecheck = run([bin('typescript/bin/tsc'), '--noEmit'], { quiet: true })
const tests = run([bin('vitest/vitest.mjs'), 'run', ...process.argv.slice(2)], { quiet: false })
const [types, vitest] = await Promise.all([typecheck, tests])
if (types.code === 0) console.log('tsc --noEmit: no type errors')
else console.error(`tsc --noEmit failed (exit ${types.code}):\n${types.output}`)
process.exit(types.code || vitest.code)
