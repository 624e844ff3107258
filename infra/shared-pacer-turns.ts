/**
 * @module The pacer's turns (infra/pacer.ts) in PostgreSQL's `pacer_turns`, shared by every API instance: one
 * statement takes a key's turn atomically, on the database's clock, so N instances pace a tenant together at the
 * configured rate instead of N times it (issue 39; the two-instance proof is test/integration/many-instances).
 *
 * Like the rate limiter, a failing store never fails the request and never silently multiplies the pace: the failure
 * is counted and logged, and the turn is taken in this process at a tenth of the rate until the store answers again.
 */
import type pg from 'pg'
import { memoryTurns, type PacerTurns, type TurnRule } from './pacer.ts'
import type { Logger } from './logger.ts'

/** While the shared store fails, each instance paces at this fraction of the rate (as the rate limiter's outage limit). */
const OUTAGE_PACE_DIVISOR = 10
/** At most one log line per this many milliseconds while the store keeps failing. */
const FAILURE_LOG_INTERVAL_MS = 30_000

// The database's clock, read once per statement (a CTE referenced twice is evaluated once).
const TAKE = `
  WITH c AS (SELECT (extract(epoch FROM clock_timestamp()) * 1000)::float8 AS at)
  INSERT INTO pacer_turns AS t (key, tat)
  SELECT $1, c.at + $2 FROM c
  ON CONFLICT (key) DO UPDATE SET tat = greatest(t.tat, (SELECT at FROM c)) + $2
    WHERE greatest(t.tat, (SELECT at FROM c)) - $3 - (SELECT at FROM c) <= $4
  RETURNING t.tat - $2 - $3 - (SELECT at FROM c) AS wait`
const REFUSED_WAIT = `
  SELECT greatest(tat, c.at) - $2 - c.at AS wait
  FROM pacer_turns, (SELECT (extract(epoch FROM clock_timestamp()) * 1000)::float8 AS at) c
  WHERE key = $1`

export interface SharedPacerTurnsOptions {
  pool: pg.Pool
  logger: Logger
  /** Called on every failed take of the shared store (the API counts them in a metric). */
  onStoreError?: () => void
}

export function sharedPacerTurns({
  pool,
  logger,
  onStoreError = () => undefined,
}: SharedPacerTurnsOptions): PacerTurns {
  const fallback = memoryTurns()
  let lastFailureLog = 0
  return {
    async take(key, rule: TurnRule) {
      try {
        const taken = await pool.query<{ wait: number }>(TAKE, [key, rule.intervalMs, rule.toleranceMs, rule.maxWaitMs])
        if (taken.rows[0]) return { taken: true, waitMs: Math.max(0, taken.rows[0].wait) }
        const refused = await pool.query<{ wait: number }>(REFUSED_WAIT, [key, rule.toleranceMs])
        return { taken: false, waitMs: refused.rows[0]?.wait ?? rule.maxWaitMs + 1000 }
      } catch (error) {
        onStoreError()
        if (Date.now() - lastFailureLog >= FAILURE_LOG_INTERVAL_MS) {
          lastFailureLog = Date.now()
          logger.warn({ err: error }, 'pacer store unavailable; pacing in this process at a tenth of the rate')
        }
        const slower = rule.intervalMs * OUTAGE_PACE_DIVISOR
        return fallback.take(key, {
          ...rule,
          intervalMs: slower,
          toleranceMs: (rule.toleranceMs / rule.intervalMs) * slower,
        })
      }
    },
  }
}
