/**
 * @module Profiles the multi-location analytics request statement by statement: seeds the benchmark's year (as
 * bench/analytics.bench.ts does) and prints `EXPLAIN (ANALYZE, BUFFERS)` of every statement the service issues, so
 * a change to the queries starts from where the time goes rather than from a guess.
 *
 *   BENCH_DATABASE_URL=postgresql://... npx tsx bench/analytics-profile.ts   # or without: embedded PGlite
 */
import { randomBytes } from 'node:crypto'
import { Prisma } from '../generated/prisma/client.ts'
import { multiLocationAnalytics } from '../domain/analytics/analytics-service.ts'
import { provisionClient } from '../domain/tenants/provision-client.ts'
import { createDb } from '../infra/db.ts'
import { runInUnitOfWork, type UnitOfWork } from '../infra/unit-of-work.ts'
import { provisionTestDatabase } from '../scripts/db/test-database.ts'
import { seedAnalyticsYear } from './analytics-seed.ts'

if (process.env.BENCH_DATABASE_URL) process.env.TEST_DATABASE_URL = process.env.BENCH_DATABASE_URL
// PROFILE_DATABASE_URL: a database seeded by an earlier run (kept with PROFILE_KEEP_DATABASE=1), to profile again.
const reuse = process.env.PROFILE_DATABASE_URL
const database = reuse ? { url: reuse, stop: async () => {} } : await provisionTestDatabase()
const db = createDb(database.url)
let tenantId: string
let start: Date
if (reuse) {
  const [row] = await db.$queryRawUnsafe<Array<{ tenant_id: string; first: Date }>>(
    `SELECT tenant_id, date_trunc('day', min(starts_at)) AS first FROM appointments WHERE id LIKE 'apt_bench_%' GROUP BY 1 LIMIT 1`
  )
  tenantId = row!.tenant_id
  start = row!.first
} else {
  const client = await provisionClient(db, {
    tenantName: `Profile ${randomBytes(4).toString('hex')}`,
    scopes: ['analytics'],
  })
  tenantId = client.tenantId
  start = new Date(Date.now() - 365 * 86_400_000)
  start.setUTCHours(0, 0, 0, 0)
  await seedAnalyticsYear(db, tenantId, client.locationId, start)
  await db.$executeRawUnsafe('ANALYZE')
}
const from = start.toISOString().slice(0, 10)
const to = new Date(start.getTime() + 364 * 86_400_000).toISOString().slice(0, 10)

/** The unit of work with `$queryRaw` explained before it runs (tagged-template and Prisma.Sql calls alike). */
function explaining(uow: UnitOfWork): UnitOfWork {
  const tx = new Proxy(uow.tx, {
    get(target, prop, receiver) {
      if (prop !== '$queryRaw') return Reflect.get(target, prop, receiver) as unknown
      return async (first: TemplateStringsArray | Prisma.Sql, ...values: unknown[]) => {
        const sql = first instanceof Prisma.Sql ? first : Prisma.sql(first, ...values)
        const plan = await target.$queryRaw<Array<{ 'QUERY PLAN': string }>>`EXPLAIN (ANALYZE, BUFFERS) ${sql}`
        console.log(
          `\n=== ${sql.sql.replace(/\s+/g, ' ').slice(0, 160)}\n${plan.map((r) => r['QUERY PLAN']).join('\n')}`
        )
        return target.$queryRaw(sql)
      }
    },
  })
  return { ...uow, tx }
}

for (let i = 0; i < 2; i++) {
  await runInUnitOfWork(db, tenantId, (uow) =>
    multiLocationAnalytics(explaining(uow), { from, to, timeZone: 'America/Chicago' }, new Date())
  )
}
await db.$disconnect()
if (process.env.PROFILE_KEEP_DATABASE) console.log(`kept ${database.url}`)
else await database.stop()
process.exit(0)
