/**
 * @module Autovacuum's stand-in for the embedded PGlite. PGlite runs PostgreSQL as a single backend with no background
 * workers, so nothing ever vacuums or analyses it: the queue tables (webhook deliveries, events, the outbox), whose
 * rows are updated two or three times each, keep every dead row version and index entry, and the planner never gets
 * statistics. Measured on the webhook benchmark (docs/benchmarks.md, "Webhooks (pglite)"): 1,000 deliveries/s had a
 * p95 of 0.2 s on a fresh database and 8.8 s on the same database one 3,000-delivery run later, the claims slowed by
 * what that run left behind. At a fixed interval this does what autovacuum does on a server: it reads the tables'
 * activity and vacuums or analyses those autovacuum would (its default thresholds, {@link maintenanceDue}), each in a
 * statement of its own; the visibility map lets a vacuum skip every page nothing changed since the last one.
 *
 * It goes through the wire server as a client of its own, so it takes its turn between other connections'
 * transactions (VACUUM cannot run inside one), and while a statement of it runs the others wait: hence one table per
 * statement, and none that does not need it. Before, one `VACUUM (ANALYZE)` of the whole database analysed every
 * table at every run and held the backend for the sum: on the webhook benchmark (2026-11-25, 50 payments/s and 1,000
 * deliveries/s) the slow ones were the queue tables, `webhook_deliveries` 405–453 ms, `events` 259 ms,
 * `audit_unsealed` 271 ms, each now a turn of its own. Slow statements are logged.
 */
import pg from 'pg'
import { startBackgroundLoop } from '../../infra/background-loop.ts'

/** Options of {@link startEmbeddedMaintenance}. */
export interface EmbeddedMaintenanceOptions {
  /** The served database. */
  connectionString: string
  /** Between two runs; autovacuum's default naptime is 60 s, the queue tables change faster than a server's. */
  intervalMs: number
  /** Runs that took longer than this are logged. */
  slowMs?: number
  log?: (message: string) => void
}

/** A table's activity since its last vacuum and analyse, from `pg_stat_user_tables` (counts may come as text). */
export interface TableActivity {
  schema: string
  table: string
  live: number | string
  dead: number | string
  modified: number | string
  inserted: number | string
}

/** What a table needs: a vacuum, an analyse, or both. */
export interface MaintenanceDue {
  schema: string
  table: string
  vacuum: boolean
  analyze: boolean
}

/**
 * The tables autovacuum would take, by its default thresholds: vacuum when the dead row versions exceed 50 + 20 % of
 * the live rows, or the rows inserted since the last vacuum exceed 1,000 + 20 % (an append-only table's visibility
 * map); analyse when the rows changed since the last analyse exceed 50 + 10 %.
 */
export function maintenanceDue(tables: readonly TableActivity[]): MaintenanceDue[] {
  return tables.flatMap((t) => {
    const [live, dead, modified, inserted] = [t.live, t.dead, t.modified, t.inserted].map(Number) as [
      number,
      number,
      number,
      number,
    ]
    const vacuum = dead > 50 + 0.2 * live || inserted > 1000 + 0.2 * live
    const analyze = modified > 50 + 0.1 * live
    return vacuum || analyze ? [{ schema: t.schema, table: t.table, vacuum, analyze }] : []
  })
}

const quoteIdent = (name: string) => `"${name.replace(/"/g, '""')}"`

/** Starts vacuuming and analysing the served database every `intervalMs`; returns the stop. */
export function startEmbeddedMaintenance(options: EmbeddedMaintenanceOptions): () => Promise<void> {
  const { connectionString, intervalMs, slowMs = 250, log = () => undefined } = options
  let client: pg.Client | undefined
  const stopLoop = startBackgroundLoop({
    intervalMs,
    runAtStart: false,
    async run() {
      if (!client) {
        const connecting = new pg.Client({ connectionString })
        // A broken connection is replaced at the next run; its error must not end the process.
        connecting.on('error', () => {
          if (client === connecting) client = undefined
        })
        await connecting.connect()
        client = connecting
      }
      const { rows } = await client.query<TableActivity>(
        `SELECT schemaname AS schema, relname AS table, n_live_tup AS live, n_dead_tup AS dead,
          n_mod_since_analyze AS modified, n_ins_since_vacuum AS inserted FROM pg_stat_user_tables`
      )
      for (const due of maintenanceDue(rows)) {
        const statement = `${due.vacuum ? 'VACUUM' : 'ANALYZE'}${due.vacuum && due.analyze ? ' (ANALYZE)' : ''} ${quoteIdent(due.schema)}.${quoteIdent(due.table)}`
        const started = performance.now()
        await client.query(statement)
        const tookMs = performance.now() - started
        if (tookMs > slowMs) log(`embedded database maintenance (${statement}) took ${tookMs.toFixed(0)} ms`)
      }
    },
    onError(error) {
      log(`embedded database maintenance failed: ${error instanceof Error ? error.message : String(error)}`)
      const broken = client
      client = undefined
      void broken?.end().catch(() => undefined)
    },
  })
  return async () => {
    await stopLoop()
    await client?.end().catch(() => undefined)
  }
}
