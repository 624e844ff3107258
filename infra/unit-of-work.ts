/**
 * @module A unit of work: PostgreSQL transactions with the tenant set for row-level security, plus callbacks to run
 * only after it commits (starting workflows, for instance, must never happen for a write that rolled back).
 *
 * A unit holds one transaction at a time, and never one across a call to Temporal or any other network peer: a
 * transaction holds a pooled connection (the embedded database has one backend for everyone) and its locks for as
 * long as the peer takes, so a slow peer stalls every other request. `release` is how a unit calls out: it commits
 * what the unit has done so far, runs the call holding nothing, and the unit goes on in a new transaction, begun by
 * its first query after the call. So: read what the call needs, call out through `release`, then write (re-checking
 * what the call's answer depends on, since others may have written meanwhile). The first transaction, too, is begun
 * by the unit's first query, with the unit's savepoints in the same round trip: a unit that never queries holds
 * nothing, and a write request pays one round trip for BEGIN, its tenant's settings and its handler's savepoint.
 */
import { context, SpanStatusCode, trace } from '@opentelemetry/api'
import { unitTransactionsOf, type Db, type Tx } from './db.ts'
import type { ExecuteStatement, QueryRows, UnitTransaction } from './unit-routing.ts'

export interface UnitOfWork {
  /**
   * The client every query of this unit must use. Its queries run in this unit's transaction when made from the
   * unit's own code (the async context of `work`); once the unit has ended, or while it is released, they are refused.
   */
  tx: Tx
  /** The tenant whose rows this unit may see. */
  tenantId: string
  /** Registers work to run after the unit's last transaction commits; it never runs if that one rolls back. */
  afterCommit(task: () => Promise<void>): void
  /**
   * Runs one statement in the transaction straight through the driver, without Prisma's per-operation cost: for the
   * platform's own statements on every request (the audit record). Text parameters only; returns the row count.
   */
  execute: ExecuteStatement
  /**
   * Runs one statement (a `Prisma.sql` template) in the transaction straight through the driver and answers its rows
   * as `pg` reads them: for the statements of the platform's busiest paths (a booking's), where Prisma's own work per
   * raw query cost more CPU than the statement (~0.4 ms against ~0.1 ms, docs/benchmarks.md). Statements made at once
   * (`Promise.all`) go out together on the unit's pipelined connection and run in the order they were made.
   */
  query: QueryRows
  /**
   * Commits the unit's transaction, runs `call` holding no transaction nor connection (its queries are refused), and
   * lets the unit go on in a new transaction begun by its next query. Every call to Temporal or another network peer
   * made inside a unit goes through here; a Temporal call made while the unit holds a transaction fails
   * (infra/network-guard.ts).
   * @returns what `call` returned; if it throws, the unit goes on all the same (its error decides the outcome)
   */
  release<T>(call: () => Promise<T>): Promise<T>
  /**
   * Registers work for the unit's transaction just before its first release commits it: what the middleware must
   * change about rows that were meant to commit only with the whole request (the idempotency claim).
   */
  beforeRelease(task: () => Promise<void>): void
  /**
   * Sets a savepoint in the unit's transaction, and again at the start of every transaction the unit begins later:
   * the handler's, which the request's chain rolls back to on an error, also after a release. Sent with the BEGIN when
   * the unit has not begun its transaction yet. `name` is a constant SQL identifier.
   */
  savepoint(name: string): Promise<void>
  /**
   * Registers work that undoes what a release committed, for a unit that then ends by rolling back: it runs in a
   * unit of its own, of the same tenant. Best effort: what it undoes must also expire on its own.
   */
  compensate(task: (uow: UnitOfWork) => Promise<void>): void
  /**
   * Sends `statement` (no parameters: values as escaped literals) in the same message as the unit's last COMMIT, so it
   * commits with the unit at no round trip of its own (the audit record). A unit with no transaction left to commit
   * sends it with the BEGIN of a last one. `onSent(true)` before the after-commit tasks run, once it committed;
   * `onSent(false)` when the transaction had already failed and only rolls back (the statement is not sent). If the
   * statement itself fails, the commit fails and the unit with it.
   */
  commitWith(statement: string, onSent: (sent: boolean) => void): void
  /**
   * The same for a request and its retries with the same Idempotency-Key and body (set by api/middleware/idempotency.ts);
   * absent without a key. A call that a retry must not make twice is named with it: a Temporal update's id.
   */
  operationKey?: string
}

export interface UnitOfWorkOptions {
  /** Longest one transaction of the unit may stay open. */
  timeoutMs?: number
  /** Longest to wait for a pooled connection. */
  maxWaitMs?: number
  /**
   * Reads only, all from one snapshot of the database (REPEATABLE READ READ ONLY): for a check that reads several
   * tables and compares them, such as the ledger check. At READ COMMITTED each statement sees the commits made before
   * it, so a refund committed between reading an order and reading its payments looks like money out of place.
   */
  snapshot?: boolean
}

/** Why a released unit's queries are refused while its call runs. */
const RELEASED =
  'A unit of work queried the database while released for a network call (UnitOfWork.release): query before or after.'

const tracer = trace.getTracer('therapy-care-db')

/**
 * Runs `work` in a transaction scoped to `tenantId` (in several, if it releases), then the after-commit tasks in order.
 * Traced as one span (`db.unit_of_work`) that ends at commit: the after-commit tasks (workflow starts) belong to the
 * caller's span, not to the transaction's.
 * @param db - a client made by `createDb`, whose pool lends the unit its connection (infra/unit-transactions.ts)
 * @returns what `work` returned
 */
export async function runInUnitOfWork<T>(
  db: Db,
  tenantId: string,
  work: (uow: UnitOfWork) => Promise<T>,
  options: UnitOfWorkOptions = {}
): Promise<T> {
  const tasks: Array<() => Promise<void>> = []
  const span = tracer.startSpan('db.unit_of_work', {
    attributes: { 'db.system': 'postgresql', 'therapy.tenant_id': tenantId },
  })
  let result: T
  try {
    result = await context.with(trace.setSpan(context.active(), span), () =>
      transact(db, tenantId, work, options, tasks)
    )
  } catch (error) {
    span.setStatus({ code: SpanStatusCode.ERROR })
    throw error
  } finally {
    span.end()
  }
  for (const task of tasks) await task()
  return result
}

/** The unit's transactions; the after-commit tasks are pushed onto `tasks` for the caller to run. */
async function transact<T>(
  db: Db,
  tenantId: string,
  work: (uow: UnitOfWork) => Promise<T>,
  options: UnitOfWorkOptions,
  tasks: Array<() => Promise<void>>
): Promise<T> {
  const transactions = unitTransactionsOf(db)
  const settings = {
    // Longer than a workflow call may take (10 s, domain/workflow-runs/workflow-calls.ts) plus what a gRPC call on a
    // dead connection overshoots its deadline by, should a unit ever wait on one: such a request must end as a 503
    // that rolls back, not a 500 for a transaction that expired under it.
    timeoutMs: options.timeoutMs ?? 30_000,
    // A request queues for a connection rather than fail while one API carries the load of two (a rolling restart:
    // with 10 s, 67 bookings of a CI run on a slow machine answered 503 dependency_unavailable; with two busy loops
    // beside the suite, 95; with 20 s, none). Under the SDKs' 30 s timeout, so a client still gets the 503 and its
    // Retry-After, not a timeout, when the database is really gone.
    maxWaitMs: options.maxWaitMs ?? 20_000,
    snapshot: options.snapshot ?? false,
  }
  const releaseTasks: Array<() => Promise<void>> = []
  const openingStatements: string[] = []
  const compensations: Array<(uow: UnitOfWork) => Promise<void>> = []
  const trailing: Array<{ sql: string; onSent: (sent: boolean) => void }> = []
  // Widened on purpose (`as`): `release` sets them from a closure, which TypeScript's narrowing cannot see.
  let released = false as boolean

  const slot = transactions.slot()
  let current: UnitTransaction | undefined

  /** Begins the unit's next transaction (its first too): what its first query waits for. */
  async function begin(): Promise<void> {
    const opening = [...openingStatements]
    const next = await transactions.begin(tenantId, settings, opening)
    current = next
    slot.attach(next)
    // A savepoint asked for while BEGIN was on its way.
    for (const sql of openingStatements.slice(opening.length)) await next.execute(sql, [])
  }
  slot.detach('the unit of work begins its transaction with its first query', begin)

  const uow: UnitOfWork = {
    tx: transactions.client,
    tenantId,
    afterCommit: (task) => tasks.push(task),
    execute: slot.execute,
    query: slot.query,
    async release(call) {
      if (current) {
        for (const task of releaseTasks.splice(0)) await task()
        const committing = current
        current = undefined
        slot.detach(RELEASED)
        released = true
        await committing.commit()
      }
      try {
        return await call()
      } finally {
        slot.detach(RELEASED, begin)
      }
    },
    beforeRelease: (task) => releaseTasks.push(task),
    async savepoint(name) {
      const sql = `SAVEPOINT ${name}`
      openingStatements.push(sql)
      if (current) await slot.execute(sql, [])
    },
    compensate: (task) => compensations.push(task),
    commitWith: (sql, onSent) => trailing.push({ sql, onSent }),
  }

  let result: T
  try {
    result = await slot.run(() => work(uow))
    const statements = trailing.map((t) => t.sql)
    if (current) {
      const sent = await current.commit(statements)
      for (const t of trailing) t.onSent(sent)
    } else if (statements.length > 0) {
      // A unit whose last act was a release has nothing left to commit but what rides with the commit: one more.
      const last = await transactions.begin(tenantId, settings, statements)
      current = last
      await last.commit()
      for (const t of trailing) t.onSent(true)
    }
  } catch (error) {
    await current?.rollback()
    if (released) {
      for (const task of compensations) {
        // Swallowed: the unit's own error is the one to report, and what a compensation undoes expires by itself.
        await runInUnitOfWork(db, tenantId, task, options).catch(() => undefined)
      }
    }
    throw error
  } finally {
    // Between two transactions, the slot would begin another for a stray query; an ended unit's refuses it itself.
    if (!current) slot.detach('the unit of work has ended')
  }
  return result
}
