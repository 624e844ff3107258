/**
 * @module A background job run by a timer, and optionally woken by an in-process signal, never running twice at once:
 * every periodic loop of the API goes through it (the outbox sweeper, the audit sealer, the revocation list's sync,
 * the webhook pumps' check, the agent trigger dispatcher). A tick or wake-up that arrives during a run is coalesced
 * into one more run right after it, so a slow run is followed by at most one run, never by a queue of them, and
 * nothing signalled is left for the timer. Timer runs are sweeps (the job may do more then, e.g. look for work
 * another process left behind); a sweep asked for during a run is kept for the next run. Stopping tells the run in
 * progress (its abort signal) and waits for it.
 */

export interface BackgroundLoop {
  /**
   * One run of the job; `sweep` on the timer's runs (and the first). `stopping` is aborted when the loop is stopped:
   * a run that works through many items in turn (an outbox sweep of 100 starts) ends after the item in hand, so a
   * process's stop is not held by work another process or the next start will take up.
   */
  run(sweep: boolean, stopping: AbortSignal): Promise<void>
  /** Milliseconds between two sweeps. */
  intervalMs: number
  /** Subscribes `wake` to the in-process signal; returns the unsubscribe. Without it, only the timer runs the job. */
  subscribe?(wake: () => void): () => void
  /** A run failed; the loop goes on with the next wake-up or sweep. */
  onError(error: unknown): void
  /**
   * How long a signalled wake-up waits before its run, so that the signals of that moment share one run (0: none).
   * A loop signalled by every committed event otherwise makes one run, with its own transaction, per event.
   */
  coalesceMs?: number
  /** Whether the loop sweeps at once when started (default) or first after `intervalMs`. */
  runAtStart?: boolean
}

/**
 * Starts the loop, with a sweep at once unless `runAtStart` is false.
 * @returns a function that stops waking and sweeping and awaits the run in progress
 */
export function startBackgroundLoop(loop: BackgroundLoop): () => Promise<void> {
  let running: Promise<void> | undefined
  let again = false
  let sweepDue = false
  let stopped = false
  const stopping = new AbortController()
  const trigger = (sweep: boolean) => {
    if (stopped) return
    sweepDue ||= sweep
    if (running) {
      again = true
      return
    }
    running = (async () => {
      do {
        again = false
        const sweeping = sweepDue
        sweepDue = false
        try {
          await loop.run(sweeping, stopping.signal)
        } catch (error) {
          loop.onError(error)
        }
        // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- trigger() and stop() set these while run() is awaited
      } while (again && !stopped)
    })().finally(() => {
      running = undefined
    })
  }
  let coalescing: ReturnType<typeof setTimeout> | undefined
  const wake = () => {
    if (!loop.coalesceMs) return trigger(false)
    coalescing ??= setTimeout(() => {
      coalescing = undefined
      trigger(false)
    }, loop.coalesceMs)
  }
  const unsubscribe = loop.subscribe?.(wake)
  const timer = setInterval(() => trigger(true), loop.intervalMs)
  timer.unref()
  if (loop.runAtStart ?? true) trigger(true)
  return async () => {
    stopped = true
    stopping.abort()
    unsubscribe?.()
    clearTimeout(coalescing)
    clearInterval(timer)
    await running
  }
}
