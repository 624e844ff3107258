/**
 * @module How a delivery pump waits (delivery-pump.ts): a busy pump pauses briefly to gather finished attempts, a full
 * one until a part of its slots is free, an idle one backs off (each look that finds nothing doubles the wait, up to
 * `idlePollMs`) while probing cheaply for an event waiting for its fan-out. Any wait ends early when an attempt
 * finishes and its `early` condition holds, or at once when the pump stops.
 */
import type { Db } from '../../infra/db.ts'
import { eventsAwaitFanOut } from './delivery-queue.ts'

/** A pause's `early` that wakes at the first attempt to finish. */
const always = () => true

/**
 * How long an idle pump waits after `looks` looks in a row found nothing: `pollMs`, doubled with each, at most
 * `idlePollMs`. An event recorded after a quiet spell waits at most `idlePollMs` for its fan-out.
 */
export function idleWait(looks: number, pollMs: number, idlePollMs: number): number {
  return Math.min(pollMs * 2 ** Math.min(looks, 30), idlePollMs)
}

/** One pump's pauses: at most one at a time, woken by a finished attempt ({@link progress}) or a stop ({@link wake}). */
export class PumpPauses {
  #onProgress: (() => void) | undefined
  /** Ends the current pause at once (a stopping pump). */
  #endPause: (() => void) | undefined

  /**
   * Waits up to `ms`, or until an attempt finishes and `early` (if given) holds then.
   * @returns whether it waited the whole time
   */
  pause(ms: number, early?: () => boolean): Promise<boolean> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => done(true), ms)
      const done = (whole = false) => {
        clearTimeout(timer)
        this.#onProgress = undefined
        this.#endPause = undefined
        resolve(whole)
      }
      this.#endPause = done
      if (early) this.#onProgress = () => early() && done()
    })
  }

  /** Waits up to `ms` or until the next attempt finishes. */
  untilProgress(ms: number): Promise<boolean> {
    return this.pause(ms, always)
  }

  /** An attempt finished: a pause waiting for that ends if its condition holds. */
  progress(): void {
    this.#onProgress?.()
  }

  /** Ends the current pause now. */
  wake(): void {
    this.#endPause?.()
  }

  /**
   * An idle pump's wait of `ms` before its next full look, cut short by an attempt that finishes, by a stop, or by an
   * event waiting for its fan-out, which it asks about every `stepMs` (eventsAwaitFanOut, the probe: a small part of
   * a full look's CPU). With the full looks' back-off alone, the first events after a quiet spell waited up to
   * 800 ms, and at 1,500 deliveries a second the backlog that gathered meanwhile took 5-13 s to clear
   * (docs/benchmarks.md, "Webhooks: an idle pump that hears the first event").
   */
  async idle(db: Db, ms: number, stepMs: number, stopping: () => boolean): Promise<void> {
    const until = Date.now() + ms
    for (let left = ms; left > 0 && !stopping(); left = until - Date.now()) {
      if (!(await this.untilProgress(Math.min(stepMs, left)))) return
      // The full look is due anyway once the wait is over.
      if (until - Date.now() > 0 && (await eventsAwaitFanOut(db))) return
    }
  }
}
