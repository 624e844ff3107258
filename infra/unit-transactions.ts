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
import type pg from 'pg'
import type { PrismaClient } from '../generated/prisma/client.ts'
import {
  createRoutedClient,
  createSlot,
  ENDED,
  runOnUnit,
  unitsOf,
  type OpenUnit,
  type UnitSlot,
  type UnitState,
  type UnitTransaction,
} from './unit-routing.ts'

/** How long a unit may wait for a connection and stay open, and whether its transactions are read-only snapshots. */
export interface UnitSettings {
  /** Longest the transaction may stay open; past it, it is rolled back and the unit's queries are refused. */
  timeoutMs: number
  /** Longest to wait for a pooled connection; past it, the unit fails as the database being unavailable. */
  maxWaitMs: number
  /** Read-only, every statement reading one snapshot (REPEATABLE READ) rather than each its own (READ COMMITTED). */
  snapshot: boolean
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

/** SQLSTATE of a statement sent in a transaction that has already failed. */
const IN_FAILED_TRANSACTION = '25P02'

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

/** A unit's lent connection while it is out: what ending it needs. */
interface Lending {
  readonly unit: OpenUnit
  readonly connection: pg.PoolClient
  readonly onError: (error: Error) => void
  /** The connection's failure while lent out: it is then destroyed on release instead of going back to the pool. */
  broken?: Error
  /** The unit's timeout; set once BEGIN is sent, cleared by whatever ends the unit first. */
  timer?: NodeJS.Timeout
  /** The end of the transaction, once asked for. */
  ending?: Promise<void>
}

/** Ends the lending: the unit is over and its connection goes back, destroyed if it failed. */
function release(lent: Lending, failure?: unknown): void {
  lent.unit.state = 'ended'
  clearTimeout(lent.timer)
  lent.connection.removeListener('error', lent.onError)
  // pg's queries reject with Errors; anything else still destroys the connection, and travels as the cause.
  const destroy =
    lent.broken ??
    (failure instanceof Error ? failure : failure ? new Error('the unit failed', { cause: failure }) : undefined)
  lent.connection.release(destroy)
}

/**
 * Ends the transaction once, whoever asks first (the unit, or its timeout), and returns the connection: destroyed
 * if it could not even roll back. Rejects only when COMMIT failed, after rolling back.
 */
function finish(lent: Lending, sql: 'COMMIT' | 'ROLLBACK', trailing: readonly string[] = []): Promise<void> {
  const { unit, connection } = lent
  return (lent.ending ??= (async () => {
    unit.state = 'ending'
    clearTimeout(lent.timer)
    await unit.begun
    if (unit.beginError !== undefined) {
      // Nothing began, or the settings failed inside the transaction: either way the connection leaves it.
      const alive = await connection.query('ROLLBACK').then(
        () => true,
        () => false
      )
      release(lent, alive ? undefined : unit.beginError)
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
      release(lent, alive ? undefined : error)
      if (sql === 'COMMIT') throw error
      return
    }
    release(lent)
  })())
}

/** The handle of a lent unit's transaction: its statements, its commit and its rollback. */
function transactionOf(lent: Lending): UnitTransaction {
  const { unit, connection } = lent
  return {
    execute: async (sql, args) => {
      if (unit.state !== 'open') throw new Error(unit.endedBecause ?? ENDED)
      return (await runOnUnit(unit, { text: sql, values: [...args] })).rowCount ?? 0
    },
    async commit(trailing = []) {
      if (unit.state !== 'open') {
        await lent.ending?.catch(() => undefined)
        throw new Error(unit.endedBecause ?? ENDED)
      }
      await unit.begun
      // Re-read after the wait: BEGIN's failure or the unit's timeout may have ended it meanwhile.
      if (unit.beginError !== undefined || (unit.state as UnitState) !== 'open') {
        await lent.ending?.catch(() => undefined)
        throw unit.beginError ?? new Error(unit.endedBecause ?? ENDED)
      }
      // A transaction that already failed ('E': a statement of it was refused) only rolls back at COMMIT: what would
      // ride with it is left out, and its caller told so.
      // The status may lag: a refused statement's promise rejects on the error, before the connection has read the
      // ReadyForQuery that says the transaction failed. Then the trailing statements are refused as "in failed
      // transaction" (25P02), which is the same outcome, told the same way.
      const send = trailing.length > 0 && connection.getTransactionStatus() !== 'E'
      try {
        await finish(lent, 'COMMIT', send ? trailing : [])
      } catch (error) {
        if (send && (error as { code?: unknown } | null)?.code === IN_FAILED_TRANSACTION) return false
        throw error
      }
      return send
    },
    async rollback() {
      await (lent.ending ?? finish(lent, 'ROLLBACK')).catch(() => undefined)
    },
  }
}

/**
 * Borrows a connection and begins a transaction on it scoped to `tenantId`, running `opening` in the same round trip
 * (UnitTransactions `begin`).
 */
async function begin(
  pool: pg.Pool,
  tenantId: string,
  { timeoutMs, maxWaitMs, snapshot }: UnitSettings,
  opening: readonly string[] = []
): Promise<UnitTransaction> {
  const connection = await borrow(pool, maxWaitMs)
  const unit: OpenUnit = { connection, begun: Promise.resolve(), state: 'open', savepoints: 0 }
  // A connection that fails while lent out reports it here; unheard, the error would crash the process. The failed
  // query rejects on its own, and the connection is destroyed on release instead of going back to the pool.
  const lent: Lending = {
    unit,
    connection,
    onError: (error: Error) => {
      lent.broken = error
    },
  }
  connection.on('error', lent.onError)

  // Not awaited: the unit's first statement follows on the pipelined connection (runOnUnit), one round trip for both.
  // The socket is corked until this tick's work is done, so a first statement sent in it goes out in the same write
  // as BEGIN: one system call instead of two (a loopback write costs ~40 µs of CPU on this VM; docs/benchmarks.md).
  corkForThisTick(connection)
  unit.begun = connection.query(beginScopedTo(connection, tenantId, opening, snapshot)).then(
    () => undefined,
    (error: unknown) => {
      unit.beginError = error instanceof Error ? error : new Error('BEGIN failed', { cause: error })
      unit.endedBecause = `${ENDED}: it could not begin (${String(error)})`
      void finish(lent, 'ROLLBACK')
    }
  )
  // Past its time the unit is rolled back: it holds locks and a connection, and a request that slow has failed.
  lent.timer = setTimeout(() => {
    if (unit.state !== 'open') return
    unit.endedBecause = `${ENDED}: it was open longer than ${timeoutMs} ms and was rolled back`
    void finish(lent, 'ROLLBACK')
  }, timeoutMs)

  const transaction = transactionOf(lent)
  unitsOf.set(transaction, unit)
  return transaction
}

/**
 * Creates the units of work of a pool: the routed client and `begin`.
 * @param pool - the pool the root client uses too
 */
export function createUnitTransactions(pool: pg.Pool): UnitTransactions {
  return {
    client: createRoutedClient(),
    begin: (tenantId, settings, opening) => begin(pool, tenantId, settings, opening),
    slot: createSlot,
  }
}
