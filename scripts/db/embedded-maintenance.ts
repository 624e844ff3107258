/**
 * @module Autovacuum's stand-in for the embedded PGlite. PGlite runs PostgreSQL as a single backend with no background
 * workers, so nothing ever vacuums or analyses it: the queue tables (webhook deliveries, events, the outbox), whose
 * rows are updated two or three times each, keep every dead row version and index entry, and the planner never gets
 * statistics. Measured on the webhook benchmark (docs/benchmarks.md, "Webhooks (pglite)"): 1,000 deliveries/s had a
 * p95 of 0.2 s on a fresh database and 8.8 s on the same database one 3,000-delivery run later, the claims slowed by
 * what that run left behind. A `VACUUM (ANALYZE)` of the whole database at a fixed interval does what autovacuum does
 * on a server; the visibility map lets it skip every page nothing changed since the last one.
 *
 * It goes through the wire server as a client of its own, so it takes its turn between other connections'
 * transactions (VACUUM cannot run inside one), and while it runs the others wait: it is short on a development
 * database, and its duration is logged when it is not.
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
      const started = performance.now()
      await client.query('VACUUM (ANALYZE)')
      const tookMs = performance.now() - started
      if (tookMs > slowMs) log(`embedded database maintenance (VACUUM ANALYZE) took ${tookMs.toFixed(0)} ms`)
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
