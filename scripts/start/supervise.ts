/**
 * @module The process supervisor of `npm start`: runs child processes (the API, the worker), restarts one that dies
 * with backoff (restart-policy.ts), says so in the log, and stops them all on request: SIGTERM, their grace time, then
 * SIGKILL. Each child's output goes to the terminal as before and to `<logDir>/<name>.log`, so the lines that explain
 * a crash can still be read after the terminal has scrolled on.
 *
 * With `hold`, the children start at once and load their modules while the caller brings up what they need (the
 * database, Temporal); they run once `hold` resolves with the rest of their environment (scripts/start/hold.ts).
 *
 * @example
 * ```ts
 * const supervisor = supervise([{ name: 'worker', command: process.execPath, args: ['worker/main.ts'] }], { log })
 * supervisor.gaveUp.then((failure) => console.error(failure.message))
 * await supervisor.stop()
 * ```
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { createWriteStream, mkdirSync, type WriteStream } from 'node:fs'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { DEFAULT_RESTART_POLICY, decideRestart, type ProcessExit, type RestartPolicy } from './restart-policy.ts'

/** A child process to keep running. */
export interface ChildSpec {
  /** Short role name for the log (`api`, `worker`) and the log file name. */
  name: string
  command: string
  args: readonly string[]
  cwd?: string
  env?: NodeJS.ProcessEnv
}

/** Options of {@link supervise}. */
export interface SuperviseOptions {
  /** The supervisor's own messages (one line each). */
  log: (message: string) => void
  /** Where `<name>.log` files go (created, truncated at start). Omitted: output goes to the terminal only. */
  logDir?: string
  policy?: RestartPolicy
  /** How long a child may take to stop after SIGTERM before it is killed. Default 15 s. */
  stopGraceMs?: number
  /** Milliseconds on a monotonic clock. Default `performance.now`. */
  now?: () => number
  /** Hears each whole line a child writes (stdout and stderr), e.g. to tell when it is ready. */
  onLine?: (name: string, line: string) => void
  /**
   * The environment the children are to run with besides their own `env`, when it is not known yet. Until it resolves,
   * children are started with START_HOLD=1 and wait for it on their stdin (their entry calls `awaitRelease()` of
   * scripts/start/hold.ts after loading its modules); then it is written there, and restarts are given it directly.
   * Rejected: every child is stopped.
   */
  hold?: Promise<Record<string, string>>
}

/** Why the supervisor gave up on a child (it has stopped every other child by then). */
export interface SupervisorFailure {
  name: string
  /** A paragraph for the operator: what happened, where the log is, its last lines. */
  message: string
}

/** The running supervisor returned by {@link supervise}. */
export interface Supervisor {
  /** Pid of each child's current run, by name (undefined while it waits to be restarted). */
  pids(): Record<string, number | undefined>
  /** Resolves when a child kept dying at start; the other children are stopped first. Never rejects. */
  gaveUp: Promise<SupervisorFailure>
  /**
   * Stops restarting and stops every child: SIGTERM, then SIGKILL after the grace time. Idempotent. A second call
   * with `force` kills at once what is still running (a second Ctrl-C).
   */
  stop(options?: { force?: boolean }): Promise<void>
}

const DEFAULT_STOP_GRACE_MS = 15_000
const TAIL_LINES = 20
const DRAIN_TIMEOUT_MS = 1_000

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`
const delayText = (ms: number) => `${Number((ms / 1000).toFixed(2))} s`
const exitText = (exit: Pick<ProcessExit, 'code' | 'signal'>) =>
  exit.signal ? `signal ${exit.signal}` : `code ${exit.code ?? 'unknown'}`

/**
 * Starts every child and keeps it running until {@link Supervisor.stop} or until one keeps dying at start.
 * @param children - what to run; names must be unique
 * @param options - logging, restart policy, grace time
 * @returns the running supervisor
 */
export function supervise(children: readonly ChildSpec[], options: SuperviseOptions): Supervisor {
  const policy = options.policy ?? DEFAULT_RESTART_POLICY
  const now = options.now ?? (() => performance.now())
  const graceMs = options.stopGraceMs ?? DEFAULT_STOP_GRACE_MS
  if (options.logDir) mkdirSync(options.logDir, { recursive: true })

  let stopping: Promise<void> | undefined
  let reportFailure: (failure: SupervisorFailure) => void = () => {}
  const gaveUp = new Promise<SupervisorFailure>((resolve) => (reportFailure = resolve))
  // Undefined while the children wait for `options.hold`.
  let released: Record<string, string> | undefined = options.hold ? undefined : {}
  const runs = children.map((spec) => new SupervisedChild(spec, options, policy, now, onGiveUp, () => released))
  options.hold?.then(
    (env) => {
      released = env
      for (const run of runs) run.release(env)
    },
    () => void stop()
  )

  function onGiveUp(failure: SupervisorFailure): void {
    if (stopping) return
    void stop().then(() => reportFailure(failure))
  }

  function stop(stopOptions: { force?: boolean } = {}): Promise<void> {
    if (stopping) {
      if (stopOptions.force) for (const run of runs) run.kill('SIGKILL')
      return stopping
    }
    stopping = Promise.all(runs.map((run) => run.stop(graceMs))).then(() => undefined)
    return stopping
  }

  // If this process ends without stop() (an uncaught error), its children must not run on without a supervisor.
  process.once('exit', () => {
    for (const run of runs) run.kill('SIGTERM')
  })
  for (const run of runs) run.start()
  return {
    pids: () => Object.fromEntries(runs.map((run) => [run.name, run.pid])),
    gaveUp,
    stop,
  }
}

/** One child: its current process, its exits, its pending restart and its log. */
class SupervisedChild {
  readonly name: string
  private child: ChildProcess | undefined
  private startedAt = 0
  private readonly exits: ProcessExit[] = []
  private restartTimer: NodeJS.Timeout | undefined
  private stopping = false
  private exited: Promise<void> = Promise.resolve()
  private drained: Promise<unknown> = Promise.resolve()
  private readonly tail: string[] = []
  private readonly logFile: WriteStream | undefined
  private readonly logPath: string | undefined

  constructor(
    private readonly spec: ChildSpec,
    private readonly options: SuperviseOptions,
    private readonly policy: RestartPolicy,
    private readonly now: () => number,
    private readonly onGiveUp: (failure: SupervisorFailure) => void,
    private readonly released: () => Record<string, string> | undefined
  ) {
    this.name = spec.name
    if (options.logDir) {
      this.logPath = join(options.logDir, `${spec.name}.log`)
      this.logFile = createWriteStream(this.logPath, { flags: 'w' })
      // A full disk must not take the platform down with it: the terminal still has the output.
      this.logFile.on('error', (error) => options.log(`cannot write ${this.logPath}: ${error.message}`))
    }
  }

  get pid(): number | undefined {
    return this.child?.pid
  }

  start(): void {
    this.restartTimer = undefined
    if (this.stopping) return
    const released = this.released()
    const env = this.spec.env ?? process.env
    const child = spawn(this.spec.command, [...this.spec.args], {
      cwd: this.spec.cwd,
      env: released ? { ...env, ...released } : { ...env, START_HOLD: '1' },
      // A held child reads its environment from its stdin.
      stdio: [released ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    })
    // A held child that died before its release: nothing to write to.
    child.stdin?.on('error', () => undefined)
    this.child = child
    this.startedAt = this.now()
    this.drained = Promise.all([this.forward(child.stdout, process.stdout), this.forward(child.stderr, process.stderr)])
    this.exited = new Promise((resolve) => {
      // 'error' without a pid: it could not be spawned at all, and no 'exit' follows.
      child.once('error', (error) => {
        this.options.log(`${this.name} could not be started: ${error.message}`)
        if (child.pid === undefined) resolve(this.onExit(child, null, null))
      })
      child.once('exit', (code, signal) => resolve(this.onExit(child, code, signal)))
    })
    if (child.pid !== undefined) this.options.log(`${this.name} started (pid ${child.pid})`)
  }

  /** SIGTERM, then SIGKILL after `graceMs`; resolves once the child has exited. No restart follows. */
  async stop(graceMs: number): Promise<void> {
    this.stopping = true
    clearTimeout(this.restartTimer)
    const child = this.child
    if (child && child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM')
      const timer = setTimeout(() => {
        this.options.log(`${this.name} did not stop within ${seconds(graceMs)}; killing it (SIGKILL)`)
        child.kill('SIGKILL')
      }, graceMs)
      await this.exited
      clearTimeout(timer)
    }
    await this.drainedOrTimeout()
    await new Promise<void>((resolve) => (this.logFile ? this.logFile.end(resolve) : resolve()))
  }

  /** Hands a held child the rest of its environment (see {@link SuperviseOptions.hold}). */
  release(env: Record<string, string>): void {
    const stdin = this.child?.stdin
    if (stdin && !stdin.destroyed) stdin.end(JSON.stringify(env))
  }

  kill(signal: NodeJS.Signals): void {
    const child = this.child
    if (child && child.exitCode === null && child.signalCode === null) child.kill(signal)
  }

  private async onExit(child: ChildProcess, code: number | null, signal: NodeJS.Signals | null): Promise<void> {
    const exitedAt = this.now()
    if (this.stopping || child !== this.child) return
    this.child = undefined
    // The last lines a dying process wrote (its error) may still be in the pipe: read them before quoting the tail.
    // Bounded, in case a grandchild holds the pipe open.
    await this.drainedOrTimeout()
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- stop() may have been called meanwhile
    if (this.stopping) return
    const exit: ProcessExit = { startedAt: this.startedAt, exitedAt, code, signal }
    this.exits.push(exit)
    const decision = decideRestart(this.exits, this.policy)
    const what = `${this.name} exited (${exitText(exit)}) after ${seconds(exitedAt - exit.startedAt)}`
    if (decision.action === 'give-up') {
      this.options.log(
        `${what}; it died ${decision.startupCrashes} times in a row within ${seconds(this.policy.startupWindowMs)} ` +
          'of starting: giving up'
      )
      this.onGiveUp({ name: this.name, message: this.failureMessage(decision.startupCrashes, exit) })
      return
    }
    const atStart =
      decision.startupCrashes > 1
        ? `, ${decision.startupCrashes} crashes in a row at start (gives up at ${this.policy.maxStartupCrashes})`
        : ''
    this.options.log(`${what}${atStart}; restarting in ${delayText(decision.delayMs)} (restart ${decision.restart})`)
    this.restartTimer = setTimeout(() => this.start(), decision.delayMs)
  }

  /** Until the current child's output has been read to its end; bounded, in case a grandchild holds the pipe. */
  private async drainedOrTimeout(): Promise<void> {
    let timer: NodeJS.Timeout | undefined
    await Promise.race([this.drained, new Promise((resolve) => (timer = setTimeout(resolve, DRAIN_TIMEOUT_MS)))])
    clearTimeout(timer)
  }

  private failureMessage(crashes: number, last: ProcessExit): string {
    const where = this.logPath ? `Its output is in ${this.logPath}` : 'Its output is above'
    return [
      `${this.name} keeps dying at start: ${crashes} exits in a row, each within ${seconds(this.policy.startupWindowMs)} ` +
        `of starting (last: ${exitText(last)}). The platform has been stopped.`,
      `${where}; the first error there usually names the cause (configuration, the database or Temporal unreachable, ` +
        `a port in use). Fix it and run npm start again.`,
      ...(this.tail.length ? [`Last lines of ${this.name}:`, ...this.tail.map((line) => `  ${line}`)] : []),
    ].join('\n')
  }

  /** Passes a child's stream to the terminal and to the log file, and keeps its last lines; resolves at its end. */
  private forward(from: NodeJS.ReadableStream | null, to: NodeJS.WritableStream): Promise<void> {
    if (!from) return Promise.resolve()
    let partial = ''
    const keep = (lines: string[]) => {
      this.tail.push(...lines.filter((line) => line.length > 0))
      if (this.tail.length > TAIL_LINES) this.tail.splice(0, this.tail.length - TAIL_LINES)
    }
    from.on('data', (chunk: Buffer) => {
      to.write(chunk)
      if (this.logFile?.writable) this.logFile.write(chunk)
      const lines = (partial + chunk.toString('utf8')).split('\n')
      partial = lines.pop() ?? ''
      keep(lines)
      for (const line of lines) this.options.onLine?.(this.name, line)
    })
    return new Promise((resolve) =>
      from.once('close', () => {
        keep([partial])
        partial = ''
        resolve()
      })
    )
  }
}
