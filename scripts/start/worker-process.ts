/**
 * @module Runs the real worker entry (`worker/main.ts`), or the API's (`api/server.ts`), as a child process, so tests
 * and benchmarks can kill it the way a crash would (SIGKILL) and start it again.
 */
import { spawn } from 'node:child_process'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { dieWithParent } from './children-die-with-parent.ts'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const READY_TIMEOUT_MS = 90_000

/**
 * How the child runs TypeScript: natively where Node strips types itself (22.18+, 24: the suite's runtime in CI), else
 * through tsx. Same code either way; the native loader starts the worker with ~1.2 s less CPU (1.5 s against 2.7 s to
 * load its modules, measured on Node 24), and the suite starts some eighty workers on two cores.
 */
export const typeScriptLoader = (process.features as { typescript?: string | false }).typescript
  ? []
  : ['--import', 'tsx']

/**
 * Node's on-disk compile cache (22.1+; Node 20 ignores the variable), shared by every child the suite starts: the
 * first worker compiles the modules (and strips their types) and the others load V8's cached code. Importing the
 * worker's modules took 1.0 s of CPU without it and 0.6 s with it (Node 24, measured 2026-11-25), on each of the
 * hundred-odd workers and APIs a run starts. Entries are keyed by the module's content, so a stale one is never used.
 */
export const COMPILE_CACHE = process.env.NODE_COMPILE_CACHE ?? path.join(tmpdir(), 'therapy-care-node-compile-cache')

export interface EntryProcess {
  readonly pid: number
  /** Kills the process: SIGKILL simulates a crash, SIGTERM a graceful stop. Resolves when it has exited. */
  kill(signal: NodeJS.Signals): Promise<number | null>
  output(): string
}

export type WorkerProcess = EntryProcess

/** The worker's /metrics address, from its start-up line (`"metrics":"http://..."`); undefined when off. */
export function metricsUrlOf(worker: EntryProcess): string | undefined {
  return /"metrics":"(http[^"]+)"/.exec(worker.output())?.[1]
}

/**
 * Starts `worker/main.ts` with the given environment and waits until it polls its task queue.
 * @param env - configuration for the worker (DATABASE_URL, TEMPORAL_ADDRESS, TEMPORAL_TASK_QUEUE...)
 */
export const startWorkerProcess = (env: Record<string, string>): Promise<WorkerProcess> =>
  startEntry('worker/main.ts', 'worker running', env)

/**
 * Starts `api/server.ts` with the given environment (PORT included) and waits until it listens.
 * @param env - configuration for the API (DATABASE_URL, TEMPORAL_ADDRESS, PORT...)
 */
export const startApiProcess = (env: Record<string, string>): Promise<EntryProcess> =>
  startEntry('api/server.ts', 'API listening', env)

async function startEntry(entry: string, readyLine: string, env: Record<string, string>): Promise<EntryProcess> {
  const name = entry.split('/')[0]
  const child = spawn(process.execPath, [...typeScriptLoader, entry], {
    cwd: ROOT,
    // Development unless told otherwise, as `npm start` says it: the development secrets key needs it said.
    env: {
      ...process.env,
      NODE_ENV: process.env.NODE_ENV ?? 'development',
      NODE_COMPILE_CACHE: COMPILE_CACHE,
      LOG_LEVEL: 'info',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  dieWithParent(child)
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))

  const deadline = Date.now() + READY_TIMEOUT_MS
  while (!output.includes(readyLine)) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`${name} exited before it was ready:\n${output}`)
    if (Date.now() > deadline) {
      child.kill('SIGKILL')
      throw new Error(`${name} did not start within ${READY_TIMEOUT_MS} ms:\n${output}`)
    }
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  return {
    pid: child.pid ?? 0,
    async kill(signal) {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal)
      return exited
    },
    output: () => output,
  }
}
