/**
 * @module When `npm start` restarts a child process that died, and when it gives up: a pure function of the child's
 * exits so far (their start and exit times come from the supervisor's clock), so every decision can be tested without
 * a process or a timer.
 *
 * - Backoff: the first restart waits `initialDelayMs`, each further one in a row twice as long, up to `maxDelayMs`.
 *   A run that stayed up `resetAfterMs` or longer starts a new row (its own restart waits `initialDelayMs` again).
 * - Give up: `maxStartupCrashes` exits in a row, each within `startupWindowMs` of its start. A process that keeps
 *   dying that early is misconfigured or cannot reach what it needs; restarting it for ever would bury the cause
 *   under restarts. One that crashes after running a while is restarted however often it happens.
 */

/** The knobs of {@link decideRestart}. */
export interface RestartPolicy {
  /** Delay before the first restart of a row. */
  initialDelayMs: number
  /** The longest delay between two restarts. */
  maxDelayMs: number
  /** A run this long or longer resets the backoff. */
  resetAfterMs: number
  /** An exit this soon after the start is a crash at start. */
  startupWindowMs: number
  /** This many crashes at start in a row, and the supervisor gives up. */
  maxStartupCrashes: number
}

/** 0.5 s doubling to 30 s, reset after a minute up; gives up after 5 crashes in a row within 30 s of starting. */
export const DEFAULT_RESTART_POLICY: RestartPolicy = {
  initialDelayMs: 500,
  maxDelayMs: 30_000,
  resetAfterMs: 60_000,
  startupWindowMs: 30_000,
  maxStartupCrashes: 5,
}

/** One run of a child process that ended without being asked to. */
export interface ProcessExit {
  /** When it was started, in ms on the supervisor's clock. */
  startedAt: number
  /** When it exited, on the same clock. */
  exitedAt: number
  code: number | null
  signal: NodeJS.Signals | null
}

/** What to do after the last exit of a list. */
export type RestartDecision =
  | {
      action: 'restart'
      delayMs: number
      /** Restarts since the supervisor started, this one included. */
      restart: number
      /** Exits in a row within the startup window, the last one included (0 when it had run longer). */
      startupCrashes: number
    }
  | { action: 'give-up'; startupCrashes: number }

const uptime = (exit: ProcessExit) => exit.exitedAt - exit.startedAt

/**
 * Decides what follows the last of `exits`.
 * @param exits - every unrequested exit of one child since the supervisor started, oldest first (at least one)
 * @param policy - delays and limits; {@link DEFAULT_RESTART_POLICY} when omitted
 * @returns restart after `delayMs`, or give up
 * @throws Error when `exits` is empty (there is nothing to decide)
 */
export function decideRestart(
  exits: readonly ProcessExit[],
  policy: RestartPolicy = DEFAULT_RESTART_POLICY
): RestartDecision {
  if (exits.length === 0) throw new Error('decideRestart needs at least one exit')
  const startupCrashes = countFromEnd(exits, (exit) => uptime(exit) < policy.startupWindowMs)
  if (startupCrashes >= policy.maxStartupCrashes) return { action: 'give-up', startupCrashes }
  // The row starts at the last run that stayed up long enough (its own exit is the row's first).
  const shortRunsAfterLongOne = countFromEnd(exits, (exit) => uptime(exit) < policy.resetAfterMs)
  const inRow = Math.min(shortRunsAfterLongOne + 1, exits.length)
  // Capped before the power, so a child restarted thousands of times never computes 2 ** 1000.
  const doublings = Math.min(inRow - 1, Math.ceil(Math.log2(policy.maxDelayMs / policy.initialDelayMs)) + 1)
  const delayMs = Math.min(policy.maxDelayMs, policy.initialDelayMs * 2 ** Math.max(0, doublings))
  return { action: 'restart', delayMs, restart: exits.length, startupCrashes }
}

/** How many items at the end of `items` satisfy `test`, counting back until the first that does not. */
function countFromEnd<T>(items: readonly T[], test: (item: T) => boolean): number {
  let count = 0
  for (let i = items.length - 1; i >= 0 && test(items[i] as T); i--) count++
  return count
}
