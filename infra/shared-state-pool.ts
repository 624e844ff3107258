/**
 * @module The small PostgreSQL pool of the state every API instance shares outside any tenant transaction: rate-limit
 * counters (infra/rate-limiter.ts) and the workflow-view pacer's turns (infra/shared-pacer-turns.ts). Its own pool, as
 * the login role: counting must not wait on (or hold) a request's transaction, and a slow store must answer quickly
 * so the caller can fall back.
 */
import pg from 'pg'
import type { Logger } from './logger.ts'

/** Longest a caller waits on the shared store (a connection or the query) before its fallback answers. */
export const SHARED_STATE_TIMEOUT_MS = 1000
/** One short statement per request: a handful of connections per instance is plenty. */
const POOL_MAX = 5

export function createSharedStatePool(connectionString: string, logger: Logger, applicationName: string): pg.Pool {
  const pool = new pg.Pool({
    connectionString,
    max: POOL_MAX,
    connectionTimeoutMillis: SHARED_STATE_TIMEOUT_MS,
    query_timeout: SHARED_STATE_TIMEOUT_MS,
    application_name: applicationName,
    // A counter lost in a server crash costs a caller a few extra requests, nothing more: no need to wait for the
    // WAL flush on every request (about 2 ms of each statement on a local PostgreSQL 15, 0.35 ms without it).
    options: '-c synchronous_commit=off',
  })
  // An idle connection dropped by the server is reported here; unheard, it would crash the process.
  pool.on('error', (err) => logger.warn({ err, pool: applicationName }, 'shared-state store connection lost'))
  return pool
}
