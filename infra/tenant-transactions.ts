/**
 * @module The driver adapter under every Prisma client of ours: `@prisma/adapter-pg`, except that a transaction
 * opened for a unit of work starts scoped to its tenant, and hands the unit a direct line to its connection.
 *
 * Why at the adapter: a Prisma raw operation cost the API process ~0.44 ms of CPU, the same statement sent by the
 * driver ~0.15 ms (docs/benchmarks.md). The tenant's `set_config`, run on every request, and the platform's own
 * per-request statements (the audit record) have nothing to gain from Prisma, so they go straight to the
 * transaction's connection.
 *
 * How the adapter knows the tenant: `runInUnitOfWork` opens its transaction inside `unitStarts.run`, and Prisma calls
 * `startTransaction` in that async context. The first transaction started there is the unit's; one started later in
 * the same context (a nested `db.$transaction`, should anything do that) is left as Prisma made it.
 */
import { AsyncLocalStorage } from 'node:async_hooks'
import type { ArgType, SqlDriverAdapter, SqlDriverAdapterFactory, Transaction } from '@prisma/driver-adapter-utils'

/** Runs one statement on the unit's connection, in its transaction; text parameters only. Returns the row count. */
export type ExecuteStatement = (sql: string, args: readonly string[]) => Promise<number>

/** A unit of work about to open its transaction: the tenant to scope it to, then the line to its connection. */
export interface UnitStart {
  readonly tenantId: string
  execute?: ExecuteStatement
}

/** The unit of work whose transaction is being opened, for `startTransaction` to find. */
export const unitStarts = new AsyncLocalStorage<UnitStart>()

const TEXT: ArgType = { scalarType: 'string', arity: 'scalar' }

// Both transaction-local, so a pooled connection never carries one tenant's context into another's request. As
// therapy_app, row-level security applies whatever role the connection logged in as.
const SCOPE_TO_TENANT = "SELECT set_config('app.tenant_id', $1, true), set_config('role', 'therapy_app', true)"

const statement = (sql: string) => ({ sql, args: [], argTypes: [] })

/**
 * The unit's transaction as Prisma sees it, and the unit's `execute`, which refuses once the transaction has ended:
 * after a timeout Prisma rolls back and returns the connection to the pool, where another unit may already hold it.
 */
function unitTransaction(transaction: Transaction, start: UnitStart): Transaction {
  let open = true
  start.execute = (sql, args) =>
    open
      ? transaction.executeRaw({ sql, args: [...args], argTypes: args.map(() => TEXT) })
      : Promise.reject(new Error("the unit of work's transaction has ended"))
  return {
    provider: transaction.provider,
    adapterName: transaction.adapterName,
    options: transaction.options,
    queryRaw: (query) => transaction.queryRaw(query),
    executeRaw: (query) => {
      // Prisma ends the transaction with these statements, then calls commit() or rollback() to release it.
      if (query.sql === 'COMMIT' || query.sql === 'ROLLBACK') open = false
      return transaction.executeRaw(query)
    },
    commit: () => {
      open = false
      return transaction.commit()
    },
    rollback: () => {
      open = false
      return transaction.rollback()
    },
    createSavepoint: transaction.createSavepoint && ((name) => transaction.createSavepoint!(name)),
    rollbackToSavepoint: transaction.rollbackToSavepoint && ((name) => transaction.rollbackToSavepoint!(name)),
    releaseSavepoint: transaction.releaseSavepoint && ((name) => transaction.releaseSavepoint!(name)),
  }
}

async function scopeToTenant(transaction: Transaction, start: UnitStart): Promise<Transaction> {
  try {
    await transaction.executeRaw({ sql: SCOPE_TO_TENANT, args: [start.tenantId], argTypes: [TEXT] })
  } catch (error) {
    // Prisma never saw this transaction: end it here, or the connection goes back to the pool inside it.
    await transaction.executeRaw(statement('ROLLBACK')).catch(() => undefined)
    await transaction.rollback()
    throw error
  }
  return unitTransaction(transaction, start)
}

/**
 * Wraps a driver adapter factory so that units of work open their transactions scoped to their tenant.
 * @param factory - `new PrismaPg(...)`
 */
export function tenantTransactions(factory: SqlDriverAdapterFactory): SqlDriverAdapterFactory {
  return {
    provider: factory.provider,
    adapterName: factory.adapterName,
    async connect(): Promise<SqlDriverAdapter> {
      const adapter = await factory.connect()
      return {
        provider: adapter.provider,
        adapterName: adapter.adapterName,
        queryRaw: (query) => adapter.queryRaw(query),
        executeRaw: (query) => adapter.executeRaw(query),
        executeScript: (script) => adapter.executeScript(script),
        getConnectionInfo: adapter.getConnectionInfo && (() => adapter.getConnectionInfo!()),
        dispose: () => adapter.dispose(),
        async startTransaction(isolationLevel) {
          const transaction = await adapter.startTransaction(isolationLevel)
          const start = unitStarts.getStore()
          return start && !start.execute ? scopeToTenant(transaction, start) : transaction
        },
      }
    },
  }
}
