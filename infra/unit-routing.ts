/**
 * @module How a unit of work's queries find its transaction: the slot each unit runs in (an AsyncLocalStorage), the
 * routed Prisma client whose queries go down the connection of the unit that makes them, and Prisma's own nested
 * transactions as savepoints in the unit's. unit-transactions.ts begins and ends the transactions, and its module
 * comment says why one routed client is safe.
 */
import { AsyncLocalStorage } from 'node:async_hooks'
import { PrismaPg } from '@prisma/adapter-pg'
import type { SqlDriverAdapter, SqlDriverAdapterFactory, Transaction } from '@prisma/driver-adapter-utils'
import pg from 'pg'
import { PrismaClient } from '../generated/prisma/client.ts'

/** Runs one statement on the unit's connection, in its transaction; text parameters only. Returns the row count. */
export type ExecuteStatement = (sql: string, args: readonly string[]) => Promise<number>

/** A statement with its parameters as `$1`, `$2`...: what `Prisma.sql` builds (its `text` and `values`). */
export interface SqlStatement {
  readonly text: string
  readonly values: readonly unknown[]
}

/**
 * Runs one statement on the unit's connection, in its transaction, and returns its rows as the driver reads them
 * (`pg`'s types: `timestamptz` a Date, arrays of text and integers arrays, `bigint` and `numeric` strings).
 */
export type QueryRows = <Row>(statement: SqlStatement) => Promise<Row[]>

/** A unit's open transaction, from `begin` until `commit` or `rollback`. */
export interface UnitTransaction {
  execute: ExecuteStatement
  /**
   * Commits and returns the connection; throws if the commit failed or the unit had already ended (timed out).
   * `trailing` statements (no parameters: values as literals) go in the COMMIT's own message, so they cost no round
   * trip; they are left out when the transaction had already failed (its COMMIT then rolls back).
   * @returns whether the trailing statements were sent (and so committed)
   */
  commit(trailing?: readonly string[]): Promise<boolean>
  /** Rolls back, if still open, and returns the connection; never throws. */
  rollback(): Promise<void>
}

/**
 * Where a unit's code finds its transaction. A unit holds one transaction at a time: it may commit one to call out
 * over the network holding none (infra/unit-of-work.ts, `release`), and go on in the next, begun on its first query
 * after the call.
 */
export interface UnitSlot {
  /** Runs `work` as this unit: the routed client's queries made inside it go to the slot's transaction. */
  run<T>(work: () => Promise<T>): Promise<T>
  /** Runs one statement in the slot's transaction (beginning it first if the unit is between two). */
  execute: ExecuteStatement
  /** The same, answering the statement's rows. */
  query: QueryRows
  /** Points the slot at an open transaction. */
  attach(transaction: UnitTransaction): void
  /**
   * Leaves the slot without a transaction. Its queries fail with `why`; or, given `resume`, the first one waits for
   * `resume` to begin the next transaction (and attach it), then runs there.
   */
  detach(why: string, resume?: () => Promise<void>): void
}

export const ENDED = "the unit of work's transaction has ended"

export type UnitState = 'open' | 'ending' | 'ended'

export interface OpenUnit {
  readonly connection: pg.PoolClient
  /**
   * Settles when BEGIN and the tenant's settings have been answered. They are sent without waiting, and the unit's
   * first statement goes right behind them on the pipelined connection (one round trip for both); every statement's
   * answer waits for this, and fails with BEGIN's error if it failed.
   */
  begun: Promise<void>
  beginError?: Error
  state: UnitState
  /** Why queries are refused once the unit has ended early. */
  endedBecause?: string
  savepoints: number
}

/** A unit's slot as the async context holds it: its transaction, or why it has none and how to get the next one. */
interface SlotState {
  unit?: OpenUnit
  /** Why queries are refused while the unit has no transaction. */
  why?: string
  resume?: () => Promise<void>
  resuming?: Promise<void>
}

/** The slot of the unit of work whose code is running. */
const currentSlot = new AsyncLocalStorage<SlotState>()

/** The open units behind their handles. */
export const unitsOf = new WeakMap<UnitTransaction, OpenUnit>()

/**
 * Whether the running code holds an open database transaction (the unit of work it runs in has one). Calls to
 * Temporal and other network peers check it: none may be made while a transaction is held (infra/network-guard.ts).
 */
export function holdsUnitTransaction(): boolean {
  return currentSlot.getStore()?.unit?.state === 'open'
}

/** The calling unit's open transaction, begun first if the unit is between two; throws otherwise. */
async function openUnitHere(): Promise<OpenUnit> {
  const slot = currentSlot.getStore()
  if (!slot)
    throw new Error('A unit of work query ran outside any unit of work (runInUnitOfWork, infra/unit-of-work.ts).')
  if (!slot.unit && slot.resume) {
    const resume = slot.resume
    // Once, whoever asks first: two queries made together must not begin two transactions.
    slot.resuming ??= resume().finally(() => {
      slot.resuming = undefined
    })
    await slot.resuming
  }
  const unit = slot.unit
  if (!unit) throw new Error(slot.why ?? ENDED)
  if (unit.state !== 'open') throw new Error(unit.endedBecause ?? ENDED)
  return unit
}

/**
 * Sends a statement on a unit's connection at once, behind whatever is in flight there (the connection pipelines), and
 * answers it once the unit's BEGIN is known to have succeeded: a statement sent behind a BEGIN that failed is never
 * answered as if it had run in the transaction.
 */
export async function runOnUnit(unit: OpenUnit, config: string | pg.QueryConfig): Promise<pg.QueryResult> {
  const result = unit.connection.query(config as pg.QueryConfig)
  // Its rejection is awaited below, or superseded by BEGIN's: never left unhandled.
  result.catch(() => undefined)
  await unit.begun
  if (unit.beginError) throw unit.beginError
  return result
}

/** Runs a statement on a unit's connection while the unit is open. */
async function onOpen(unit: OpenUnit, sql: string): Promise<void> {
  if (unit.state !== 'open') throw new Error(unit.endedBecause ?? ENDED)
  await runOnUnit(unit, sql)
}

/**
 * What the Prisma driver adapter sees as its pool: every query goes to the calling unit's connection. It never opens
 * a connection of its own (its own pool stays empty).
 */
function currentUnitPool(): pg.Pool {
  const pool = new pg.Pool({ max: 1 })
  // The adapter only ever calls query(config); the cast covers pg's callback and streaming overloads it never uses.
  pool.query = ((config: pg.QueryConfig) => openUnitHere().then((unit) => runOnUnit(unit, config))) as pg.Pool['query']
  // The adapter asks for a connection only to start a transaction, and the routed client's transactions are savepoints.
  pool.connect = (() =>
    Promise.reject(
      new Error('Units of work lend their own connection; the routed pool has none.')
    )) as pg.Pool['connect']
  return pool
}

/**
 * A transaction Prisma opens inside a unit (to make a nested write atomic): a savepoint in the unit's transaction.
 * `usePhantomQuery` makes Prisma end it through commit() and rollback() alone, without sending COMMIT or ROLLBACK.
 */
async function savepointTransaction(adapter: SqlDriverAdapter): Promise<Transaction> {
  const unit = await openUnitHere()
  const name = `prisma_nested_${++unit.savepoints}`
  await runOnUnit(unit, `SAVEPOINT ${name}`)
  return {
    provider: adapter.provider,
    adapterName: adapter.adapterName,
    options: { usePhantomQuery: true },
    queryRaw: (query) => adapter.queryRaw(query),
    executeRaw: (query) => adapter.executeRaw(query),
    // The unit found when the savepoint was made, not the caller's: Prisma may end its transaction from a timer.
    commit: () => onOpen(unit, `RELEASE SAVEPOINT ${name}`),
    rollback: () => onOpen(unit, `ROLLBACK TO SAVEPOINT ${name}; RELEASE SAVEPOINT ${name}`),
  }
}

/** The driver adapter of the routed client: PrismaPg on the routed pool, with transactions as savepoints. */
function currentUnitAdapter(): SqlDriverAdapterFactory {
  const factory = new PrismaPg(currentUnitPool())
  return {
    provider: factory.provider,
    adapterName: factory.adapterName,
    async connect() {
      // As the interface, not PrismaPg's class: the wrapper passes on what any adapter has (getConnectionInfo is optional).
      const adapter: SqlDriverAdapter = await factory.connect()
      return {
        provider: adapter.provider,
        adapterName: adapter.adapterName,
        queryRaw: (query) => adapter.queryRaw(query),
        executeRaw: (query) => adapter.executeRaw(query),
        executeScript: (script) => adapter.executeScript(script),
        getConnectionInfo: adapter.getConnectionInfo && (() => adapter.getConnectionInfo!()),
        dispose: () => adapter.dispose(),
        startTransaction: () => savepointTransaction(adapter),
      }
    },
  }
}

/**
 * Turns off Prisma's batching of same-tick `findUnique` calls on a client (see the module comment). Prisma has no
 * option for it, so its request handler's data loader is reached by name: the version is pinned in package.json, and
 * a Prisma whose internals moved fails here at start-up instead of misrouting reads.
 */
function withoutBatching(client: PrismaClient): PrismaClient {
  type Internals = { _requestHandler?: { dataloader?: { options?: { batchBy?: unknown } } } }
  const options = (client as unknown as Internals)._requestHandler?.dataloader?.options
  if (typeof options?.batchBy !== 'function') {
    throw new Error('This Prisma version batches queries where units of work cannot see it (infra/unit-routing.ts).')
  }
  options.batchBy = () => undefined
  return client
}

/** The client whose queries run on the calling unit's connection. */
export const createRoutedClient = () => withoutBatching(new PrismaClient({ adapter: currentUnitAdapter() }))

/** A new unit's slot, empty until a transaction is attached. */
export function createSlot(): UnitSlot {
  const state: SlotState = {}
  return {
    // Awaited inside the unit's context: Prisma's queries are lazy thenables that run when first awaited, so a
    // query the work returns without awaiting must still be started as this unit.
    run: (work) => currentSlot.run(state, async () => await work()),
    execute: async (sql, args) => {
      const unit = await currentSlot.run(state, openUnitHere)
      return (await runOnUnit(unit, { text: sql, values: [...args] })).rowCount ?? 0
    },
    query: async <Row>({ text, values }: SqlStatement) => {
      const unit = await currentSlot.run(state, openUnitHere)
      return (await runOnUnit(unit, { text, values: [...values] })).rows as Row[]
    },
    attach(transaction) {
      state.unit = unitsOf.get(transaction)
      state.why = undefined
      state.resume = undefined
    },
    detach(why, resume) {
      state.unit = undefined
      state.why = why
      state.resume = resume
    },
  }
}
