/**
 * @module A unit of work: one PostgreSQL transaction with the tenant set for row-level security, plus callbacks to
 * run only after it commits (starting workflows, for instance, must never happen for a write that rolled back).
 */
import { unitTransactionsOf, type Db, type Tx } from './db.ts'
import type { ExecuteStatement } from './unit-transactions.ts'

export interface UnitOfWork {
  /**
   * The client every query of this unit must use. Its queries run in this unit's transaction when made from the
   * unit's own code (the async context of `work`); once the unit has ended they are refused.
   */
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
 * @param db - a client made by `createDb`, whose pool lends the unit its connection (infra/unit-transactions.ts)
 * @returns what `work` returned
 */
export async function runInUnitOfWork<T>(
  db: Db,
  tenantId: string,
  work: (uow: UnitOfWork) => Promise<T>,
  options: UnitOfWorkOptions = {}
): Promise<T> {
  const transactions = unitTransactionsOf(db)
  const tasks: Array<() => Promise<void>> = []
  const unit = await transactions.begin(tenantId, {
    // Longer than a workflow call may take (10 s, domain/care-workflows/workflow-calls.ts) plus what a gRPC call on a
    // dead connection overshoots its deadline by: such a request must end as a 503 that rolls back, not a 500 for a
    // transaction that expired under it.
    timeoutMs: options.timeoutMs ?? 30_000,
    maxWaitMs: options.maxWaitMs ?? 10_000,
  })
  let result: T
  try {
    result = await unit.run(() =>
      work({ tx: transactions.client, tenantId, afterCommit: (task) => tasks.push(task), execute: unit.execute })
    )
    await unit.commit()
  } catch (error) {
    await unit.rollback()
    throw error
  }
  for (const task of tasks) await task()
  return result
}
