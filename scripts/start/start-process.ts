/**
 * @module Runs `npm start`'s script (scripts/start.ts, what `npm start` runs after generating the Prisma client) as a
 * real child process, reads its output and finds its process tree, so tests can kill its children the way a crash
 * would and check that nothing outlives it.
 */
import { spawn } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { fileURLToPath } from 'node:url'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))

export interface StartProcess {
  pid: number
  /** Everything it and its children wrote so far (stdout and stderr). */
  output(): string
  /**
   * Waits for the first match of `pattern` in the output written after character `from` (default 0).
   * @returns the match and the offset just after it
   */
  waitFor(pattern: RegExp, options?: { from?: number; timeoutMs?: number }): Promise<RegExpExecArray & { end: number }>
  /** Resolves with the exit code or signal once it has exited. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
  /** Sends `signal` to it (not to its children). */
  signal(signal: NodeJS.Signals): void
  /** Last resort for cleanup: SIGKILL to its whole process tree. */
  killTree(): void
}

/**
 * Starts scripts/start.ts in the repository root with `env` as its whole environment.
 * @param env - its environment (ports, START_DATA_DIR, DATABASE_URL...): nothing of the test process's is added
 */
export function launchStart(env: NodeJS.ProcessEnv): StartProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/start.ts'], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  if (child.pid === undefined) throw new Error('could not start scripts/start.ts')
  const pid = child.pid
  let output = ''
  const waiters = new Set<() => void>()
  const append = (chunk: Buffer) => {
    output += chunk.toString('utf8')
    for (const wake of waiters) wake()
  }
  child.stdout.on('data', append)
  child.stderr.on('data', append)
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => {
      resolve({ code, signal })
      for (const wake of waiters) wake()
    })
  )

  const waitFor: StartProcess['waitFor'] = (pattern, { from = 0, timeoutMs = 60_000 } = {}) =>
    new Promise((resolve, reject) => {
      const regex = new RegExp(pattern.source, pattern.flags.replace('g', ''))
      const check = () => {
        const match = regex.exec(output.slice(from))
        if (match) {
          done()
          resolve(Object.assign(match, { end: from + match.index + match[0].length }))
        } else if (child.exitCode !== null || child.signalCode !== null) {
          done()
          reject(new Error(`scripts/start.ts exited before printing ${pattern}:\n${output.slice(-4000)}`))
        }
      }
      const timer = setTimeout(() => {
        done()
        reject(new Error(`no ${pattern} within ${timeoutMs} ms; output so far:\n${output.slice(-4000)}`))
      }, timeoutMs)
      const done = () => {
        clearTimeout(timer)
        waiters.delete(check)
      }
      waiters.add(check)
      check()
    })

  return {
    pid,
    output: () => output,
    waitFor,
    exited,
    signal: (signal) => child.kill(signal),
    killTree() {
      for (const descendant of processTree(pid)) signalPid(descendant, 'SIGKILL')
      signalPid(pid, 'SIGKILL')
    },
  }
}

/** Every live descendant of `pid` (children, their children...), from /proc. Linux only. */
export function processTree(pid: number): number[] {
  const parents = new Map<number, number>()
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    const stat = procStat(Number(entry))
    if (stat && stat.state !== 'Z') parents.set(Number(entry), stat.ppid)
  }
  const found: number[] = []
  const queue = [pid]
  while (queue.length) {
    const parent = queue.shift() as number
    for (const [candidate, ppid] of parents) {
      if (ppid === parent) {
        found.push(candidate)
        queue.push(candidate)
      }
    }
  }
  return found
}

/** Whether `pid` is a running process (a zombie, dead but not yet reaped, is not). */
export function isAlive(pid: number): boolean {
  const stat = procStat(pid)
  return stat !== undefined && stat.state !== 'Z'
}

/** The command line of `pid`, for messages. */
export function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim()
  } catch {
    return '(gone)'
  }
}

/** A TCP port free on 127.0.0.1 right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      const port = typeof address === 'object' && address ? address.port : 0
      server.close(() => (port ? resolve(port) : reject(new Error('no free port'))))
    })
  })
}

function procStat(pid: number): { state: string; ppid: number } | undefined {
  try {
    // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so read from the last ')'.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return state && ppid ? { state, ppid: Number(ppid) } : undefined
  } catch {
    return undefined
  }
}

function signalPid(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal)
  } catch {
    // ESRCH: already gone.
  }
}
