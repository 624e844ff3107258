/**
 * @module Benchmark: what a pump's claim costs while a failing endpoint holds a backlog. Held deliveries (their
 * endpoint's breaker open) stay PENDING with `next_attempt_at` NULL (domain/webhooks/held-deliveries.ts), out of
 * the due index's range the claim walks in `next_attempt_at` order. Before that they kept a due time, sat at the head
 * of that range and were filtered out row by row after the join with their endpoint: `BENCH_HELD_DUE=1` writes them
 * that way again, for the comparison. A dead endpoint holds up to 24 hours of its events; this measures `claimDue`
 * (domain/webhooks/delivery-queue.ts) for 64 due deliveries of a healthy endpoint behind 0 to BENCH_HELD_MAX held
 * ones.
 *
 *   BENCH_DATABASE_URL=postgresql://... npx tsx bench/webhook-held-backlog.bench.ts
 *
 * Writes the section "Webhooks: claims behind a held backlog (<database>)" of docs/benchmarks.md.
 */
import os from 'node:os'
import { claimDue, releaseClaims } from '../domain/webhooks/delivery-queue.ts'
import { provisionClient } from '../domain/tenants/provision-client.ts'
import { closeDb, createDb } from '../infra/db.ts'
import { provisionTestDatabase } from '../scripts/db/test-database.ts'
import { writeBenchmarkSection } from '../scripts/lib/benchmark-report.ts'
import { percentile } from './webhook-bench-kit.ts'

const HELD_MAX = Number(process.env.BENCH_HELD_MAX ?? 1_000_000)
const SIZES = [0, 10_000, 100_000, 1_000_000].filter((n) => n <= HELD_MAX)
const CLAIMS = 30
/** Held rows with a due time, as before held deliveries were taken out of the due range. */
const HELD_DUE = process.env.BENCH_HELD_DUE === '1'

if (process.env.BENCH_DATABASE_URL) process.env.TEST_DATABASE_URL = process.env.BENCH_DATABASE_URL
const database = await provisionTestDatabase()
const db = createDb(database.url, 4)
const log = (message: string) => process.stderr.write(`[bench] ${message}\n`)

const rows: string[] = []
try {
  const { tenantId } = await provisionClient(db, { tenantName: 'Held backlog bench', scopes: ['webhooks'] })
  const endpoint = async (id: string, open: boolean) =>
    db.$executeRaw`
      INSERT INTO webhook_endpoints (id, tenant_id, url, event_types, signing_scheme, secret, circuit_opened_at,
        consecutive_failures, updated_at)
      VALUES (${id}, ${tenantId}, ${`http://127.0.0.1:9/${id}`}, ARRAY['*'], 'V1', 'whsec_bench',
        ${open ? new Date() : null}, ${open ? 5 : 0}, now())`
  await endpoint('whe_dead', true)
  await endpoint('whe_live', false)
  /** Adds deliveries of `endpointId` numbered from `from`, created `ageMs` ago (oldest first); due then, or held. */
  const addDeliveries = async (endpointId: string, from: number, count: number, ageMs: number, held: boolean) => {
    await db.$executeRaw`
      INSERT INTO events (id, tenant_id, type, data, created_at, fanned_out_at)
      SELECT ${endpointId} || '_evt_' || g, ${tenantId}, 'child.registered', '{}'::jsonb,
        now() - make_interval(secs => ${ageMs}::float8 / 1000), now()
      FROM generate_series(${from}::int, ${from + count - 1}::int) g`
    await db.$executeRaw`
      INSERT INTO webhook_deliveries (id, tenant_id, event_id, endpoint_id, event_type, kind, status, next_attempt_at,
        created_at)
      SELECT ${endpointId} || '_dlv_' || g, ${tenantId}, ${endpointId} || '_evt_' || g, ${endpointId},
        'child.registered', 'EVENT', 'PENDING',
        CASE WHEN ${held} THEN NULL ELSE now() - make_interval(secs => ${ageMs}::float8 / 1000) END, now()
      FROM generate_series(${from}::int, ${from + count - 1}::int) g`
  }
  await addDeliveries('whe_live', 0, 64, 0, false)
  let held = 0
  for (const size of SIZES) {
    // Held rows are older than the healthy ones: the breaker opened before them.
    if (size > held) {
      log(`holding ${size} deliveries`)
      for (let from = held; from < size; from += 100_000)
        await addDeliveries('whe_dead', from, Math.min(100_000, size - from), 60_000, !HELD_DUE)
      held = size
      await db.$executeRawUnsafe('ANALYZE webhook_deliveries')
    }
    const times: number[] = []
    let claimed = 0
    for (let i = 0; i < CLAIMS; i++) {
      const t0 = performance.now()
      const rowsClaimed = await claimDue(db, {
        partition: 0,
        partitions: 1,
        limit: 64,
        perEndpoint: 8,
        excludeEndpoints: [],
        now: new Date(),
        leaseMs: 60_000,
      })
      times.push(performance.now() - t0)
      claimed = rowsClaimed.length
      await releaseClaims(
        db,
        rowsClaimed.map((r) => r.id)
      )
    }
    times.sort((a, b) => a - b)
    rows.push(
      `| ${size.toLocaleString('en')} | ${claimed} | ${percentile(times, 50).toFixed(1)} | ${percentile(times, 95).toFixed(1)} |`
    )
    log(rows.at(-1)!)
  }
} finally {
  await closeDb(db)
  await database.stop()
}

const heldAs = HELD_DUE
  ? 'due, as before they were held out of the due range: `BENCH_HELD_DUE=1`'
  : '`next_attempt_at` NULL, as the queue holds them'
const body = [
  `Measured ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC on this machine (2 shared CPUs, load ` +
    `${os.loadavg()[0]!.toFixed(1)}; ${database.kind === 'postgresql' ? 'PostgreSQL 15 server' : 'embedded PGlite'}, ` +
    `Node ${process.versions.node}). One healthy endpoint with 64 due deliveries, one endpoint whose breaker is open ` +
    `holding the given number of older deliveries (${heldAs}); ${CLAIMS} claims (\`claimDue\`, limit 64, 8 per endpoint, one ` +
    'partition), each given back before the next. Command: `npx tsx bench/webhook-held-backlog.bench.ts`' +
    (database.kind === 'postgresql' ? ' with `BENCH_DATABASE_URL`.' : '.'),
  '',
  '| held deliveries | claimed | claim p50 ms | claim p95 ms |',
  '|---|---|---|---|',
  ...rows,
].join('\n')
console.log(body)
await writeBenchmarkSection(
  `Webhooks: claims behind a held backlog (${database.kind}${HELD_DUE ? ', held rows due as before' : ''})`,
  body
)
