/**
 * @module The workers of the test platform, run by worker hosts (worker-host-entry.ts): one long-lived process per
 * vitest slot serves the files of that slot one after another, instead of a process started (and its modules loaded,
 * ~2 s of CPU) for each file. A host is taken when a file starts its worker and given back when the file stops it
 * (SIGTERM, as platform.stop does); a worker killed any other way (SIGKILL: a crash) kills its host for real, and the
 * next start takes another host or a new one. WORKER_HOSTS=0 gives every worker a process of its own again.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import type { Socket } from 'node:net'
import { fileURLToPath } from 'node:url'
import { COMPILE_CACHE, typeScriptLoader, type WorkerProcess } from '../../scripts/start/worker-process.ts'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const ENTRY = fileURLToPath(new URL('./worker-host-entry.ts', import.meta.url))
const READY_TIMEOUT_MS = 90_000

/** What a host prints when a worker has stopped and closed everything: it takes the next file's worker. */
export const IDLE_LINE = 'worker host idle'

interface Host {
  child: ChildProcessWithoutNullStreams
  output: string
  exited: Promise<number | null>
}

/** Hosts whose last worker stopped, in this test process (its files run one after another). */
const idle: Host[] = []

/**
 * Whether a worker with this environment may run in a host: not when it sets what is the process's own (the SDK's
 * metrics endpoint, the worker's CPU priority, OpenTelemetry), which a host sets once for every file it serves.
 */
export function hostable(env: Record<string, string>): boolean {
  return (
    process.env.WORKER_HOSTS !== '0' &&
    env.TEMPORAL_METRICS_PORT === 'off' &&
    (env.WORKER_CPU_NICE ?? '0') === '0' &&
    !Object.keys(env).some((name) => name.startsWith('OTEL_'))
  )
}

function spawnHost(): Host {
  // The young generation the test workers have (vitest.config.ts): the host runs as busy a platform as they do.
  const child = spawn(process.execPath, ['--max-semi-space-size=32', ...typeScriptLoader, ENTRY], {
    cwd: ROOT,
    env: { ...process.env, NODE_COMPILE_CACHE: COMPILE_CACHE },
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  const host: Host = {
    child,
    output: '',
    exited: new Promise((resolve) => child.once('exit', (code) => resolve(code))),
  }
  child.stdout.on('data', (chunk: Buffer) => (host.output += chunk.toString()))
  child.stderr.on('data', (chunk: Buffer) => (host.output += chunk.toString()))
  // An idle host must not keep its test process alive; it ends when that process closes its stdin.
  child.unref()
  for (const stream of [child.stdin, child.stdout, child.stderr]) (stream as unknown as Socket).unref()
  return host
}

const isDead = (host: Host) => host.child.exitCode !== null || host.child.signalCode !== null

/** Waits for `text` in what the host printed after `from`. */
async function waitFor(host: Host, from: number, text: string, what: string): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS
  while (!host.output.includes(text, from)) {
    if (isDead(host)) throw new Error(`the worker host exited before ${what}:\n${host.output.slice(from)}`)
    if (Date.now() > deadline) {
      host.child.kill('SIGKILL')
      throw new Error(
        `the worker host did not report ${what} within ${READY_TIMEOUT_MS} ms:\n${host.output.slice(from)}`
      )
    }
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

/** Starts a worker with `env` in an idle host (or a new one) and waits until it polls its task queue. */
export async function startWorkerInHost(env: Record<string, string>): Promise<WorkerProcess> {
  let host = idle.pop()
  while (host && isDead(host)) host = idle.pop()
  host ??= spawnHost()
  const chosen = host
  const from = chosen.output.length
  let to: number | undefined
  // Workflows in the host's main thread: a thread of their own would compile the workflow bundle again at each of the
  // host's worker starts (~0.9 s of CPU each, one or more per integration file). Workers in processes of their own keep
  // production's thread (infra/config.ts, WORKER_WORKFLOWS_IN_MAIN_THREAD).
  const start = { ...process.env, NODE_COMPILE_CACHE: COMPILE_CACHE, LOG_LEVEL: 'info', ...env }
  const command = { start: { WORKER_WORKFLOWS_IN_MAIN_THREAD: 'true', ...start } }
  chosen.child.stdin.write(`${JSON.stringify(command)}\n`)
  await waitFor(chosen, from, 'worker running', 'the worker running')
  let stopped: Promise<number | null> | undefined
  return {
    pid: chosen.child.pid ?? 0,
    kill(signal) {
      stopped ??= (async () => {
        if (isDead(chosen)) return chosen.exited
        if (signal === 'SIGTERM' || signal === 'SIGINT') {
          chosen.child.stdin.write(`${JSON.stringify({ stop: true })}\n`)
          await waitFor(chosen, from, IDLE_LINE, 'the worker stopped')
          to = chosen.output.length
          idle.push(chosen)
          return 0
        }
        chosen.child.kill(signal)
        return chosen.exited
      })()
      return stopped
    },
    output: () => chosen.output.slice(from, to),
  }
}
