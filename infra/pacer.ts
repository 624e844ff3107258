/**
 * @module Paces calls per key: each key has its own rate (with a burst), and a call beyond it waits for its turn
 * rather than being refused, up to a longest wait; past that it is refused with 429 `rate_limited` and the seconds
 * until a turn is free. Turns are kept as the Generic Cell Rate Algorithm keeps them (one "theoretical arrival time"
 * per key), so a key costs one number, and callers are served in the order they came.
 *
 * Used for reads answered by Temporal (workflow views, keyed by tenant): the rate limiter (infra/rate-limiter.ts)
 * counts requests of every kind per API client, while these cost Temporal and the API's event loop far more than a
 * database read, and a tenant's dashboard polling them flat out would take that capacity from bookings and from
 * other tenants.
 *
 * Where the turns are kept is the caller's choice ({@link PacerTurns}): in this process ({@link memoryTurns}), or in
 * PostgreSQL shared by every API instance (infra/shared-pacer-turns.ts), so N instances pace a key together rather
 * than each at the full rate.
 */
import { setTimeout as delay } from 'node:timers/promises'
/**
 * Keeps each key's theoretical arrival time and takes turns against it, atomically. Times are milliseconds on the
 * store's own clock (one clock for every instance sharing it).
 */
export interface PacerTurns {
  /**
   * Takes `key`'s next turn unless it is more than `maxWaitMs` away.
   * @returns how long to wait for the turn taken, or, when none was taken, how far away it is
   */
  take(key: string, rule: TurnRule): Promise<{ taken: true; waitMs: number } | { taken: false; waitMs: number }>
}

/** The Generic Cell Rate Algorithm's parameters, in milliseconds. */
export interface TurnRule {
  /** Between two turns at the steady rate. */
  intervalMs: number
  /** How far ahead of its theoretical arrival time a call may come: the burst. */
  toleranceMs: number
  maxWaitMs: number
}

/**
 * One key's step of the algorithm, the same in memory and in SQL (infra/shared-pacer-turns.ts).
 * @param stored - the key's theoretical arrival time, if it has one
 * @returns the wait, and the new arrival time when the turn is taken
 */
function nextTurn(stored: number | undefined, at: number, rule: TurnRule) {
  const theoretical = Math.max(stored ?? at, at)
  const waitMs = Math.max(0, theoretical - rule.toleranceMs - at)
  return waitMs > rule.maxWaitMs
    ? { taken: false as const, waitMs }
    : { taken: true as const, waitMs, next: theoretical + rule.intervalMs }
}

/** Keys kept before idle ones (whose turn is already past) are dropped. */
const SWEEP_ABOVE = 10_000

/** Turns kept in this process: one instance's pace. */
export function memoryTurns(now: () => number = Date.now): PacerTurns {
  /** Per key, when the next call would be due at the steady rate. */
  const arrivals = new Map<string, number>()
  return {
    async take(key, rule) {
      const at = now()
      const turn = nextTurn(arrivals.get(key), at, rule)
      if (!turn.taken) return turn
      arrivals.set(key, turn.next)
      if (arrivals.size > SWEEP_ABOVE) for (const [k, t] of arrivals) if (t <= at) arrivals.delete(k)
      return { taken: true, waitMs: turn.waitMs }
    },
  }
}

export interface PacerOptions {
  /** Calls a second per key; 0 paces nothing. */
  perSecond: number
  /** Calls a key may make at once after being idle. */
  burst: number
  /** Longest a call waits for its turn before it is refused. */
  maxWaitMs: number
  /** What is paced, per key, as the refusal's detail says it: "A tenant's workflow views". */
  what: string
  /**
   * The error a refused call throws, given the seconds to wait and a sentence saying why: the caller's (the domain's
   * `rateLimited`), so this module stays free of the API's error catalogue.
   */
  refuse: (retryAfterSeconds: number, detail: string) => Error
  /** Where turns are kept: this process's memory unless given. */
  turns?: PacerTurns
  sleep?: (ms: number) => Promise<void>
}

export interface Pacer {
  /**
   * Waits for `key`'s next turn.
   * @throws what `refuse` makes when that turn is more than `maxWaitMs` away
   */
  take(key: string): Promise<void>
}

export function createPacer(options: PacerOptions): Pacer {
  const {
    perSecond,
    burst,
    maxWaitMs,
    what,
    refuse,
    turns = memoryTurns(),
    sleep = (ms: number) => delay(ms),
  } = options
  if (perSecond <= 0) return { take: async () => undefined }
  const intervalMs = 1000 / perSecond
  const rule: TurnRule = { intervalMs, toleranceMs: (Math.max(1, burst) - 1) * intervalMs, maxWaitMs }

  return {
    async take(key) {
      const turn = await turns.take(key, rule)
      if (!turn.taken) {
        const retryAfter = Math.ceil((turn.waitMs - maxWaitMs) / 1000)
        throw refuse(
          retryAfter,
          `${what} are paced to ${perSecond} a second, and as many as can wait are waiting. Retry after ` +
            `${retryAfter} seconds, or poll less often.`
        )
      }
      if (turn.waitMs > 0) await sleep(turn.waitMs)
    },
  }
}
