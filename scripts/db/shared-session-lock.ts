import { randomUUID } from 'node:crypto'
import { hostname } from 'node:os'
import { setTimeout as sleep } from 'node:timers/promises'

import pg from 'pg'

/** Options of {@link withSharedSessionLock}. */
export interface SharedSessionLockOptions {
  /** Name of the lock (a custom setting name, so it must contain a dot). */
  name: string
  /** A holder that stops renewing (crashed) loses the lock after this long. */
  leaseMs?: number
  /** Delay between attempts while someone else holds the lock. */
  pollMs?: number
  log?: (msg: string) => void
}

// The lock is a session-level custom setting holding "<owner>|<expiry in epoch ms>". Each statement runs
// alone, so reading and writing it in one statement is an atomic test-and-set. The server clock decides
// expiry.
const now = `(extract(epoch FROM clock_timestamp()) * 1000)::bigint`
const acquireSql = `
  SELECT set_config($1, $2 || '|' || (${now} + $3::bigint)::text, false) AS lock
  FROM (SELECT coalesce(current_setting($1, true), '') AS held) AS cur
  WHERE CASE
    WHEN cur.held = '' THEN true
    WHEN split_part(cur.held, '|', 1) = $2 THEN true
    ELSE split_part(cur.held, '|', 2)::bigint < ${now}
  END`
const releaseSql = `SELECT set_config($1, '', false) WHERE split_part(current_setting($1, true), '|', 1) = $2`
const holderSql = `SELECT split_part(coalesce(current_setting($1, true), ''), '|', 1) AS holder`

/**
 * Runs `fn` while holding a lock kept in the session state of the server `connectionString` points to.
 *
 * Why: on the embedded PGlite server every client connection shares one backend session, so advisory locks
 * (including the schema engine's own `pg_advisory_lock`) are re-entrant for everybody and exclude nobody.
 * Session settings are shared the same way, which makes them usable as a lock there. On a real PostgreSQL
 * server each connection has its own session, so this lock is always free and the engine's advisory lock does
 * the work.
 *
 * The holder renews a lease while `fn` runs; if the holder dies, waiters take over once the lease expires.
 */
export async function withSharedSessionLock<T>(
  connectionString: string,
  opts: SharedSessionLockOptions,
  fn: () => Promise<T>
): Promise<T> {
  const leaseMs = opts.leaseMs ?? 60_000
  const pollMs = opts.pollMs ?? 100
  const owner = `${hostname()}:${process.pid}:${randomUUID()}`
  const client = new pg.Client({ connectionString })
  // Without a listener, a dropped idle connection would crash the process instead of failing the next query.
  client.on('error', (error) => opts.log?.(`lock connection error: ${error.message}`))
  await client.connect()
  try {
    const tryAcquire = async (): Promise<boolean> =>
      (await client.query(acquireSql, [opts.name, owner, leaseMs])).rowCount === 1

    let reportedWait = false
    while (!(await tryAcquire())) {
      if (!reportedWait) {
        const holder = (await client.query<{ holder: string }>(holderSql, [opts.name])).rows[0]?.holder
        opts.log?.(`waiting for lock ${opts.name} held by ${holder ?? 'unknown'}`)
        reportedWait = true
      }
      await sleep(pollMs)
    }

    let renewal: Promise<unknown> = Promise.resolve()
    const timer = setInterval(() => {
      renewal = tryAcquire().then(
        (renewed) => renewed || opts.log?.(`lost lock ${opts.name}: lease expired and taken over`),
        (error: unknown) => opts.log?.(`could not renew lock ${opts.name}: ${String(error)}`)
      )
    }, leaseMs / 3)
    try {
      return await fn()
    } finally {
      clearInterval(timer)
      await renewal
      // A failed release must not hide the outcome of fn; the lease runs out on its own.
      await client
        .query(releaseSql, [opts.name, owner])
        .catch((error: unknown) => opts.log?.(`could not release lock ${opts.name}: ${String(error)}`))
    }
  } finally {
    await client.end().catch(() => undefined)
  }
}
