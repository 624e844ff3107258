/**
 * @module How units of work run their transactions: each unit borrows a connection from the pool and holds it, begins
 * its transaction there already scoped to its tenant, and queries through one Prisma client shared by every unit,
 * whose queries run on the connection of the unit that makes them (found through an AsyncLocalStorage).
 *
 * Why not Prisma's interactive transactions: their manager (ids, timers, an abort controller and an operation queue
 * per transaction, a proxied client per transaction) cost the API process ~0.3 ms of CPU per unit before any query,
 * against ~0.1 ms for BEGIN, the tenant's settings and COMMIT on the driver, and each query inside one cost more than
 * the same query on the root client. Every request is a unit, so that was most of what the platform's guarantees cost
 * a read (docs/benchmarks.md, "Guarded read").
 *
 * Why one routed client is safe:
 * - A query finds its unit in the async context it was made in, and a unit lends its connection only while it is
 *   open: outside any unit, or after its unit ended (committed, rolled back, timed out), a query is refused rather
 *   than sent down a connection that may belong to another unit by then.
 * - Prisma batches the `findUnique` calls made in one tick into one query sent from the first caller's context, which
 *   would run other units' reads on that caller's connection, as its tenant. Batching is turned off on this client
 *   (`withoutBatching`), and tenant-isolation.int.test.ts holds reads of two tenants in one tick to their own rows.
 * - Prisma wraps some writes (nested creates, for instance) in a transaction of its own: on this client that is a
 *   savepoint inside the unit's transaction, never a second connection.
 */
import { AsyncLocalStorage } from 'node:async_hooks'
import { PrismaPg } from '@prisma/adapter-pg'
import type { SqlDriverAdapter, SqlDriverAdapterFactory, Transaction } from '@prisma/driver-adapter-utils'
import pg from 'pg'
import { PrismaClient } from '../generated/prisma/client.ts'

/** Runs one statement on the unit's connection, in its transaction; text parameters only. Returns the row count. */
export type ExecuteStatement = (sql: string, args: readonly string[]) => Promise<number>

/** How long a unit may wait for a connection and stay open, and whether its transactions are read-only snapshots. */
export interface UnitSettings {
  /** Longest the transaction may stay open; past it, it is rolled back and the unit's queries are refused. */
  timeoutMs: number
  /** Longest to wait for a pooled connection; past it, the unit fails as the database being unavailable. */
  maxWaitMs: number
  /** Read-only, every statement reading one snapshot (REPEATABLE READ) rather than each its own (READ COMMITTED). */
  snapshot: boolean
}

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
  /** Points the slot at an open transaction. */
  attach(transaction: UnitTransaction): void
  /**
   * Leaves the slot without a transaction. Its queries fail with `why`; or, given `resume`, the first one waits for
   * `resume` to begin the next transaction (and attach it), then runs there.
   */
  detach(why: string, resume?: () => Promise<void>): void
}

/** The units of work of one database client. */
export interface UnitTransactions {
  /** The client whose queries run on the calling unit's connection. */
  readonly client: PrismaClient
  /**
   * Borrows a connection and begins a transaction on it scoped to `tenantId` (row-level security), running `opening`
   * (constant statements without parameters, such as a savepoint) in the same round trip.
   */
  begin(tenantId: string, settings: UnitSettings, opening?: readonly string[]): Promise<UnitTransaction>
  /** A new unit's slot, empty until a transaction is attached. */
  slot(): UnitSlot
}

const ENDED = "the unit of work's transaction has ended"
/** SQLSTATE of a statement sent in a transaction that has already failed. */
const IN_FAILED_TRANSACTION = '25P02'

type UnitState = 'open' | 'ending' | 'ended'

interface OpenUnit {
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
const unitsOf = new WeakMap<UnitTransaction, OpenUnit>()

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
async function runOnUnit(unit: OpenUnit, config: string | pg.QueryConfig): Promise<pg.QueryResult> {
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
    throw new Error(
      'This Prisma version batches queries where units of work cannot see it (infra/unit-transactions.ts).'
    )
  }
  options.batchBy = () => undefined
  return client
}

// Both transaction-local, so a pooled connection never carries one tenant's context into another's request. As
// therapy_app, row-level security applies whatever role the connection logged in as. Sent with BEGIN in one message:
// a simple-protocol query takes no parameters, so the tenant id goes in as an escaped literal.
const beginScopedTo = (connection: pg.PoolClient, tenantId: string, opening: readonly string[], snapshot: boolean) =>
  `BEGIN${snapshot ? ' ISOLATION LEVEL REPEATABLE READ READ ONLY' : ''}; ` +
  `SELECT set_config('app.tenant_id', ${connection.escapeLiteral(tenantId)}, true), ` +
  "set_config('role', 'therapy_app', true)" +
  opening.map((sql) => `; ${sql}`).join('')

/** pg's connection socket, reached by name: `Client.connection.stream` (pg 8.23, pinned in package.json). */
type WithSocket = { connection?: { stream?: { cork?: () => void; uncork?: () => void } } }

/**
 * Holds a connection's writes until the current tick's microtasks have run, then sends them in one write. Where pg's
 * internals are not as expected, writes go out one by one as before.
 */
function corkForThisTick(connection: pg.PoolClient): void {
  const socket = (connection as unknown as WithSocket).connection?.stream
  if (typeof socket?.cork !== 'function' || typeof socket.uncork !== 'function') return
  socket.cork()
  // A tick callback queued from here runs once the promise jobs now queued (the unit's first query) have run.
  process.nextTick(() => socket.uncork?.())
}

/** The error of a unit that found no free connection in time: the database counts as unavailable (a 503). */
const noConnectionWithin = (ms: number) =>
  Object.assign(new Error(`timeout exceeded when trying to connect: no pooled database connection within ${ms} ms`), {
    code: 'ETIMEDOUT',
  })

/** Borrows a connection, or fails after `maxWaitMs`; a connection that arrives later goes straight back. */
async function borrow(pool: pg.Pool, maxWaitMs: number): Promise<pg.PoolClient> {
  // An idle connection is handed over without waiting: no deadline to set (the common case, on every request).
  if (pool.idleCount > 0) return pool.connect()
  let timer: NodeJS.Timeout | undefined
  // Widened on purpose (`as`): the timer sets it, which TypeScript's narrowing cannot see.
  let gaveUp = false as boolean
  const connecting = pool.connect()
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      gaveUp = true
      reject(noConnectionWithin(maxWaitMs))
    }, maxWaitMs)
  })
  try {
    return await Promise.race([connecting, deadline])
  } catch (error) {
    if (gaveUp)
      connecting.then(
        (connection) => connection.release(),
        () => undefined
      )
    throw error
  } finally {
    clearTimeout(timer)
  }
}

/**
 * Creates the units of work of a pool: the routed client and `begin`.
 * @param pool - the pool the root client uses too
 */
export function createUnitTransactions(pool: pg.Pool): UnitTransactions {
  const client = withoutBatching(new PrismaClient({ adapter: currentUnitAdapter() }))

  async function begin(
    tenantId: string,
    { timeoutMs, maxWaitMs, snapshot }: UnitSettings,
    opening: readonly string[] = []
  ): Promise<UnitTransaction> {
    const connection = await borrow(pool, maxWaitMs)
    // A connection that fails while lent out reports it here; unheard, the error would crash the process. The failed
    // query rejects on its own, and the connection is destroyed on release instead of going back to the pool.
    let broken: Error | undefined
    const onError = (error: Error) => {
      broken = error
    }
    connection.on('error', onError)
    const unit: OpenUnit = { connection, begun: Promise.resolve(), state: 'open', savepoints: 0 }
    // Set once BEGIN succeeded, but declared here: release() and finish() clear it and also run when BEGIN fails.
    // eslint-disable-next-line prefer-const -- a `const` at the assignment would be in its temporal dead zone then
    let timer: NodeJS.Timeout | undefined

    const release = (failure?: unknown) => {
      unit.state = 'ended'
      clearTimeout(timer)
      connection.removeListener('error', onError)
      // pg's queries reject with Errors; anything else still destroys the connection, and travels as the cause.
      const destroy =
        broken ??
        (failure instanceof Error ? failure : failure ? new Error('the unit failed', { cause: failure }) : undefined)
      connection.release(destroy)
    }
    /**
     * Ends the transaction once, whoever asks first (the unit, or its timeout), and returns the connection: destroyed
     * if it could not even roll back. Rejects only when COMMIT failed, after rolling back.
     */
    let ending: Promise<void> | undefined
    const finish = (sql: 'COMMIT' | 'ROLLBACK', trailing: readonly string[] = []) =>
      (ending ??= (async () => {
        unit.state = 'ending'
        clearTimeout(timer)
        await unit.begun
        if (unit.beginError !== undefined) {
          // Nothing began, or the settings failed inside the transaction: either way the connection leaves it.
          const alive = await connection.query('ROLLBACK').then(
            () => true,
            () => false
          )
          release(alive ? undefined : unit.beginError)
          if (sql === 'COMMIT') throw unit.beginError
          return
        }
        try {
          await connection.query(trailing.length > 0 ? `${trailing.join('; ')}; ${sql}` : sql)
        } catch (error) {
          // PostgreSQL ends a transaction whose COMMIT failed; ROLLBACK makes sure, and tells whether the line is alive.
          const alive =
            sql === 'COMMIT' &&
            (await connection.query('ROLLBACK').then(
              () => true,
              () => false
            ))
          release(alive ? undefined : error)
          if (sql === 'COMMIT') throw error
          return
        }
        release()
      })())

    // Not awaited: the unit's first statement follows on the pipelined connection (runOnUnit), one round trip for both.
    // The socket is corked until this tick's work is done, so a first statement sent in it goes out in the same write
    // as BEGIN: one system call instead of two (a loopback write costs ~40 µs of CPU on this VM; docs/benchmarks.md).
    corkForThisTick(connection)
    unit.begun = connection.query(beginScopedTo(connection, tenantId, opening, snapshot)).then(
      () => undefined,
      (error: unknown) => {
        unit.beginError = error instanceof Error ? error : new Error('BEGIN failed', { cause: error })
        unit.endedBecause = `${ENDED}: it could not begin (${String(error)})`
        void finish('ROLLBACK')
      }
    )
    // Past its time the unit is rolled back: it holds locks and a connection, and a request that slow has failed.
    timer = setTimeout(() => {
      if (unit.state !== 'open') return
      unit.endedBecause = `${ENDED}: it was open longer than ${timeoutMs} ms and was rolled back`
      void finish('ROLLBACK')
    }, timeoutMs)

    const transaction: UnitTransaction = {
      execute: async (sql, args) => {
        if (unit.state !== 'open') throw new Error(unit.endedBecause ?? ENDED)
        return (await runOnUnit(unit, { text: sql, values: [...args] })).rowCount ?? 0
      },
      async commit(trailing = []) {
        if (unit.state !== 'open') {
          await ending?.catch(() => undefined)
          throw new Error(unit.endedBecause ?? ENDED)
        }
        await unit.begun
        // Re-read after the wait: BEGIN's failure or the unit's timeout may have ended it meanwhile.
        if (unit.beginError !== undefined || (unit.state as UnitState) !== 'open') {
          await ending?.catch(() => undefined)
          throw unit.beginError ?? new Error(unit.endedBecause ?? ENDED)
        }
        // A transaction that already failed ('E': a statement of it was refused) only rolls back at COMMIT: what would
        // ride with it is left out, and its caller told so.
        // The status may lag: a refused statement's promise rejects on the error, before the connection has read the
        // ReadyForQuery that says the transaction failed. Then the trailing statements are refused as "in failed
        // transaction" (25P02), which is the same outcome, told the same way.
        const send = trailing.length > 0 && connection.getTransactionStatus() !== 'E'
        try {
          await finish('COMMIT', send ? trailing : [])
        } catch (error) {
          if (send && (error as { code?: unknown } | null)?.code === IN_FAILED_TRANSACTION) return false
          throw error
        }
        return send
      },
      async rollback() {
        await (ending ?? finish('ROLLBACK')).catch(() => undefined)
      },
    }
    unitsOf.set(transaction, unit)
    return transaction
  }

  function slot(): UnitSlot {
    const state: SlotState = {}
    return {
      // Awaited inside the unit's context: Prisma's queries are lazy thenables that run when first awaited, so a
      // query the work returns without awaiting must still be started as this unit.
      run: (work) => currentSlot.run(state, async () => await work()),
      execute: async (sql, args) => {
        const unit = await currentSlot.run(state, openUnitHere)
        return (await runOnUnit(unit, { text: sql, values: [...args] })).rowCount ?? 0
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

  return { client, begin, slot }
}
