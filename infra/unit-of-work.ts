/**
 * @module A unit of work: one PostgreSQL transaction with the tenant set for row-level security, plus callbacks to
 * run only after it commits (starting workflows, for instance, must never happen for a write that rolled back).
 */
import type { Db, Tx } from './db.ts'
import { unitStarts, type ExecuteStatement, type UnitStart } from './tenant-transactions.ts'

export interface UnitOfWork {
  /** The transaction every query of this unit must use. */
  tx: Tx
  /** The tenant whose rows this unit may see. */
  tenantId: string
  /** Registers work to run after commit; it never runs if the transaction rolls back. */
  afterCommit(task: () => Promise<void>): void
  /**
   * Runs one statement in the transaction straight through the driver, without Prisma's per-operation cost: for the
   * platform's own statements on every request (the audit record). Text parameters only; returns the row count.
   */
  execute: ExecuteStatement
}

export interface UnitOfWorkOptions {
  /** Longest the transaction may stay open. */
  timeoutMs?: number
  /** Longest to wait for a pooled connection. */
  maxWaitMs?: number
}

/**
 * Runs `work` in a transaction scoped to `tenantId`, then the after-commit tasks in order.
 * @returns what `work` returned
 */
export async function runInUnitOfWork<T>(
  db: Db,
  tenantId: string,
  work: (uow: UnitOfWork) => Promise<T>,
  options: UnitOfWorkOptions = {}
): Promise<T> {
  const tasks: Array<() => Promise<void>> = []
  // The adapter scopes the transaction to the tenant as it opens it, and leaves `execute` here (tenant-transactions.ts).
  const start: UnitStart = { tenantId }
  const result = await unitStarts.run(start, () =>
    db.$transaction(
      async (tx) => {
        if (!start.execute) throw new Error('units of work need a database client made by createDb (infra/db.ts)')
        return work({ tx, tenantId, afterCommit: (task) => tasks.push(task), execute: start.execute })
      },
      // Longer than a workflow call may take (10 s, domain/care-workflows/workflow-calls.ts) plus what a gRPC call on
      // a dead connection overshoots its deadline by: such a request must end as a 503 that rolls back, not a 500 for
      // a transaction that expired under it.
      { timeout: options.timeoutMs ?? 30_000, maxWait: options.maxWaitMs ?? 10_000 }
    )
  )
  for (const task of tasks) await task()
  return result
}
