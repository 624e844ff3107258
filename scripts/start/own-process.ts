/**
 * @module `npm start` runs `tsx scripts/start.ts`, and the tsx CLI (tsx 4) passes a Ctrl-C on to its child and kills it
 * (SIGKILL) when it has not acknowledged the signal within 60 ms. The start script serves the embedded database and
 * seeds it on its main thread; busy on a loaded machine, it missed that window (3 runs in 20 while measuring warm
 * starts) and was killed before it could stop anything: the API and the worker ran on without their supervisor and
 * the embedded database was not closed. So, run by the tsx CLI, the script runs itself again in a process of its own
 * (`node --import tsx`, as it runs its children) and waits for it; this process does nothing else and acknowledges at
 * once.
 */
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { constants } from 'node:os'
import { fileURLToPath } from 'node:url'

/** When the start began, in ms since the epoch: this process's start, or the tsx CLI child's that ran it again. */
export function startLaunchedAt(): number {
  return Number(process.env.START_LAUNCHED_AT) || performance.timeOrigin
}

/** Whether this process is the child of the tsx CLI, which loads its preflight script into it. */
const runByTsxCli = () => process.execArgv.some((arg) => /[\\/]tsx[\\/]dist[\\/]preflight\.cjs$/.test(arg))

/**
 * Outside the tsx CLI, returns at once. Under it, runs `entry` in a process of its own and exits as it exits.
 * @param entry - the script's own URL (`import.meta.url`)
 */
export async function leaveTsxCli(entry: string): Promise<void> {
  if (!runByTsxCli()) return
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(entry)], {
    stdio: 'inherit',
    // The start's time is this process's: the summary says how long the whole start took.
    env: { ...process.env, START_LAUNCHED_AT: String(performance.timeOrigin) },
  })
  // A Ctrl-C reaches the script itself (one process group); a signal sent to this process alone is passed on. The
  // script takes a second one within a second for the same.
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => child.kill(signal))
  const [code, signal] = (await once(child, 'exit')) as [number | null, NodeJS.Signals | null]
  process.exit(code ?? 128 + (signal ? constants.signals[signal] : 0))
}
