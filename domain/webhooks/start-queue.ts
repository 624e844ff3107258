/**
 * @module A bounded-concurrency queue of workflow starts with batched bookkeeping: at most `concurrency` starts in
 * flight, and the rows that started (or failed to) are marked in one statement per short interval rather than one
 * per row, so a burst of a thousand deliveries costs a handful of UPDATEs.
 */
import type { Logger } from '../../infra/logger.ts'

/** Marks the outcome of a batch of starts; must not throw for rows that no longer exist. */
export type MarkStarts = (started: string[], failed: string[]) => Promise<void>

export interface StartQueue<R extends { id: string }> {
  /**
   * Queues rows for starting.
   * @returns how many of them started, once their outcome is marked
   */
  start(rows: R[]): Promise<number>
  /** Resolves when nothing is queued, in flight or unmarked. */
  idle(): Promise<void>
}

/** How long outcomes gather before they are marked together. */
const MARK_INTERVAL_MS = 25

/**
 * Creates the queue.
 * @param startOne - starts one row; throws when it could not
 * @param mark - records outcomes
 */
export function createStarter<R extends { id: string }>(
  concurrency: number,
  startOne: (row: R) => Promise<void>,
  mark: MarkStarts,
  logger: Logger
): StartQueue<R> {
  const queue: Array<{ row: R; done: (started: boolean) => void }> = []
  let active = 0
  let started: Array<{ id: string; done: () => void }> = []
  let failed: Array<{ id: string; done: () => void }> = []
  let markTimer: NodeJS.Timeout | undefined
  let marking: Promise<void> = Promise.resolve()
  let idleWaiters: Array<() => void> = []

  const isIdle = () => queue.length === 0 && active === 0 && started.length === 0 && failed.length === 0 && !markTimer

  function settleIdle() {
    if (!isIdle()) return
    void marking.then(() => {
      if (!isIdle()) return
      const waiters = idleWaiters
      idleWaiters = []
      for (const wake of waiters) wake()
    })
  }

  function flush() {
    markTimer = undefined
    const ok = started
    const ko = failed
    started = []
    failed = []
    marking = marking
      .then(() =>
        mark(
          ok.map((s) => s.id),
          ko.map((f) => f.id)
        )
      )
      .catch((error: unknown) => logger.error({ err: String(error) }, 'marking webhook delivery starts failed'))
      .then(() => {
        for (const entry of [...ok, ...ko]) entry.done()
        settleIdle()
      })
  }

  function pump() {
    while (active < concurrency && queue.length > 0) {
      const { row, done } = queue.shift()!
      active++
      startOne(row)
        .then(
          () => started.push({ id: row.id, done: () => done(true) }),
          (error: unknown) => {
            logger.warn({ deliveryId: row.id, err: String(error) }, 'webhook delivery start deferred')
            failed.push({ id: row.id, done: () => done(false) })
          }
        )
        .finally(() => {
          active--
          markTimer ??= setTimeout(flush, MARK_INTERVAL_MS)
          pump()
        })
    }
  }

  return {
    start(rows) {
      const outcomes = rows.map((row) => new Promise<boolean>((done) => queue.push({ row, done })))
      pump()
      return Promise.all(outcomes).then((results) => results.filter(Boolean).length)
    },
    idle() {
      return new Promise((resolve) => {
        idleWaiters.push(resolve)
        settleIdle()
      })
    },
  }
}
