/**
 * @module Runs the real worker entry (`worker/main.ts`) as a child process, so tests can kill it the way a crash
 * would (SIGKILL) and start it again.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))

export interface WorkerProcess {
  /** Kills the worker: SIGKILL simulates a crash, SIGTERM a graceful stop. Resolves when it has exited. */
  kill(signal: NodeJS.Signals): Promise<number | null>
  output(): string
}

/**
 * Starts `worker/main.ts` with the given environment and waits until it polls its task queue.
 * @param env - configuration for the worker (DATABASE_URL, TEMPORAL_ADDRESS, TEMPORAL_TASK_QUEUE...)
 */
export async function startWorkerProcess(env: Record<string, string>): Promise<WorkerProcess> {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'worker/main.ts'], {
    cwd: ROOT,
    env: { ...process.env, LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`worker did not start within 90 s:\n${output}`)), 90_000)
    const onData = (chunk: Buffer) => {
      output += chunk.toString()
      if (output.includes('worker running')) {
        clearTimeout(timer)
        resolve()
      }
    }
    child.stdout?.on('data', onData)
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()))
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`worker exited with ${code} before it was ready:\n${output}`))
    })
  })
  child.removeAllListeners('exit')
  return {
    async kill(signal) {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal)
      return exited
    },
    output: () => output,
  }
}
