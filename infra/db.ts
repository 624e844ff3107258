/**
 * @module The PostgreSQL client. Built once per process and injected; Prisma talks to PostgreSQL through the `pg`
 * driver adapter, so no native query engine is needed. Units of work need a client made here: they borrow their
 * connections from its pool and query through the routed client made with it (unit-transactions.ts).
 */
import { PrismaPg } from '@prisma/adapter-pg'
import pg from 'pg'
import { PrismaClient, type Prisma } from '../generated/prisma/client.ts'
import { createUnitTransactions, type UnitTransactions } from './unit-transactions.ts'

export type Db = PrismaClient
/** A client for one unit of work's transaction (a request's unit of work). */
export type Tx = Prisma.TransactionClient
/** Anything that can run queries: the root client or a transaction. */
export type Queryable = Db | Tx

const unitTransactions = new WeakMap<Db, UnitTransactions>()
/** A client's pools: the root client's, then the units' (the same pool in the single-login mode). */
const pools = new WeakMap<Db, [pg.Pool, pg.Pool]>()

/**
 * The logins a process uses (docs/security.md, "Least privilege in the database"): the root client's cross-tenant
 * statements log in as `system` (a member of therapy_system), the units of work as `units` (a NOINHERIT member of
 * therapy_app, which holds nothing of its own, so a `RESET ROLE` inside a unit's transaction can read nothing). One URL
 * for both is the single-login mode of the embedded database, where the control is the unit's role alone.
 */
export interface DatabaseLogins {
  system: string
  units: string
}

/** The logins configured for an API or worker process: DATABASE_URL, and DATABASE_APP_URL for the units if set. */
export function databaseLogins(config: {
  DATABASE_URL: string
  DATABASE_APP_URL?: string | undefined
}): DatabaseLogins {
  return { system: config.DATABASE_URL, units: config.DATABASE_APP_URL ?? config.DATABASE_URL }
}

/** The settings that give a process `logins` (what {@link databaseLogins} reads back). */
export function databaseLoginsEnv(logins: DatabaseLogins): { DATABASE_URL: string; DATABASE_APP_URL?: string } {
  return { DATABASE_URL: logins.system, ...(logins.units === logins.system ? {} : { DATABASE_APP_URL: logins.units }) }
}

function createPool(connectionString: string, max: number, applicationName: string | undefined): pg.Pool {
  // Pipelined connections (pg 8's `pipeline`): statements sent while others are in flight go out at once instead of
  // queueing behind them, which pg 8 deprecates. A unit of work sends its BEGIN and first statement together this way
  // (unit-transactions.ts), and statements a request makes at once (Promise.all) share a round trip.
  const pool = new pg.Pool({ connectionString, max, application_name: applicationName, pipeline: true })
  // An idle connection the server drops is reported here (and removed from the pool); unheard, it would crash the
  // process. The adapter adds its own listener only once the root client first queries, and units may come first.
  pool.on('error', () => undefined)
  return pool
}

/**
 * Creates a Prisma client on a `pg` pool, and the units of work: on the same pool when one login serves both, on a
 * pool of their own (of the same size, opened as they are needed) when the units have a login of their own.
 * @param logins - a postgresql:// URL for both, or one per use
 * @param poolMax - each pool's maximum number of connections
 * @param applicationName - the connections' `application_name` (infra/application-names.ts)
 */
export function createDb(logins: string | DatabaseLogins, poolMax = 10, applicationName?: string): Db {
  const { system, units } = typeof logins === 'string' ? { system: logins, units: logins } : logins
  const pool = createPool(system, poolMax, applicationName)
  const unitPool = units === system ? pool : createPool(units, poolMax, applicationName)
  const db = new PrismaClient({ adapter: new PrismaPg(pool, { disposeExternalPool: true }) })
  unitTransactions.set(db, createUnitTransactions(unitPool))
  pools.set(db, [pool, unitPool])
  return db
}

/**
 * Closes a client made by `createDb` and its pool. `$disconnect()` alone ends the pool only if the root client ever
 * queried (its adapter connects lazily): a process that used nothing but units of work kept an idle connection, and
 * so stayed alive for the pool's idle timeout (10 s) after its work was done.
 * @param db - a client made by `createDb`
 */
export async function closeDb(db: Db): Promise<void> {
  await db.$disconnect()
  for (const pool of new Set(pools.get(db))) if (!pool.ending) await pool.end()
}

/** The units of work of a client made by `createDb`. */
export function unitTransactionsOf(db: Db): UnitTransactions {
  const transactions = unitTransactions.get(db)
  if (!transactions) throw new Error('units of work need a database client made by createDb (infra/db.ts)')
  return transactions
}
/** Whether an error is PostgreSQL's or Prisma's unique-constraint violation. */
export function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: string; cause?: { code?: string } } | null
  return e?.code === 'P2002' || e?.code === '23505' || e?.cause?.code === '23505'
}

/** Node's network failures and the driver's/Prisma's "cannot reach the server" codes. */
const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'EPIPE',
  'P1001',
  'P1002',
  'P1017',
  'P2024',
])
/** SQLSTATEs of a server that is shutting down or refusing connections (class 08: connection exception). */
const UNAVAILABLE_SQLSTATE = /^(08...|57P0[123]|53300)$/
const UNREACHABLE_MESSAGE =
  /connection terminated|timeout exceeded when trying to connect|connect ECONNREFUSED|Can't reach database server/i

/**
 * Whether an error means the database cannot be reached right now (as opposed to a query that is wrong): the client
 * should retry later, so the API answers 503 rather than 500. Looks through the `cause` chain, where the driver
 * adapter keeps the original error.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (
    let e = error as { code?: unknown; message?: unknown; cause?: unknown } | null, depth = 0;
    e && depth < 5;
    depth++
  ) {
    if (typeof e.code === 'string' && (UNREACHABLE_CODES.has(e.code) || UNAVAILABLE_SQLSTATE.test(e.code))) return true
    if (typeof e.message === 'string' && UNREACHABLE_MESSAGE.test(e.message)) return true
    e = e.cause ?? null
  }
  return false
}

/** SQLSTATEs of text the database cannot store: a NUL character, or bytes that are not valid in its encoding. */
const UNSTORABLE_TEXT_SQLSTATE = new Set(['22021', '22P05'])

/**
 * Whether an error is the database refusing text it cannot store (PostgreSQL text may not contain NUL): bad input,
 * not a fault. The SQLSTATE sits in the `cause` chain, or in Prisma's `meta.driverAdapterError` for raw queries.
 */
export function isUnstorableText(error: unknown): boolean {
  type Link = { code?: unknown; originalCode?: unknown; cause?: unknown; meta?: { driverAdapterError?: unknown } }
  for (let e = error as Link | null, depth = 0; e && depth < 6; depth++) {
    if (UNSTORABLE_TEXT_SQLSTATE.has(String(e.originalCode ?? e.code))) return true
    e = e.cause ?? e.meta?.driverAdapterError ?? null
  }
  return false
}

/** The connections of a client's pool: open, idle, and requests waiting for one (metrics). */
export function poolStats(db: Db): { total: number; idle: number; waiting: number } {
  const stats = { total: 0, idle: 0, waiting: 0 }
  for (const pool of new Set(pools.get(db))) {
    stats.total += pool.totalCount
    stats.idle += pool.idleCount
    stats.waiting += pool.waitingCount
  }
  return stats
}
