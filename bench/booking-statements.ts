/**
 * @module The statements one booking sends on the API's database connections: every query of the API's `pg` clients
 * while one `POST /v1/appointments` runs (after a first booking has warmed the route) and for 500 ms after its answer,
 * so the background work it wakes (the agent dispatcher's claim, the audit sealer if its tick falls there) shows too.
 * PostgreSQL (BENCH_DATABASE_URL) or the embedded database; the worker is not started.
 *
 *   npx tsx bench/booking-statements.ts
 */
import pg from 'pg'
import { startApi } from '../api/start-api.ts'
import { loadConfig } from '../infra/config.ts'
import { createLogger } from '../infra/logger.ts'
import { ensureTemporal } from '../scripts/temporal/dev-server.ts'
import { provisionTestDatabase } from '../scripts/db/test-database.ts'
import { newTenant } from './webhook-bench-kit.ts'
import { databaseLoginsEnv } from '../infra/db.ts'

const texts: string[] = []
let counting = false
// Every query of every `pg` client in this process (the pool's, the units of work's) goes through this method.
const { query } = pg.Client.prototype as unknown as { query: (this: pg.Client, ...args: unknown[]) => unknown }
pg.Client.prototype.query = function countedQuery(this: pg.Client, ...args: unknown[]) {
  if (counting) {
    const first = args[0] as string | { text?: string }
    texts.push((typeof first === 'string' ? first : (first.text ?? '?')).replace(/\s+/g, ' ').slice(0, 90))
  }
  return query.apply(this, args)
} as typeof pg.Client.prototype.query
if (process.env.BENCH_DATABASE_URL) process.env.TEST_DATABASE_URL = process.env.BENCH_DATABASE_URL
const [database, temporal] = await Promise.all([
  provisionTestDatabase(),
  ensureTemporal({ port: 0, uiPort: false, log: () => undefined }),
])
const api = await startApi(
  loadConfig({
    NODE_ENV: 'test',
    // The platform's own logins on a server, as deployed (docs/security.md, "Least privilege in the database").
    ...databaseLoginsEnv(database.logins),
    TEMPORAL_ADDRESS: temporal.address,
    TEMPORAL_NAMESPACE: temporal.namespace,
    TEMPORAL_TASK_QUEUE: 'count-q',
    PORT: '0',
    LOG_LEVEL: 'silent',
    RATE_LIMIT_PER_MINUTE: '100000000',
    OUTBOX_SWEEP_INTERVAL_MS: '3600000',
  }),
  createLogger('silent', 'count')
)
const tenant = await newTenant(api, ['children', 'providers', 'bookings'])
const headers = { 'Content-Type': 'application/json', Authorization: `Bearer ${tenant.token}` }
const post = async (path: string, body: object) => {
  const r = await fetch(`${api.url}${path}`, { method: 'POST', headers, body: JSON.stringify(body) })
  return (await r.json()) as { id: string }
}
const providerId = (await post('/v1/providers', { name: 'P', timeZone: 'UTC' })).id
const childId = (await post('/v1/children', { firstName: 'C', lastName: 'D', dateOfBirth: '2020-03-03' })).id
const slot = (i: number) =>
  new Date(Math.ceil((Date.now() + 3 * 86400000) / 3600000) * 3600000 + i * 3600000).toISOString()
await post('/v1/appointments', { providerId, childId, type: 'THERAPY_SESSION', startsAt: slot(0) })
await new Promise((r) => setTimeout(r, 1500))
counting = true
await post('/v1/appointments', { providerId, childId, type: 'THERAPY_SESSION', startsAt: slot(1) })
await new Promise((r) => setTimeout(r, 500))
counting = false
console.log(`statements on the API's connections for one booking (and 500 ms after): ${texts.length}`)
for (const t of texts) console.log(`  ${t}`)
await api.stop()
await Promise.allSettled([temporal.stop(), database.stop()])
process.exit(0)
