/**
 * @module Running the after-commit work of many appointments together. Each booking queues its workflow start and
 * each change signals its workflow after commit, one task per appointment, and a unit of work runs its tasks one
 * after the other, each bounded by a few seconds. For a series of 52 occurrences that is 52 round trips to Temporal
 * in a row before the response, and minutes when Temporal is down. A batch collects those tasks and runs them
 * concurrently (up to 32 at a time) in one after-commit step instead.
 */
import type { UnitOfWork } from '../../infra/unit-of-work.ts'

/** How many after-commit tasks of one batch run at the same time. */
const CONCURRENCY = 32

export interface AfterCommitBatch {
  /** The unit to hand to the operations whose after-commit work should be batched. */
  uow: UnitOfWork
  /** Registers the collected tasks on the real unit (call once, when the batched work succeeded). */
  flush(): void
}

/** Wraps a unit of work so that its after-commit tasks are collected for one concurrent run. */
export function batchAfterCommit(uow: UnitOfWork): AfterCommitBatch {
  const tasks: Array<() => Promise<void>> = []
  return {
    uow: { ...uow, afterCommit: (task) => tasks.push(task) },
    flush() {
      const pending = tasks.splice(0)
      if (!pending.length) return
      uow.afterCommit(async () => {
        const workers = Array.from({ length: Math.min(CONCURRENCY, pending.length) }, async () => {
          for (let task = pending.shift(); task; task = pending.shift()) {
            // Each task handles its own failures (outbox sweep, workflow reconciliation); one must not stop the rest.
            await task().catch(() => undefined)
          }
        })
        await Promise.all(workers)
      })
    },
  }
}
