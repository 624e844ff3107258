/**
 * @module Request counters for the API's rate limit (docs/conventions.md, "Rate limits"), on rate-limiter-flexible: fixed
 * 60-second windows per key, starting at the key's first request. The counters live in PostgreSQL's `rate_limits`
 * table (`postgres`, the default), shared by every API instance, or in this process (`memory`, the default only for
 * the embedded single-process database of `npm start`).
 *
 * The shared store is counted in leases: an instance takes a block of points from a key's row in one statement (a
 * twentieth of the limit, at least 1: {@link leaseBlock}) and spends them in its memory, so most requests cost no
 * statement at all. Only points within the limit are ever granted, so all instances together never allow more than the
 * limit in a window; a client spread over N instances may be refused up to (N − 1) × block requests early, while
 * other instances still hold points it did not use (docs/rate-limits.md, "Leased counts").
 *
 * A failing store never fails a request, and never silently hands out an unshared allowance: each failure is counted
 * (a metric) and logged, and the request is counted in this process against a much shorter limit
 * ({@link outageLimit}), so N instances during an outage allow together about what one allowed before, not N times
 * as much. This is the library's `insuranceLimiter` pattern, done here because the library's version swallows the
 * store's error.
 */
import pg from 'pg'
import { RateLimiterMemory, RateLimiterPostgres, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible'
import type { Logger } from './logger.ts'
import { createSharedStatePool } from './shared-state-pool.ts'

/** Length of a window by default: the limit is per minute. */
export const WINDOW_SECONDS = 60
/** Namespaces the keys in the shared table (`api:client:<id>`, `api:ip:<address>`). */
const KEY_PREFIX = 'api'
/** At most one log line per this many milliseconds while the store keeps failing (each line counts the failures). */
const FAILURE_LOG_INTERVAL_MS = 30_000
/** While the shared store fails, each instance allows this fraction of the limit (see {@link outageLimit}). */
const OUTAGE_LIMIT_DIVISOR = 10
/** An instance leases this fraction of the limit from the shared row at a time (see {@link leaseBlock}). */
const LEASE_DIVISOR = 20

/** Where the counters live. */
export type RateLimitStore = 'memory' | 'postgres'

/**
 * Where the counters live when RATE_LIMIT_STORE does not say: in PostgreSQL, shared by every instance, whenever the
 * platform runs on a PostgreSQL server (several API instances may share it, and per-process counters would give a
 * client N × the limit); in memory only for the embedded database, which serves one API process.
 * @param config - RATE_LIMIT_STORE (unset for the default) and DATABASE_EMBEDDED
 * @returns the store and why, for the start log line
 */
export function chooseRateLimitStore(config: { RATE_LIMIT_STORE?: RateLimitStore; DATABASE_EMBEDDED: boolean }): {
  store: RateLimitStore
  reason: string
} {
  if (config.RATE_LIMIT_STORE) return { store: config.RATE_LIMIT_STORE, reason: 'RATE_LIMIT_STORE' }
  return config.DATABASE_EMBEDDED
    ? { store: 'memory', reason: 'embedded single-process database' }
    : { store: 'postgres', reason: 'PostgreSQL server, shared by every instance' }
}

/**
 * The per-instance limit while the shared store fails: a tenth of the limit (at least 1). A client spread over up to
 * ten instances keeps at most its allowance; with fewer, it is slowed rather than given N × the limit.
 */
export const outageLimit = (limit: number) => Math.max(1, Math.ceil(limit / OUTAGE_LIMIT_DIVISOR))

/**
 * Points an instance takes from a key's shared row in one statement: a twentieth of the limit, at least 1 (30 of the
 * default 600). Limits up to 20 lease one point at a time, i.e. count every request in the row as before.
 */
export const leaseBlock = (limit: number) => Math.max(1, Math.ceil(limit / LEASE_DIVISOR))

/** The outcome of counting one request, with what the response headers need. */
export interface RateLimitDecision {
  allowed: boolean
  /** Requests allowed per window (`X-RateLimit-Limit`). */
  limit: number
  /** Requests left in the current window (`X-RateLimit-Remaining`). */
  remaining: number
  /** Unix epoch seconds at which the current window ends (`X-RateLimit-Reset`). */
  resetAt: number
  /** Whole seconds until the window ends, at least 1 (`Retry-After` of a 429). */
  retryAfterSeconds: number
}

/** Counts requests per key. */
export interface RateLimiter {
  readonly limit: number
  readonly store: RateLimitStore
  /** Counts one request of `key` and decides whether it may proceed. Never rejects because of the store. */
  consume(key: string): Promise<RateLimitDecision>
  /** Releases the store's connections. */
  close(): Promise<void>
}

/** Options of {@link createRateLimiter}. */
export interface RateLimiterOptions {
  store: RateLimitStore
  /** Requests per key per window. */
  limit: number
  /** Length of a window in seconds, {@link WINDOW_SECONDS} by default (tests shorten it rather than wait a minute). */
  windowSeconds?: number
  /**
   * The database of the `postgres` store. Its own small pool, connecting as the login role outside any tenant
   * transaction: counters are platform data, and counting must not wait on (or hold) a request's transaction.
   */
  connectionString?: string
  logger: Logger
  /** Called on every failed or slow consume of the shared store (the API counts them in a metric). */
  onStoreError?: () => void
}

/**
 * Turns the library's answer into a decision.
 * @param res - what the limiter resolved (allowed) or rejected with (over the limit)
 * @param nowMs - the current time in epoch milliseconds
 */
export function toDecision(limit: number, res: RateLimiterRes, allowed: boolean, nowMs: number): RateLimitDecision {
  const msLeft = Math.max(res.msBeforeNext, 0)
  return {
    allowed,
    limit,
    remaining: allowed ? Math.max(res.remainingPoints, 0) : 0,
    resetAt: Math.ceil((nowMs + msLeft) / 1000),
    retryAfterSeconds: Math.max(1, Math.ceil(msLeft / 1000)),
  }
}

/** Consumes one point; an over-the-limit rejection is a decision, anything else (the store failed) is thrown. */
async function count(limiter: RateLimiterAbstract, limit: number, key: string): Promise<RateLimitDecision> {
  try {
    return toDecision(limit, await limiter.consume(key), true, Date.now())
  } catch (outcome) {
    if (outcome instanceof RateLimiterRes) return toDecision(limit, outcome, false, Date.now())
    throw outcome
  }
}

/** What this instance holds of a key's shared count in the current window. */
interface Lease {
  /** Points granted to this instance and not yet spent. */
  unspent: number
  /** The shared count (points granted to every instance) when this instance last took a block. */
  shared: number
  /** When the window ends, epoch milliseconds (the shared row's expiry). */
  endsAt: number
}

/** Statements one request may wait for before it is refused (see leasedCounts); each grants every waiting request. */
const MAX_TAKES = 5
/** At most this many keys' leases are kept; past it, expired ones are dropped, then the oldest. */
const MAX_LEASES = 100_000

/**
 * Counts a key's requests against points leased from the shared row, `block` at a time: one statement per block (the
 * library's `consume(key, block)`, an `INSERT … ON CONFLICT DO UPDATE … RETURNING`), none for the requests between.
 * A block that crosses the limit grants only what was left under it; once nothing is left, the instance answers the
 * key's 429s from its memory until the window ends. Concurrent requests of a key wait for one statement, not one each,
 * and a burst larger than a block takes one point per waiting request in that statement.
 * `remaining` is the shared count less this instance's unspent points: what the client may still send.
 */
function leasedCounts(shared: RateLimiterAbstract, limit: number, block: number) {
  const leases = new Map<string, Lease>()
  const taking = new Map<string, Promise<void>>()
  /** Requests of a key waiting for its next block. */
  const waiting = new Map<string, number>()

  function keep(key: string, lease: Lease) {
    if (leases.size >= MAX_LEASES && !leases.has(key)) {
      const now = Date.now()
      for (const [k, l] of leases) if (l.endsAt <= now) leases.delete(k)
      if (leases.size >= MAX_LEASES) leases.delete(leases.keys().next().value!)
    }
    leases.set(key, lease)
  }

  async function take(key: string): Promise<void> {
    // The requests of this tick are all counted before the statement goes out.
    await Promise.resolve()
    const points = Math.max(block, waiting.get(key) ?? 1)
    let res: RateLimiterRes
    try {
      res = await shared.consume(key, points)
    } catch (outcome) {
      if (!(outcome instanceof RateLimiterRes)) throw outcome
      res = outcome
    }
    const before = res.consumedPoints - points
    const granted = Math.max(0, Math.min(points, limit - before))
    keep(key, { unspent: granted, shared: Math.min(res.consumedPoints, limit), endsAt: Date.now() + res.msBeforeNext })
  }

  return async function consume(key: string): Promise<RateLimitDecision> {
    for (let attempt = 0; ; attempt++) {
      const now = Date.now()
      const lease = leases.get(key)
      const current = lease && lease.endsAt > now ? lease : undefined
      if (current && current.unspent > 0) {
        current.unspent -= 1
        return leaseDecision(limit, current, true, now)
      }
      // Nothing left under the limit in this window: refused from memory, no statement, until the window ends.
      if (current && current.shared >= limit) return leaseDecision(limit, current, false, now)
      // Blocks taken and spent by concurrent requests in between, again and again: a store this contended is answered
      // as refused for a second rather than kept waiting.
      if (attempt >= MAX_TAKES)
        return leaseDecision(limit, { unspent: 0, shared: limit, endsAt: now + 1000 }, false, now)
      let pending = taking.get(key)
      if (!pending) {
        pending = take(key).finally(() => taking.delete(key))
        taking.set(key, pending)
      }
      waiting.set(key, (waiting.get(key) ?? 0) + 1)
      try {
        await pending
      } finally {
        const left = (waiting.get(key) ?? 1) - 1
        if (left > 0) waiting.set(key, left)
        else waiting.delete(key)
      }
    }
  }
}

/** The decision of a request counted against a lease. */
function leaseDecision(limit: number, lease: Lease, allowed: boolean, nowMs: number): RateLimitDecision {
  const msLeft = Math.max(lease.endsAt - nowMs, 0)
  return {
    allowed,
    limit,
    remaining: allowed ? Math.max(0, limit - lease.shared + lease.unspent) : 0,
    resetAt: Math.ceil(lease.endsAt / 1000),
    retryAfterSeconds: Math.max(1, Math.ceil(msLeft / 1000)),
  }
}

const memoryCounters = (limit: number, windowSeconds: number) =>
  new RateLimiterMemory({ keyPrefix: KEY_PREFIX, points: limit, duration: windowSeconds })

/**
 * Creates the rate limiter for the configured store.
 * @throws Error when the `postgres` store has no connection string
 */
export function createRateLimiter({
  store,
  limit,
  windowSeconds = WINDOW_SECONDS,
  connectionString,
  logger,
  onStoreError = () => undefined,
}: RateLimiterOptions): RateLimiter {
  if (store === 'memory') {
    const counters = memoryCounters(limit, windowSeconds)
    return { limit, store, consume: (key) => count(counters, limit, key), close: async () => undefined }
  }
  if (!connectionString) throw new Error('The postgres rate-limit store needs a connection string.')

  const pool = createSharedStatePool(connectionString, logger, 'therapy-care-rate-limit')

  const shared = new RateLimiterPostgres({
    // The library names its statements, and a named statement lives in the server session: where connections share
    // one session (the embedded PGlite serves all of them from one; PgBouncer in transaction mode does the same), a
    // second connection's PREPARE fails with "already exists". Unnamed, they work everywhere.
    storeClient: { query: ({ text, values }: pg.QueryConfig) => pool.query({ text, values }) },
    storeType: 'pool',
    // The table belongs to the Prisma migrations (model RateLimit); the library must never issue DDL.
    tableName: 'rate_limits',
    tableCreated: true,
    keyPrefix: KEY_PREFIX,
    points: limit,
    duration: windowSeconds,
    // No `inMemoryBlockOnConsumed`: the leases answer a key's 429s from memory once its window's points are all
    // granted (leasedCounts), and a block taken past the limit must read the row's true count, not a memory block's.
  })
  const localLimit = outageLimit(limit)
  const fallback = memoryCounters(localLimit, windowSeconds)
  const leased = leasedCounts(shared, limit, leaseBlock(limit))
  let lastFailureLog = 0
  let failuresSinceLog = 0

  return {
    limit,
    store,
    async consume(key) {
      try {
        return await leased(key)
      } catch (error) {
        onStoreError()
        failuresSinceLog += 1
        if (Date.now() - lastFailureLog >= FAILURE_LOG_INTERVAL_MS) {
          lastFailureLog = Date.now()
          logger.warn(
            { err: error, failures: failuresSinceLog, localLimit },
            'rate-limit store unavailable; limiting in this process at the outage limit until it returns'
          )
          failuresSinceLog = 0
        }
        return count(fallback, localLimit, key)
      }
    },
    async close() {
      await pool.end()
    },
  }
}
